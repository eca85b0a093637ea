using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using Apache.Arrow.Adbc.Drivers.Databricks;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// Listens to the overlay's meter the way dotnet-counters would, and sums every measurement per scope tag.
    /// </summary>
    /// <remarks>
    /// The meter is process-wide and xunit runs test classes in parallel, so every query names the scope whose
    /// measurements it wants; measurements of other scopes are recorded too but never mixed in. Names come
    /// from <see cref="DatabricksMemoryMetricNames"/>, their one definition.
    /// </remarks>
    internal sealed class MemoryMetricsRecorder : IDisposable
    {
        private readonly MeterListener _listener = new MeterListener();
        private readonly object _lock = new object();
        private readonly Dictionary<Key, Totals> _totals = new Dictionary<Key, Totals>();

        public MemoryMetricsRecorder()
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == DatabricksMemoryMetricNames.MeterName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>(OnMeasurement);
            _listener.SetMeasurementEventCallback<double>((instrument, measurement, tags, state) => Record(instrument, 0, measurement, tags));
            _listener.Start();
        }

        /// <summary>Sum of the instrument's measurements for one scope; null pool or reason means any.</summary>
        public long Sum(int scope, string instrument, string? pool = null, string? reason = null) =>
            Aggregate(scope, instrument, pool, reason, t => t.Sum);

        /// <summary>Sum of a double instrument's measurements for one scope (a time in seconds).</summary>
        public double SumDouble(int scope, string instrument)
        {
            double result = 0;
            lock (_lock)
            {
                foreach (KeyValuePair<Key, Totals> entry in _totals)
                {
                    if (entry.Key.Scope == scope && entry.Key.Instrument == instrument)
                    {
                        result += entry.Value.DoubleSum;
                    }
                }
            }

            return result;
        }

        /// <summary>Number of measurements (calls to Add) for one scope.</summary>
        public long Count(int scope, string instrument, string? pool = null, string? reason = null) =>
            Aggregate(scope, instrument, pool, reason, t => t.Count);

        /// <summary>Number of negative measurements (e.g. a scope's release on the scopes counter).</summary>
        public long NegativeCount(int scope, string instrument, string? pool = null, string? reason = null) =>
            Aggregate(scope, instrument, pool, reason, t => t.Negative);

        /// <summary>Every pool/reason tag combination seen for one instrument of one scope (to check tagging).</summary>
        public IReadOnlyList<(string? Pool, string? Reason)> TagsSeen(int scope, string instrument)
        {
            var seen = new List<(string?, string?)>();
            lock (_lock)
            {
                foreach (Key key in _totals.Keys)
                {
                    if (key.Scope == scope && key.Instrument == instrument)
                    {
                        seen.Add((key.Pool, key.Reason));
                    }
                }
            }

            return seen;
        }

        public void Dispose() => _listener.Dispose();

        private long Aggregate(int scope, string instrument, string? pool, string? reason, Func<Totals, long> select)
        {
            long result = 0;
            lock (_lock)
            {
                foreach (KeyValuePair<Key, Totals> entry in _totals)
                {
                    Key key = entry.Key;
                    if (key.Scope == scope && key.Instrument == instrument &&
                        (pool == null || key.Pool == pool) && (reason == null || key.Reason == reason))
                    {
                        result += select(entry.Value);
                    }
                }
            }

            return result;
        }

        private void OnMeasurement(Instrument instrument, long measurement, ReadOnlySpan<KeyValuePair<string, object?>> tags, object? state) =>
            Record(instrument, measurement, 0, tags);

        private void Record(Instrument instrument, long measurement, double doubleMeasurement, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            int? scope = null;
            string? pool = null;
            string? reason = null;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                switch (tag.Key)
                {
                    case DatabricksMemoryMetricNames.ScopeTag:
                        scope = tag.Value as int?;
                        break;
                    case DatabricksMemoryMetricNames.PoolTag:
                        pool = tag.Value as string;
                        break;
                    case DatabricksMemoryMetricNames.ReasonTag:
                        reason = tag.Value as string;
                        break;
                }
            }

            if (scope == null)
            {
                return;
            }

            var key = new Key(scope.Value, instrument.Name, pool, reason);
            lock (_lock)
            {
                _totals.TryGetValue(key, out Totals totals);
                totals.Sum += measurement;
                totals.DoubleSum += doubleMeasurement;
                totals.Count++;
                if (measurement < 0)
                {
                    totals.Negative++;
                }

                _totals[key] = totals;
            }
        }

        private readonly record struct Key(int Scope, string Instrument, string? Pool, string? Reason);

        private struct Totals
        {
            public long Sum;
            public double DoubleSum;
            public long Count;
            public long Negative;
        }
    }
}
