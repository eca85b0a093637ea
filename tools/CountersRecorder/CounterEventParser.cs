using System;
using System.Collections.Generic;
using System.Globalization;
using Microsoft.Diagnostics.Tracing;

namespace CountersRecorder
{
    /// <summary>
    /// Turns the EventPipe events of a counters session into CSV rows.
    /// </summary>
    /// <remarks>
    /// The events and payload fields relied on (from the runtime's EventCounter and MetricsEventSource definitions,
    /// and how dotnet-counters reads them in dotnet/diagnostics' TraceEventExtensions):
    /// <list type="bullet">
    /// <item>EventCounters (any EventCounter provider, e.g. System.Runtime): event <c>EventCounters</c>, whose single
    /// payload field <c>Payload</c> is a struct with <c>Name</c>, <c>DisplayName</c>, <c>DisplayUnits</c>,
    /// <c>CounterType</c> (<c>Mean</c>: value in <c>Mean</c>; <c>Sum</c>: value in <c>Increment</c>).</item>
    /// <item>System.Diagnostics.Metrics (MetricsEventSource), every value event starting with <c>sessionId</c>,
    /// <c>meterName</c>, <c>meterVersion</c>, <c>instrumentName</c>, <c>unit</c>, <c>tags</c> (<c>k=v,k=v</c>):
    /// <c>CounterRateValuePublished</c> (<c>rate</c> = the increment over the interval, as text; empty when an observable
    /// counter has no previous value), <c>UpDownCounterRateValuePublished</c> (version 1+, .NET 8+: <c>value</c> = the
    /// current total, as text), <c>GaugeValuePublished</c> (<c>lastValue</c>, text, empty if nothing was recorded),
    /// <c>HistogramValuePublished</c> (<c>quantiles</c>, <c>0.5=v;0.95=v;0.99=v</c>), and the problems
    /// <c>TimeSeriesLimitReached</c>, <c>HistogramLimitReached</c>, <c>Error</c>, <c>ObservableInstrumentCallbackError</c>
    /// (<c>errorMessage</c>) and <c>MultipleSessionsNotSupportedError</c> (<c>runningSessionId</c>).</item>
    /// </list>
    /// Values of other sessions (another tool listening to the same process) are ignored by their <c>sessionId</c>.
    /// Fields are read by name rather than position: later runtime versions appended fields (value, instrumentId).
    /// </remarks>
    internal sealed class CounterEventParser
    {
        public const string MetricsProvider = "System.Diagnostics.Metrics";

        private readonly string _sessionId;
        private readonly double _intervalSeconds;
        private readonly Action<string> _warn;
        private readonly HashSet<string> _warned = new HashSet<string>(StringComparer.Ordinal);

        public CounterEventParser(string sessionId, double intervalSeconds, Action<string> warn)
        {
            _sessionId = sessionId;
            _intervalSeconds = intervalSeconds;
            _warn = warn;
        }

        public IReadOnlyList<CounterRow> Parse(TraceEvent traceEvent)
        {
            var timestamp = new DateTimeOffset(traceEvent.TimeStamp);
            if (traceEvent.EventName == "EventCounters")
            {
                object? payload = traceEvent.PayloadValue(0);
                if (payload is IDictionary<string, object> outer)
                {
                    // TraceEvent presents the single struct field either as the struct itself or wrapped as {"Payload": struct}.
                    IDictionary<string, object> fields = outer.TryGetValue("Payload", out object? inner) && inner is IDictionary<string, object> wrapped ? wrapped : outer;
                    CounterRow? row = FromEventCounter(traceEvent.ProviderName, timestamp, fields, _intervalSeconds);
                    return row == null ? Array.Empty<CounterRow>() : new[] { row };
                }

                return Array.Empty<CounterRow>();
            }

            if (traceEvent.ProviderName == MetricsProvider)
            {
                return FromMetricsEvent(traceEvent.EventName, timestamp, name => traceEvent.PayloadByName(name));
            }

            return Array.Empty<CounterRow>();
        }

        /// <summary>One EventCounters payload; null if it is not a Mean or Sum counter.</summary>
        internal static CounterRow? FromEventCounter(string provider, DateTimeOffset timestamp, IDictionary<string, object> fields, double intervalSeconds)
        {
            string name = Text(fields, "DisplayName") is { Length: > 0 } display ? display : Text(fields, "Name");
            string units = Text(fields, "DisplayUnits");
            switch (Text(fields, "CounterType"))
            {
                case "Mean":
                    return new CounterRow(timestamp, provider, CounterNames.Mean(name, units), "Metric", Number(fields, "Mean"));
                case "Sum":
                    return new CounterRow(timestamp, provider, CounterNames.Increment(name, units, intervalSeconds), "Rate", Number(fields, "Increment"));
                default:
                    return null;
            }
        }

        /// <summary>One MetricsEventSource event, its fields looked up by name.</summary>
        internal IReadOnlyList<CounterRow> FromMetricsEvent(string eventName, DateTimeOffset timestamp, Func<string, object?> field)
        {
            string Get(string name) => field(name)?.ToString() ?? string.Empty;

            switch (eventName)
            {
                case "CounterRateValuePublished":
                case "UpDownCounterRateValuePublished":
                case "GaugeValuePublished":
                case "HistogramValuePublished":
                    break;
                case "MultipleSessionsNotSupportedError":
                    if (Get("runningSessionId") != _sessionId)
                    {
                        WarnOnce(eventName, "another metrics session already listens to this process (another dotnet-counters or " +
                            "dotnet-monitor?); the runtime sends meter values to one session only, so no meter rows will be recorded");
                    }

                    return Array.Empty<CounterRow>();
                case "TimeSeriesLimitReached":
                case "HistogramLimitReached":
                case "Error":
                case "ObservableInstrumentCallbackError":
                    if (Get("sessionId") == _sessionId)
                    {
                        WarnOnce(eventName, $"the child's metrics reported {eventName}" +
                            (Get("errorMessage") is { Length: > 0 } message ? ": " + message : string.Empty));
                    }

                    return Array.Empty<CounterRow>();
                default:
                    return Array.Empty<CounterRow>();
            }

            if (Get("sessionId") != _sessionId)
            {
                return Array.Empty<CounterRow>();
            }

            string meter = Get("meterName");
            string instrument = Get("instrumentName");
            string unit = Get("unit");
            string tags = Get("tags");
            switch (eventName)
            {
                case "CounterRateValuePublished":
                    // "rate" is the increment over the last interval (not per second), empty for an observable counter's first value.
                    return TryNumber(Get("rate"), out double increment)
                        ? new[] { new CounterRow(timestamp, meter, CounterNames.WithTags(CounterNames.Increment(instrument, unit, _intervalSeconds), tags), "Rate", increment) }
                        : Array.Empty<CounterRow>();
                case "UpDownCounterRateValuePublished":
                    // Like dotnet-counters, an up-down counter is shown by its current total ("value", .NET 8+), not its change.
                    if (TryNumber(Get("value"), out double total))
                    {
                        return new[] { new CounterRow(timestamp, meter, CounterNames.WithTags(CounterNames.Mean(instrument, unit), tags), "Metric", total) };
                    }

                    if (field("value") == null)
                    {
                        WarnOnce(eventName, "the child's runtime does not report up-down counter totals (needs .NET 8 or later); they are not recorded");
                    }

                    return Array.Empty<CounterRow>();
                case "GaugeValuePublished":
                    return TryNumber(Get("lastValue"), out double last)
                        ? new[] { new CounterRow(timestamp, meter, CounterNames.WithTags(CounterNames.Mean(instrument, unit), tags), "Metric", last) }
                        : Array.Empty<CounterRow>();
                default:
                    return Quantiles(timestamp, meter, CounterNames.Mean(instrument, unit), tags, Get("quantiles"));
            }
        }

        /// <summary>A histogram as one Metric row per quantile, tagged <c>Percentile=50</c> etc. like dotnet-counters.</summary>
        private static IReadOnlyList<CounterRow> Quantiles(DateTimeOffset timestamp, string meter, string name, string tags, string quantiles)
        {
            var rows = new List<CounterRow>();
            foreach (string part in quantiles.Split(';', StringSplitOptions.RemoveEmptyEntries))
            {
                string[] pair = part.Split('=');
                if (pair.Length == 2 && TryNumber(pair[0], out double quantile) && TryNumber(pair[1], out double value))
                {
                    string percentile = "Percentile=" + (quantile * 100).ToString("0.##", CultureInfo.InvariantCulture);
                    rows.Add(new CounterRow(timestamp, meter, CounterNames.WithTags(name, CounterNames.AddTag(tags, percentile)), "Metric", value));
                }
            }

            return rows;
        }

        private void WarnOnce(string key, string message)
        {
            lock (_warned)
            {
                if (!_warned.Add(key))
                {
                    return;
                }
            }

            _warn(message);
        }

        private static string Text(IDictionary<string, object> fields, string key) =>
            fields.TryGetValue(key, out object? value) ? value?.ToString() ?? string.Empty : string.Empty;

        private static double Number(IDictionary<string, object> fields, string key) =>
            fields.TryGetValue(key, out object? value) && value != null ? Convert.ToDouble(value, CultureInfo.InvariantCulture) : double.NaN;

        private static bool TryNumber(string text, out double value) =>
            double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value);
    }
}
