using System.Diagnostics;

namespace MemoryProbe
{
    /// <summary>
    /// Samples the GC heap and the working set every few milliseconds on a background thread: the timeline of the
    /// report's chart, and the peaks. Sampling misses peaks shorter than the interval; the working-set peak also
    /// comes from the OS (Process.PeakWorkingSet64), which does not. An optional action runs with every sample (reading
    /// the driver's observable instruments).
    /// </summary>
    internal sealed class MemorySampler : IDisposable
    {
        private readonly TimeSpan _interval;
        private readonly Stopwatch _clock = new Stopwatch();
        private readonly List<Sample> _samples = new List<Sample>(4096);
        private readonly Thread _thread;
        private readonly Action? _withEachSample;
        private volatile bool _stop;

        public MemorySampler(TimeSpan interval, Action? withEachSample = null)
        {
            _interval = interval;
            _withEachSample = withEachSample;
            _thread = new Thread(Run) { IsBackground = true, Name = "memory sampler" };
        }

        public long PeakGcHeapBytes { get; private set; }

        public IReadOnlyList<Sample> Samples => _samples;

        public void Start()
        {
            _clock.Start();
            _thread.Start();
        }

        public void Stop()
        {
            _stop = true;
            _thread.Join();
            Take();
        }

        public void Dispose()
        {
            if (_thread.IsAlive)
            {
                Stop();
            }
        }

        private void Run()
        {
            while (!_stop)
            {
                Take();
                Thread.Sleep(_interval);
            }
        }

        private void Take()
        {
            _withEachSample?.Invoke();
            long heap = GC.GetTotalMemory(forceFullCollection: false);
            long workingSet = RuntimeMeasures.WorkingSet();
            lock (_samples)
            {
                _samples.Add(new Sample(_clock.Elapsed.TotalSeconds, heap, workingSet));
                PeakGcHeapBytes = Math.Max(PeakGcHeapBytes, heap);
            }
        }

        internal readonly record struct Sample(double T, long GcHeapBytes, long WorkingSetBytes);
    }
}
