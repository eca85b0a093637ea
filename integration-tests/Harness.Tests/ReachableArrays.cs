using System.Reflection;
using System.Runtime.CompilerServices;

namespace Harness.Tests
{
    /// <summary>
    /// Finds the large byte arrays an object graph reaches, by walking instance fields from a root. Generic on
    /// purpose: it names no driver type or member, so it keeps working when the patch's internals change, and it
    /// cannot be fooled by an accounting bug (it looks at references, not at counters).
    /// </summary>
    /// <remarks>
    /// Used on the DatabricksDatabase: before dispose it reaches the scope's pooled arrays (LZ4 buffers, stream
    /// blocks and buffers), which the test then holds only through WeakReferences. After dispose, a blocking GC must
    /// collect every one of them while the test still holds the database: that is "pooled memory is collectable even
    /// while the application references the disposed database", proven by reachability as upstream learned to do
    /// (WeakReference, not heap deltas). Static fields are not walked: if a static still held an array, its
    /// WeakReference would stay alive and the test would fail, which is the point.
    /// </remarks>
    public static class ReachableArrays
    {
        public const int LargeArrayBytes = 64 * 1024;

        private const int MaxObjects = 500_000;

        /// <summary>WeakReferences to every byte[] of at least <see cref="LargeArrayBytes"/> reachable from <paramref name="root"/>.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static List<WeakReference> WeakReferencesToLargeArrays(object root, out long totalBytes)
        {
            var found = new List<WeakReference>();
            totalBytes = 0;
            foreach (byte[] array in LargeArrays(root))
            {
                found.Add(new WeakReference(array));
                totalBytes += array.Length;
            }

            return found;
        }

        private static IEnumerable<byte[]> LargeArrays(object root)
        {
            var visited = new HashSet<object>(ReferenceEqualityComparer.Instance);
            var pending = new Stack<object>();
            pending.Push(root);
            while (pending.Count > 0 && visited.Count < MaxObjects)
            {
                object current = pending.Pop();
                if (!visited.Add(current))
                {
                    continue;
                }

                Type type = current.GetType();
                if (current is byte[] bytes)
                {
                    if (bytes.Length >= LargeArrayBytes)
                    {
                        yield return bytes;
                    }

                    continue;
                }

                if (current is string || current is Type || current is MemberInfo || current is Assembly || current is Delegate || type.IsPointer)
                {
                    continue;
                }

                if (current is Array array)
                {
                    Type element = type.GetElementType()!;
                    if (element.IsPrimitive || element.IsPointer || element.IsEnum)
                    {
                        continue;
                    }

                    foreach (object? item in array)
                    {
                        if (item != null)
                        {
                            pending.Push(item);
                        }
                    }

                    continue;
                }

                for (Type? t = type; t != null; t = t.BaseType)
                {
                    foreach (FieldInfo field in t.GetFields(BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
                    {
                        Type fieldType = field.FieldType;
                        if (fieldType.IsPrimitive || fieldType.IsPointer || fieldType.IsEnum || fieldType == typeof(string) || fieldType.IsByRefLike)
                        {
                            continue;
                        }

                        object? value = field.GetValue(current);
                        if (value != null)
                        {
                            // A struct field comes back boxed (a new object each time): walk its fields too.
                            pending.Push(value);
                        }
                    }
                }
            }
        }
    }
}
