using System.IO;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace MemoryProbe
{
    /// <summary>
    /// Reads one heap dump of the probe with ClrMD and says what the live objects are and what keeps them alive:
    /// bytes and counts per type, bytes per root, and for chosen objects the shortest path from a root.
    /// <para>
    /// Reachability is a breadth-first walk from every root, so each object's recorded parent lies on a shortest
    /// path from some root. Named static fields (including thread statics and statics of closed generic types
    /// found on the heap) are seeded first: on .NET 9+ statics live in pinned object[] buckets held by one
    /// handle, and without the names a path would only say "StrongHandle -> Object[] -> ...".
    /// </para>
    /// </summary>
    internal sealed class HeapDumpAnalysis
    {
        private const int MaxPathSteps = 48;

        private readonly ClrHeap _heap;
        private readonly List<RootInfo> _roots = new List<RootInfo>();
        private readonly Dictionary<ulong, Parent> _parents = new Dictionary<ulong, Parent>();

        private HeapDumpAnalysis(ClrRuntime runtime)
        {
            _heap = runtime.Heap;
            SeedRoots(runtime);
            Walk();
        }

        /// <summary>Reachable objects per type name: count and bytes.</summary>
        public Dictionary<string, TypeTotal> Types { get; } = new Dictionary<string, TypeTotal>(StringComparer.Ordinal);

        /// <summary>Reachable bytes per root label, each object counted once, under the root the walk reached it from.</summary>
        public Dictionary<string, long> BytesByRoot { get; } = new Dictionary<string, long>(StringComparer.Ordinal);

        /// <summary>Reachable bytes per (type, root label): which roots hold the instances of a type.</summary>
        public Dictionary<(string Type, string Root), long> TypeBytesByRoot { get; } = new Dictionary<(string, string), long>();

        public Dictionary<string, long> RootCountsByKind { get; } = new Dictionary<string, long>(StringComparer.Ordinal);

        public long ReachableBytes { get; private set; }

        public long ReachableCount { get; private set; }

        /// <summary>Objects on the heap that no root reaches (garbage allocated since the last collection).</summary>
        public long UnreachableBytes { get; private set; }

        public long UnreachableCount { get; private set; }

        public long FreeBytes { get; private set; }

        /// <summary>The largest reachable objects, with their shortest root path.</summary>
        public List<ObjectReport> Largest { get; } = new List<ObjectReport>();

        public static HeapDumpAnalysis Load(string dumpPath, Func<HeapDumpAnalysis, IEnumerable<string>> typesToExplain, int largestObjects, out Dictionary<string, ObjectReport> explained)
        {
            using DataTarget target = DataTarget.LoadDump(dumpPath);
            // The dump is of this very process, so the runtime's own DAC matches it. Naming it keeps ClrMD away from
            // its symbol-server locator, which needs Azure.Core: the probe deliberately does not ship it (see
            // MemoryProbe.csproj). The version check is skipped because ClrMD reads the runtime's version out of a
            // createdump dump on Linux as 0.0 and would reject the matching DAC.
            string dac = Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), RuntimeInformation.IsOSPlatform(OSPlatform.Windows) ? "mscordaccore.dll" : "libmscordaccore.so");
            using ClrRuntime runtime = target.ClrVersions.Single().CreateRuntime(dac, ignoreMismatch: true);
            var analysis = new HeapDumpAnalysis(runtime);
            analysis.FillLargest(largestObjects);
            explained = analysis.ExplainLargestOf(typesToExplain(analysis).ToHashSet(StringComparer.Ordinal));
            return analysis;
        }

        private void SeedRoots(ClrRuntime runtime)
        {
            ClrAppDomain? domain = runtime.AppDomains.FirstOrDefault();
            var staticTypes = new HashSet<ClrType>();
            foreach (ClrModule module in runtime.EnumerateModules())
            {
                foreach (ClrType type in module.EnumerateTypesWithStaticFields())
                {
                    staticTypes.Add(type);
                }
            }

            // Closed generic types (ArrayPool<byte>, EqualityComparer<string>, ...) are not in the TypeDef maps:
            // take every type on the heap and its base types.
            foreach (ClrObject obj in _heap.EnumerateObjects())
            {
                for (ClrType? type = obj.Type; type != null && staticTypes.Add(type); type = type.BaseType)
                {
                }
            }

            foreach (ClrType type in staticTypes)
            {
                foreach (ClrStaticField field in type.StaticFields)
                {
                    if (domain != null && field.IsObjectReference && field.IsInitialized(domain))
                    {
                        AddRoot("Static", $"{type.Name}.{field.Name}", field.ReadObject(domain));
                    }
                }

                foreach (ClrThreadStaticField field in type.ThreadStaticFields)
                {
                    if (!field.IsObjectReference)
                    {
                        continue;
                    }

                    foreach (ClrThread thread in runtime.Threads)
                    {
                        if (field.IsInitialized(thread))
                        {
                            AddRoot("ThreadStatic", $"{type.Name}.{field.Name} [thread {thread.ManagedThreadId}]", field.ReadObject(thread));
                        }
                    }
                }
            }

            foreach (ClrRoot root in _heap.EnumerateRoots())
            {
                string kind = root.RootKind.ToString();
                AddRoot(kind, $"{kind} {root.Object.Type?.Name ?? "?"}", root.Object);
            }
        }

        private void AddRoot(string kind, string label, ClrObject obj)
        {
            RootCountsByKind[kind] = RootCountsByKind.GetValueOrDefault(kind) + 1;
            if (obj.IsNull || !obj.IsValid || _parents.ContainsKey(obj.Address))
            {
                return;
            }

            _roots.Add(new RootInfo(kind, label));
            _parents.Add(obj.Address, new Parent(0, null, _roots.Count - 1));
        }

        private void Walk()
        {
            // The seeded roots are the first level of the breadth-first walk.
            var queue = new Queue<ulong>(_parents.Keys);
            while (queue.Count > 0)
            {
                ulong address = queue.Dequeue();
                ClrObject obj = _heap.GetObject(address);
                Parent parent = _parents[address];
                string typeName = obj.Type?.Name ?? "<unknown>";
                string rootLabel = _roots[parent.Root].Label;
                long size = (long)obj.Size;

                ReachableBytes += size;
                ReachableCount++;
                TypeTotal total = Types.GetValueOrDefault(typeName);
                Types[typeName] = new TypeTotal(total.Count + 1, total.Bytes + size);
                BytesByRoot[rootLabel] = BytesByRoot.GetValueOrDefault(rootLabel) + size;
                TypeBytesByRoot[(typeName, rootLabel)] = TypeBytesByRoot.GetValueOrDefault((typeName, rootLabel)) + size;

                if (!obj.ContainsPointers)
                {
                    continue;
                }

                foreach (ClrReference reference in obj.EnumerateReferencesWithFields(carefully: false, considerDependantHandles: true))
                {
                    ulong child = reference.Object.Address;
                    if (child == 0 || _parents.ContainsKey(child))
                    {
                        continue;
                    }

                    string via = reference.IsDependentHandle ? "(dependent handle)"
                        : reference.IsArrayElement ? "[]"
                        : reference.Field?.Name ?? "?";
                    _parents.Add(child, new Parent(address, via, parent.Root));
                    queue.Enqueue(child);
                }
            }

            foreach (ClrObject obj in _heap.EnumerateObjects())
            {
                if (obj.IsFree)
                {
                    FreeBytes += (long)obj.Size;
                }
                else if (!_parents.ContainsKey(obj.Address))
                {
                    UnreachableBytes += (long)obj.Size;
                    UnreachableCount++;
                }
            }
        }

        private void FillLargest(int count)
        {
            foreach (ulong address in _parents.Keys.OrderByDescending(a => _heap.GetObject(a).Size).Take(count))
            {
                Largest.Add(Describe(address));
            }
        }

        private Dictionary<string, ObjectReport> ExplainLargestOf(HashSet<string> typeNames)
        {
            var largest = new Dictionary<string, (ulong Address, ulong Size)>(StringComparer.Ordinal);
            foreach (ulong address in _parents.Keys)
            {
                ClrObject obj = _heap.GetObject(address);
                string? name = obj.Type?.Name;
                if (name != null && typeNames.Contains(name) && (!largest.TryGetValue(name, out var best) || obj.Size > best.Size))
                {
                    largest[name] = (address, obj.Size);
                }
            }

            return largest.ToDictionary(p => p.Key, p => Describe(p.Value.Address), StringComparer.Ordinal);
        }

        /// <summary>The object and its chain back to its root, root first: "root", then "Type.field" per hop.</summary>
        private ObjectReport Describe(ulong address)
        {
            var hops = new List<string>();
            ulong current = address;
            Parent parent = _parents[current];
            while (parent.Address != 0 && hops.Count < MaxPathSteps)
            {
                hops.Add($"{_heap.GetObject(parent.Address).Type?.Name ?? "?"} .{parent.Via}");
                current = parent.Address;
                parent = _parents[current];
            }

            RootInfo root = _roots[parent.Root];
            hops.Add($"root {root.Label}");
            hops.Reverse();
            ClrObject target = _heap.GetObject(address);
            hops.Add(target.Type?.Name ?? "?");
            // The first bytes of a byte[] often say what it held: an Arrow IPC message starts with FF FF FF FF, an LZ4
            // frame with 04 22 4D 18. A pooled array keeps the contents of its last use.
            string? head = target.Type?.Name == "System.Byte[]" && target.IsArray
                ? Convert.ToHexString(target.AsArray().ReadValues<byte>(0, Math.Min(16, target.AsArray().Length)) ?? Array.Empty<byte>())
                : null;
            return new ObjectReport(target.Type?.Name ?? "?", (long)target.Size, root.Kind, hops, parent.Address != 0, head);
        }

        internal readonly record struct TypeTotal(long Count, long Bytes);

        /// <summary>One object: its type, size, the kind of root that holds it, the path from that root (truncated when Truncated), and for a byte[] its first bytes in hex.</summary>
        internal sealed record ObjectReport(string Type, long Bytes, string RootKind, List<string> Path, bool Truncated, string? Head);

        private readonly record struct RootInfo(string Kind, string Label);

        /// <summary>How the walk first reached an object: from which object (0 for a root), through which field, under which root.</summary>
        private readonly record struct Parent(ulong Address, string? Via, int Root);
    }
}
