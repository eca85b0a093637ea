using System.Diagnostics;
using System.IO;

namespace MemoryProbe
{
    /// <summary>
    /// What the runtime tells about the process's memory, where .NET and Mono (the .NET Framework stand-in, net472
    /// build) differ. A measure Mono cannot take is null, and the report says so rather than showing a zero.
    /// </summary>
    internal static class RuntimeMeasures
    {
        /// <summary>"Mono 6.8.0.105 (...)" under Mono, ".NET 10.0.x" otherwise.</summary>
        public static string Runtime { get; } = Type.GetType("Mono.Runtime")?
            .GetMethod("GetDisplayName", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static)?
            .Invoke(null, null) is string mono ? "Mono " + mono : ".NET " + Environment.Version;

        /// <summary>
        /// The largest CPU cache Linux reports for the first CPU, in bytes; null where it cannot be read (Windows, a
        /// container without /sys). Why: .NET's GC sizes its youngest generation's budget from it, so the same code on a
        /// machine reporting a larger cache collects less often and holds more garbage in its working set.
        /// </summary>
        public static long? LargestCpuCacheBytes()
        {
            try
            {
                long largest = 0;
                foreach (string index in Directory.EnumerateDirectories("/sys/devices/system/cpu/cpu0/cache", "index*"))
                {
                    string size = File.ReadAllText(Path.Combine(index, "size")).Trim(); // "307200K"
                    long unit = size.EndsWith("M", StringComparison.Ordinal) ? 1024 * 1024 : size.EndsWith("K", StringComparison.Ordinal) ? 1024 : 1;
                    if (long.TryParse(size.TrimEnd('K', 'M'), out long value))
                    {
                        largest = Math.Max(largest, value * unit);
                    }
                }

                return largest > 0 ? largest : (long?)null;
            }
            catch (Exception ex) when (ex is IOException || ex is UnauthorizedAccessException)
            {
                return null;
            }
        }

        /// <summary>Bytes allocated by every thread so far; null under Mono, whose class libraries count only the calling thread's.</summary>
        public static long? TotalAllocatedBytes()
        {
#if NETFRAMEWORK
            return null;
#else
            return GC.GetTotalAllocatedBytes(precise: true);
#endif
        }

        /// <summary>
        /// Collections of the oldest generation: Gen2 on .NET; on Mono, whose collector has two generations
        /// (GC.MaxGeneration is 1), every major collection.
        /// </summary>
        public static int FullCollections() => GC.CollectionCount(GC.MaxGeneration);

        /// <summary>The resident set. Mono's Environment.WorkingSet is always 0; its Process.WorkingSet64 reads the resident set.</summary>
        public static long WorkingSet()
        {
#if NETFRAMEWORK
            using var process = Process.GetCurrentProcess();
            return process.WorkingSet64;
#else
            return Environment.WorkingSet;
#endif
        }

        /// <summary>Memory the GC has committed; null under .NET Framework and Mono (no GC.GetGCMemoryInfo).</summary>
        public static long? GcCommittedBytes()
        {
#if NETFRAMEWORK
            return null;
#else
            return GC.GetGCMemoryInfo().TotalCommittedBytes;
#endif
        }

        /// <summary>A blocking collection that also gives free memory back to the OS where the runtime can (.NET's aggressive mode).</summary>
        public static void AggressiveCollect()
        {
#if NETFRAMEWORK
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
#else
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
#endif
        }
    }
}
