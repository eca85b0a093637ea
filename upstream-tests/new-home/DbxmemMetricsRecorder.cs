/*
* Copyright (c) 2025 ADBC Drivers Contributors
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/


using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Threading;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// Listens to the series' meter as dotnet-counters would (<see cref="MeterListener"/>) and sums every measurement
    /// per scope tag, so a test can check that what the meter says matches the pools' own accounting.
    /// </summary>
    /// <remarks>
    /// The meter is process-wide and xunit runs test classes in parallel, so every query names the scope whose
    /// measurements it wants; other scopes' measurements are recorded too but never mixed in. The names come from
    /// <see cref="DatabricksMemoryMetricNames"/>, their one definition.
    /// </remarks>
    internal sealed class DbxmemMetricsRecorder : IDisposable
    {
        private static int s_lastTestScopeId;

        private readonly MeterListener _listener = new MeterListener();
        private readonly object _lock = new object();
        private readonly Dictionary<(int Scope, string Instrument, string? Pool, string? Reason), Totals> _totals =
            new Dictionary<(int, string, string?, string?), Totals>();

        public DbxmemMetricsRecorder()
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == DatabricksMemoryMetricNames.MeterName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((instrument, measurement, tags, state) => Record(instrument, measurement, 0, tags));
            _listener.SetMeasurementEventCallback<double>((instrument, measurement, tags, state) => Record(instrument, 0, measurement, tags));
            _listener.Start();
        }

        /// <summary>
        /// A scope tag for a pool a test builds directly: negative, so it never collides with a real scope's id (those
        /// count up from 1), and new each time, so tests running in parallel never see each other's measurements.
        /// </summary>
        public static int NextTestScopeId() => Interlocked.Decrement(ref s_lastTestScopeId);

        /// <summary>Sum of an instrument's measurements for one scope; a null pool or reason means any.</summary>
        public long Sum(int scope, string instrument, string? pool = null, string? reason = null) =>
            Aggregate(scope, instrument, pool, reason, totals => totals.Sum);

        /// <summary>Sum of a double instrument's measurements for one scope (a time in seconds).</summary>
        public double SumDouble(int scope, string instrument)
        {
            double result = 0;
            lock (_lock)
            {
                foreach (KeyValuePair<(int Scope, string Instrument, string? Pool, string? Reason), Totals> entry in _totals)
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
            Aggregate(scope, instrument, pool, reason, totals => totals.Count);

        /// <summary>Number of negative measurements (a scope's release on the live-scopes counter).</summary>
        public long NegativeCount(int scope, string instrument, string? pool = null, string? reason = null) =>
            Aggregate(scope, instrument, pool, reason, totals => totals.Negative);

        /// <summary>Every pool/reason tag pair seen for one instrument of one scope.</summary>
        public IReadOnlyList<(string? Pool, string? Reason)> TagsSeen(int scope, string instrument)
        {
            List<(string?, string?)> seen = new List<(string?, string?)>();
            lock (_lock)
            {
                foreach ((int Scope, string Instrument, string? Pool, string? Reason) key in _totals.Keys)
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
                foreach (KeyValuePair<(int Scope, string Instrument, string? Pool, string? Reason), Totals> entry in _totals)
                {
                    if (entry.Key.Scope == scope && entry.Key.Instrument == instrument &&
                        (pool == null || entry.Key.Pool == pool) && (reason == null || entry.Key.Reason == reason))
                    {
                        result += select(entry.Value);
                    }
                }
            }

            return result;
        }

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

            (int, string, string?, string?) key = (scope.Value, instrument.Name, pool, reason);
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

        private struct Totals
        {
            public long Sum;
            public double DoubleSum;
            public long Count;
            public long Negative;
        }
    }
}
