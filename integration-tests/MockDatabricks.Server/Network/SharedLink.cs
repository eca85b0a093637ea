using System.Diagnostics;

namespace MockDatabricks.Server.Network
{
    /// <summary>
    /// A link of a fixed rate that every body sent through it shares: each sender reserves the link for its next slice and
    /// waits for its turn, so the senders of the moment take turns a slice at a time (a fair share each) and together
    /// never send faster than the rate. The link's schedule is a clock of when it is next free.
    /// </summary>
    public sealed class SharedLink
    {
        private const int MinSliceBytes = 16 * 1024;
        private const int MaxSliceBytes = 1024 * 1024;

        // How far behind the present a reservation may start: a sender that woke late (a busy machine) makes up that much
        // of the link's time instead of losing it, and a link idle for longer grants no bigger burst than that.
        private static readonly long s_catchUpTicks = Stopwatch.Frequency / 20;

        private readonly object _gate = new object();
        private long _nextFreeTicks;

        public SharedLink(long bytesPerSecond)
        {
            BytesPerSecond = bytesPerSecond > 0 ? bytesPerSecond : throw new ArgumentOutOfRangeException(nameof(bytesPerSecond), bytesPerSecond, "a link's rate must be positive");
        }

        public long BytesPerSecond { get; }

        /// <summary>A slice of about 10 ms of the link: small enough that turns interleave finely, large enough for few timers.</summary>
        public int SliceBytes => (int)Math.Clamp(BytesPerSecond / 100, MinSliceBytes, MaxSliceBytes);

        /// <summary>Reserves the link for <paramref name="bytes"/>; returns how long to wait before sending them.</summary>
        public TimeSpan Reserve(int bytes)
        {
            long now = Stopwatch.GetTimestamp();
            long duration = (long)(bytes * (double)Stopwatch.Frequency / BytesPerSecond);
            long start;
            lock (_gate)
            {
                start = Math.Max(_nextFreeTicks, now - s_catchUpTicks);
                _nextFreeTicks = start + duration;
            }

            return start > now ? Stopwatch.GetElapsedTime(now, start) : TimeSpan.Zero;
        }
    }
}
