using System;
using System.Diagnostics.Tracing;
using System.Threading;

namespace MemoryProbe
{
    /// <summary>
    /// Estimates bytes allocated on the large object heap from the runtime's GCAllocationTick events (one about
    /// every 100 KB allocated, carrying the amount since the previous tick of its kind). No API reports LOH
    /// allocations exactly; the estimate is within one tick per run, and both drivers are measured the same way.
    /// </summary>
    internal sealed class LargeObjectAllocationListener : EventListener
    {
        private const int AllocationTickEventId = 10;
        private const int LargeObjectKind = 1;
        private long _largeBytes;

        public long LargeObjectBytes => Interlocked.Read(ref _largeBytes);

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == "Microsoft-Windows-DotNETRuntime")
            {
                EnableEvents(source, EventLevel.Verbose, (EventKeywords)0x1 /* GC */);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs data)
        {
            if (data.EventId != AllocationTickEventId || data.Payload == null || data.PayloadNames == null)
            {
                return;
            }

            int kindIndex = data.PayloadNames.IndexOf("AllocationKind");
            int amountIndex = data.PayloadNames.IndexOf("AllocationAmount64");
            if (kindIndex < 0 || amountIndex < 0 || Convert.ToInt32(data.Payload[kindIndex]) != LargeObjectKind)
            {
                return;
            }

            Interlocked.Add(ref _largeBytes, Convert.ToInt64(data.Payload[amountIndex]));
        }
    }
}
