using System.Diagnostics;

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
