using System.Diagnostics;
using System.IO;
using System.Text.Json;
using Microsoft.Diagnostics.NETCore.Client;

namespace MemoryProbe
{
    /// <summary>
    /// The opt-in --heap-report FILE: what the "GC heap after dispose - before open" residue is made of. The probe
    /// dumps its own heap at both points (right after each compacting collection is measured) and, only once both
    /// numbers are taken, reads the dumps with ClrMD (never attached to the live process: ClrMD allocates a lot,
    /// and it must not be part of what is measured) and writes per-type totals, their difference, what roots
    /// hold the growth, and shortest root paths of the largest objects and of the types that grew most.
    /// </summary>
    internal sealed class HeapReport
    {
        private const int TopTypes = 30;
        private const int LargestObjects = 10;
        private const int ExplainedTypes = 10;
        private const int TopRoots = 20;

        private readonly string _file;
        private readonly string _dumpDirectory;
        private string? _beforeDump;
        private string? _afterDump;
        private double _dumpSeconds;
        private PooledArrayAllocationListener? _pooledAllocations;
        private IEnumerable<object>? _pooledAllocationsSeen;

        public HeapReport(string file)
        {
            _file = file;
            _dumpDirectory = Path.Combine(Path.GetTempPath(), $"memory-probe-{Environment.ProcessId}");
        }

        /// <summary>Dumps the heap, then starts recording who makes the array pools allocate (for the measured run).</summary>
        public void DumpBeforeOpen()
        {
            _beforeDump = WriteDump("before-open");
            _pooledAllocations = new PooledArrayAllocationListener();
        }

        /// <summary>Stops recording pool allocations (the measured run is over), then dumps the heap.</summary>
        public void DumpAfterDispose()
        {
            _pooledAllocationsSeen = _pooledAllocations?.Report();
            _pooledAllocations?.Dispose();
            _afterDump = WriteDump("after-dispose");
        }

        /// <summary>Analyses the dumps, writes the report, deletes the dumps (also when the analysis fails).</summary>
        public void Write(long heapBeforeOpen, long heapAfterDispose)
        {
            try
            {
                var clock = Stopwatch.StartNew();
                HeapDumpAnalysis? before = _beforeDump == null ? null
                    : HeapDumpAnalysis.Load(_beforeDump, _ => Array.Empty<string>(), 0, out _);
                HeapDumpAnalysis after = HeapDumpAnalysis.Load(_afterDump ?? throw new InvalidOperationException("no after-dispose dump"),
                    a => GrowingTypes(before, a).Take(ExplainedTypes).Select(t => t.Type), LargestObjects, out Dictionary<string, HeapDumpAnalysis.ObjectReport> explained);

                var report = new Dictionary<string, object?>
                {
                    ["gcHeapBeforeOpenBytes"] = heapBeforeOpen,
                    ["gcHeapAfterDisposeBytes"] = heapAfterDispose,
                    ["gcHeapAfterDisposeDeltaBytes"] = heapAfterDispose - heapBeforeOpen,
                    ["dumpSeconds"] = _dumpSeconds,
                    ["analysisSeconds"] = clock.Elapsed.TotalSeconds,
                    ["beforeOpen"] = before == null ? null : Summary(before),
                    ["afterDispose"] = Summary(after),
                    ["typeDelta"] = before == null ? null : GrowingTypes(before, after).Take(TopTypes).Select(t => new
                    {
                        type = t.Type,
                        countDelta = t.CountDelta,
                        bytesDelta = t.BytesDelta,
                        countAfter = after.Types.GetValueOrDefault(t.Type).Count,
                        bytesAfter = after.Types.GetValueOrDefault(t.Type).Bytes,
                        heldByAfter = HeldBy(after, t.Type),
                        heldByBefore = HeldBy(before, t.Type),
                    }),
                    ["typeShrink"] = before == null ? null : GrowingTypes(before, after).Reverse().TakeWhile(t => t.BytesDelta < 0).Take(10)
                        .Select(t => new { type = t.Type, countDelta = t.CountDelta, bytesDelta = t.BytesDelta }),
                    ["rootDelta"] = before == null ? null : after.BytesByRoot.Keys.Union(before.BytesByRoot.Keys)
                        .Select(r => new { root = r, bytesDelta = after.BytesByRoot.GetValueOrDefault(r) - before.BytesByRoot.GetValueOrDefault(r), bytesAfter = after.BytesByRoot.GetValueOrDefault(r) })
                        .OrderByDescending(r => Math.Abs(r.bytesDelta)).Take(TopRoots),
                    ["largestTypesAfter"] = after.Types.OrderByDescending(t => t.Value.Bytes).Take(TopTypes)
                        .Select(t => new { type = t.Key, count = t.Value.Count, bytes = t.Value.Bytes }),
                    ["largestObjectsAfter"] = after.Largest,
                    ["largestInstanceOfGrowingTypes"] = explained,
                    ["pooledArrayAllocationsAtLeastBytes"] = PooledArrayAllocationListener.MinimumBytes,
                    ["pooledArrayAllocations"] = _pooledAllocationsSeen,
                };

                Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(_file))!);
                File.WriteAllText(_file, JsonSerializer.Serialize(report, new JsonSerializerOptions { WriteIndented = true, PropertyNamingPolicy = JsonNamingPolicy.CamelCase }));
            }
            finally
            {
                Directory.Delete(_dumpDirectory, recursive: true);
            }
        }

        /// <summary>
        /// The runtime's createdump writes the dump; asking for the own process works on Linux (the diagnostic server
        /// thread answers and createdump attaches to the waiting process). A full dump, not a heap dump: reading a
        /// heap dump, the DAC asks for module image bytes it lacks, and ClrMD then looks for the image files through
        /// its symbol-server locator, which needs Azure.Core (not shipped) and takes the process down.
        /// </summary>
        private string WriteDump(string name)
        {
            var clock = Stopwatch.StartNew();
            Directory.CreateDirectory(_dumpDirectory);
            string path = Path.Combine(_dumpDirectory, name + ".dmp");
            new DiagnosticsClient(Environment.ProcessId).WriteDump(DumpType.Full, path, logDumpGeneration: false);
            _dumpSeconds += clock.Elapsed.TotalSeconds;
            return path;
        }

        private static IEnumerable<(string Type, long CountDelta, long BytesDelta)> GrowingTypes(HeapDumpAnalysis? before, HeapDumpAnalysis after) =>
            after.Types.Keys.Union(before?.Types.Keys ?? Enumerable.Empty<string>())
                .Select(t => (t,
                    after.Types.GetValueOrDefault(t).Count - (before?.Types.GetValueOrDefault(t).Count ?? 0),
                    after.Types.GetValueOrDefault(t).Bytes - (before?.Types.GetValueOrDefault(t).Bytes ?? 0)))
                .OrderByDescending(t => t.Item3);

        /// <summary>The roots under which the walk found the instances of a type, largest first.</summary>
        private static IEnumerable<object> HeldBy(HeapDumpAnalysis analysis, string type) => analysis.TypeBytesByRoot
            .Where(p => p.Key.Type == type).OrderByDescending(p => p.Value).Take(5)
            .Select(p => new { root = p.Key.Root, bytes = p.Value });

        private static object Summary(HeapDumpAnalysis analysis) => new
        {
            reachableBytes = analysis.ReachableBytes,
            reachableObjects = analysis.ReachableCount,
            unreachableBytes = analysis.UnreachableBytes,
            unreachableObjects = analysis.UnreachableCount,
            freeBytes = analysis.FreeBytes,
            rootsByKind = analysis.RootCountsByKind,
        };
    }
}
