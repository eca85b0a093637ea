using System.Buffers;
using System.Diagnostics.Tracing;

namespace MemoryProbe
{
    /// <summary>
    /// Part of the opt-in heap report: who made the runtime's array pools allocate large arrays. A heap dump shows
    /// that pooled byte[]s survive, not who rented them; the runtime's ArrayPoolEventSource raises BufferAllocated
    /// synchronously on the renting thread, so the stack at that moment names the caller. Only arrays of at least
    /// <see cref="MinimumBytes"/> are recorded (taking a stack is slow). Enabling the event source makes the pools
    /// do a little more work, which is why this only runs with --heap-report.
    /// </summary>
    internal sealed class PooledArrayAllocationListener : EventListener
    {
        public const int MinimumBytes = 64 * 1024;
        private const int BufferAllocatedEventId = 2;
        private const int FramesKept = 12;

        private readonly Dictionary<(string Pool, int Size, string Reason, string Stack), (int Count, HashSet<int> Threads)> _allocations = new();
        private readonly int _sharedBytePoolId = ArrayPool<byte>.Shared.GetHashCode();

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == "System.Buffers.ArrayPoolEventSource")
            {
                EnableEvents(source, EventLevel.Informational);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs data)
        {
            if (data.EventId != BufferAllocatedEventId || data.Payload == null || data.PayloadNames == null)
            {
                return;
            }

            int size = Convert.ToInt32(data.Payload[data.PayloadNames.IndexOf("bufferSize")]);
            if (size < MinimumBytes)
            {
                return;
            }

            int poolId = Convert.ToInt32(data.Payload[data.PayloadNames.IndexOf("poolId")]);
            string pool = poolId == _sharedBytePoolId ? "ArrayPool<byte>.Shared" : $"pool {poolId}";
            string reason = ReasonName(data.Payload[data.PayloadNames.IndexOf("reason")]);
            var key = (pool, size, reason, CallerStack());
            lock (_allocations)
            {
                if (!_allocations.TryGetValue(key, out var entry))
                {
                    entry = (0, new HashSet<int>());
                }

                entry.Threads.Add(Environment.CurrentManagedThreadId);
                _allocations[key] = (entry.Count + 1, entry.Threads);
            }
        }

        /// <summary>Every recorded allocation group, largest total first.</summary>
        public IEnumerable<object> Report()
        {
            lock (_allocations)
            {
                return _allocations
                    .OrderByDescending(p => (long)p.Key.Size * p.Value.Count)
                    .Select(p => new
                    {
                        pool = p.Key.Pool,
                        bufferSize = p.Key.Size,
                        reason = p.Key.Reason,
                        count = p.Value.Count,
                        bytes = (long)p.Key.Size * p.Value.Count,
                        distinctThreads = p.Value.Threads.Count,
                        stack = p.Key.Stack.Split('\n'),
                    })
                    .ToList();
            }
        }

        /// <summary>
        /// The renting code: the frames below the event plumbing (listener, EventSource, ArrayPoolEventSource) and the
        /// pool itself (which the JIT may have inlined into its caller, so it is not always there).
        /// </summary>
        private static string CallerStack()
        {
            List<string> frames = Environment.StackTrace.Split('\n')
                .Select(f => f.Trim())
                .Select(f => f.StartsWith("at ", StringComparison.Ordinal) ? f.Substring(3) : f)
                .Select(f => f.IndexOf(" in ", StringComparison.Ordinal) is int i and > 0 ? f.Substring(0, i) : f)
                .Where(f => f.Length > 0)
                .ToList();
            int lastPlumbing = frames.FindLastIndex(f => f.Contains("EventSource", StringComparison.Ordinal)
                || f.Contains("EventListener", StringComparison.Ordinal) || f.Contains(nameof(PooledArrayAllocationListener), StringComparison.Ordinal));
            IEnumerable<string> callers = frames.Skip(lastPlumbing + 1)
                .SkipWhile(f => f.StartsWith("System.Buffers.SharedArrayPool", StringComparison.Ordinal) || f.StartsWith("System.Buffers.ConfigurableArrayPool", StringComparison.Ordinal));
            return string.Join('\n', callers.Take(FramesKept));
        }

        private static string ReasonName(object? reason) => Convert.ToInt32(reason) switch
        {
            0 => "Pooled",
            1 => "OverMaximumSize",
            2 => "PoolExhausted",
            int other => other.ToString(System.Globalization.CultureInfo.InvariantCulture),
        };
    }
}
