using System.Diagnostics.Tracing;

namespace MemoryProbe
{
    /// <summary>
    /// What the runtime's GC events tell about a run that no API reports: bytes allocated on the large object heap, and
    /// the reason the GC gave for each collection of generation 2.
    /// </summary>
    /// <remarks>
    /// LOH bytes come from GCAllocationTick events (one about every 100 KB allocated, carrying the amount since the
    /// previous tick of its kind): an estimate within one tick per run, the same for both drivers. Gen2 reasons come
    /// from GCStart events and tell allocation-triggered collections from induced ones, which is what
    /// <c>GC.AddMemoryPressure</c> does (Apache.Arrow's native allocator calls it for every record batch buffer it
    /// allocates, whichever driver reads the batches).
    /// </remarks>
    internal sealed class GcEventListener : EventListener
    {
        private const int GcStartEventId = 1;
        private const int AllocationTickEventId = 10;
        private const int LargeObjectKind = 1;

        // The runtime's gc_reason values (gcinterface.h); ones a probe run does not produce are left as numbers.
        private static readonly Dictionary<int, string> s_reasonNames = new Dictionary<int, string>
        {
            [0] = "small_object_allocation",
            [1] = "induced",
            [2] = "low_memory",
            [4] = "large_object_allocation",
            [5] = "out_of_space_soh",
            [6] = "out_of_space_loh",
            [7] = "induced_not_forced",
            [8] = "internal",
            [9] = "induced_low_memory",
            [10] = "induced_compacting",
        };

        private readonly object _gate = new object();
        private readonly List<(DateTime Time, string Reason)> _gen2 = new List<(DateTime, string)>();
        private long _largeBytes;

        private volatile bool _enabled;

        public long LargeObjectBytes => Interlocked.Read(ref _largeBytes);

        /// <summary>True once the runtime's event source was found: .NET's; Mono has none, so nothing here is measured there.</summary>
        public bool Enabled => _enabled;

        /// <summary>
        /// Collections of generation 2 that started between <paramref name="from"/> and <paramref name="to"/> (UTC), by
        /// reason. Runtime events reach a listener asynchronously, so callers ask some time after <paramref name="to"/>
        /// and select by the events' own timestamps rather than by when they arrived.
        /// </summary>
        public SortedDictionary<string, int> Gen2ByReason(DateTime from, DateTime to)
        {
            var counts = new SortedDictionary<string, int>(StringComparer.Ordinal);
            lock (_gate)
            {
                foreach ((DateTime time, string reason) in _gen2)
                {
                    if (time >= from && time <= to)
                    {
                        counts[reason] = counts.TryGetValue(reason, out int count) ? count + 1 : 1;
                    }
                }
            }

            return counts;
        }

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == "Microsoft-Windows-DotNETRuntime")
            {
                EnableEvents(source, EventLevel.Verbose, (EventKeywords)0x1 /* GC */);
                _enabled = true;
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs data)
        {
            if (data.Payload == null || data.PayloadNames == null)
            {
                return;
            }

            if (data.EventId == AllocationTickEventId)
            {
                int kindIndex = data.PayloadNames.IndexOf("AllocationKind");
                int amountIndex = data.PayloadNames.IndexOf("AllocationAmount64");
                if (kindIndex >= 0 && amountIndex >= 0 && Convert.ToInt32(data.Payload[kindIndex]) == LargeObjectKind)
                {
                    Interlocked.Add(ref _largeBytes, Convert.ToInt64(data.Payload[amountIndex]));
                }
            }
            else if (data.EventId == GcStartEventId)
            {
                int depthIndex = data.PayloadNames.IndexOf("Depth");
                int reasonIndex = data.PayloadNames.IndexOf("Reason");
                if (depthIndex >= 0 && reasonIndex >= 0 && Convert.ToInt32(data.Payload[depthIndex]) == 2)
                {
                    int reason = Convert.ToInt32(data.Payload[reasonIndex]);
                    string name = s_reasonNames.TryGetValue(reason, out string? known) ? known : "reason_" + reason;
                    lock (_gate)
                    {
                        #if NETFRAMEWORK
                        _gen2.Add((DateTime.UtcNow, name)); // .NET Framework's event has no time stamp (and Mono sends no GC events)
#else
                        _gen2.Add((data.TimeStamp.ToUniversalTime(), name));
#endif
                    }
                }
            }
        }
    }
}
