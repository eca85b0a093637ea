using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using MetricNames = Apache.Arrow.Adbc.Drivers.Databricks.DatabricksMemoryMetricNames;

namespace Harness.Support
{
    /// <summary>
    /// Listens to the patched driver's meter (DatabricksMemoryMetricNames.MeterName) and adds up every
    /// measurement per instrument, scope and pool. The harness asserts on these sums instead of reaching into the
    /// driver with reflection or InternalsVisibleTo. Against the stock driver nothing is published.
    /// </summary>
    public sealed class OverlayMetricsListener : IDisposable
    {
        private readonly MeterListener _listener = new MeterListener();
        private readonly ConcurrentDictionary<(string Instrument, int Scope, string Pool), long> _sums = new();
        private readonly ConcurrentDictionary<(string Instrument, int Scope, string Pool), long> _peaks = new();
        private readonly ConcurrentDictionary<(string Instrument, int Scope), double> _doubleSums = new();
        private readonly ConcurrentDictionary<(string Instrument, int Scope, string Pool), long> _observedPeaks = new();
        private readonly object _peakGate = new object();

        public OverlayMetricsListener()
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == MetricNames.MeterName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>(OnMeasurement);
            _listener.SetMeasurementEventCallback<double>((instrument, value, tags, state) =>
                _doubleSums.AddOrUpdate((instrument.Name, ScopeOf(tags)), value, (_, sum) => sum + value));
            _listener.Start();
        }

        /// <summary>Scope ids seen so far (each DatabricksDatabase, or directly constructed connection, has one).</summary>
        public IReadOnlyCollection<int> Scopes => _sums.Keys.Select(k => k.Scope).Where(s => s != 0).Distinct().ToArray();

        /// <summary>The sum of <paramref name="instrument"/> (a name from DatabricksMemoryMetricNames) over the given scope(s) and pool(s).</summary>
        public long Sum(string instrument, int? scope = null, string? pool = null) =>
            _sums.Where(p => p.Key.Instrument == instrument && (scope == null || p.Key.Scope == scope) && (pool == null || p.Key.Pool == pool))
                 .Sum(p => p.Value);

        /// <summary>
        /// The highest value an up-down counter (in use, the budget's in use and waiters) reached, per scope and pool,
        /// added over the given scope(s) and pool(s).
        /// </summary>
        public long Peak(string instrument, int? scope = null, string? pool = null) =>
            _peaks.Where(p => p.Key.Instrument == instrument && (scope == null || p.Key.Scope == scope) && (pool == null || p.Key.Pool == pool))
                  .Sum(p => p.Value);

        /// <summary>The sum of a double instrument (the budget's wait time, seconds) over the given scope(s).</summary>
        public double SumSeconds(string instrument, int? scope = null) =>
            _doubleSums.Where(p => p.Key.Instrument == instrument && (scope == null || p.Key.Scope == scope)).Sum(p => p.Value);

        /// <summary>The database budget's figures, for reports: its limit, its peak in use, the peak number of waiting readers, waits and wait time.</summary>
        public Dictionary<string, object?> BudgetSnapshot() => new Dictionary<string, object?>
        {
            ["limitBytes"] = Peak(MetricNames.BudgetLimit),
            ["peakInUseBytes"] = Peak(MetricNames.BudgetInUse),
            ["peakWaiters"] = Peak(MetricNames.BudgetWaiters),
            ["waits"] = Sum(MetricNames.BudgetWaits),
            ["waitSeconds"] = SumSeconds(MetricNames.BudgetWaitTime),
        };

        public long InUseBytes(int? scope = null) => Sum(MetricNames.InUse, scope);

        public long RetainedBytes(int? scope = null) => Sum(MetricNames.Retained, scope);

        public long DecodedBytes(int? scope = null) => Sum(MetricNames.Lz4Decoded, scope);

        /// <summary>
        /// The highest value of every up-down counter and observable instrument seen so far, per instrument (added over
        /// scopes and pools), for a JSON report: what a pipeline had in flight or waiting at most, whatever the
        /// instrument's name. Observable instruments are read by <see cref="RecordObservableInstruments"/>.
        /// </summary>
        public Dictionary<string, long> PeaksSnapshot() => _peaks.Concat(_observedPeaks)
            .GroupBy(p => p.Key.Instrument)
            .ToDictionary(g => g.Key, g => g.Sum(p => p.Value));

        /// <summary>Reads every observable instrument of the meter now (a sampler calls it periodically).</summary>
        public void RecordObservableInstruments() => _listener.RecordObservableInstruments();

        /// <summary>Every sum, flattened for a JSON report.</summary>
        public Dictionary<string, long> Snapshot() => _sums
            .GroupBy(p => p.Key.Pool.Length == 0 ? p.Key.Instrument : $"{p.Key.Instrument}[{p.Key.Pool}]")
            .ToDictionary(g => g.Key, g => g.Sum(p => p.Value));

        public void Dispose() => _listener.Dispose();

        private void OnMeasurement(Instrument instrument, long value, ReadOnlySpan<KeyValuePair<string, object?>> tags, object? state)
        {
            int scope = ScopeOf(tags);
            string pool = string.Empty;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == MetricNames.PoolTag && tag.Value is string name)
                {
                    pool = name;
                }
            }

            var key = (instrument.Name, scope, pool);
            if (instrument.IsObservable)
            {
                // An observation is the value itself, not a change: only its peak means something over a run.
                _observedPeaks.AddOrUpdate(key, value, (_, peak) => Math.Max(peak, value));
            }
            else if (instrument is UpDownCounter<long>)
            {
                // The running value and its peak move together, so a peak is never read from a half-applied update.
                lock (_peakGate)
                {
                    long now = _sums.AddOrUpdate(key, value, (_, sum) => sum + value);
                    _peaks.AddOrUpdate(key, Math.Max(now, 0), (_, peak) => Math.Max(peak, now));
                }
            }
            else
            {
                _sums.AddOrUpdate(key, value, (_, sum) => sum + value);
            }
        }

        private static int ScopeOf(ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == MetricNames.ScopeTag && tag.Value is int id)
                {
                    return id;
                }
            }

            return 0;
        }
    }
}
