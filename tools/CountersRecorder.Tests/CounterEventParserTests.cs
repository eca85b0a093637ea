using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Xunit;

namespace CountersRecorder.Tests
{
    /// <summary>The event-to-row rules on hand-made payloads (the end-to-end tests cover real events).</summary>
    public sealed class CounterEventParserTests
    {
        private const string Session = "our-session";
        private static readonly DateTimeOffset At = new DateTimeOffset(2025, 1, 2, 3, 4, 5, 678, TimeSpan.Zero);

        private readonly List<string> _warnings = new List<string>();

        [Fact]
        public void An_event_counter_mean_is_a_metric_named_with_its_units()
        {
            CounterRow? row = CounterEventParser.FromEventCounter("System.Runtime", At, new Dictionary<string, object>
            {
                ["Name"] = "gc-heap-size", ["DisplayName"] = "GC Heap Size", ["DisplayUnits"] = "MB", ["CounterType"] = "Mean", ["Mean"] = 12.5,
            }, 1);

            Assert.Equal(new CounterRow(At, "System.Runtime", "GC Heap Size (MB)", "Metric", 12.5), row);
        }

        [Fact]
        public void An_event_counter_sum_is_a_rate_per_interval_defaulting_to_count()
        {
            CounterRow? row = CounterEventParser.FromEventCounter("System.Runtime", At, new Dictionary<string, object>
            {
                ["Name"] = "gen-0-gc-count", ["DisplayName"] = "Gen 0 GC Count", ["DisplayUnits"] = "", ["CounterType"] = "Sum", ["Increment"] = 3.0,
            }, 2);

            Assert.Equal(new CounterRow(At, "System.Runtime", "Gen 0 GC Count (Count / 2 sec)", "Rate", 3), row);
        }

        [Fact]
        public void Meter_values_carry_their_tags_with_semicolons()
        {
            IReadOnlyList<CounterRow> rows = Parser().FromMetricsEvent("UpDownCounterRateValuePublished", At, Fields(new()
            {
                ["instrumentName"] = "adbc.databricks.memory.in_use", ["unit"] = "By", ["tags"] = "pool=lz4_buffers,scope=1", ["rate"] = "-4096", ["value"] = "8192",
            }));

            CounterRow row = Assert.Single(rows);
            Assert.Equal(new CounterRow(At, "M", "adbc.databricks.memory.in_use (By)[pool=lz4_buffers;scope=1]", "Metric", 8192), row);
            Assert.Equal(("adbc.databricks.memory.in_use (By)", "pool=lz4_buffers;scope=1"), CounterNames.Split(row.CounterName));
        }

        [Fact]
        public void A_counter_rate_is_its_increment_and_an_empty_rate_is_skipped()
        {
            CounterEventParser parser = Parser();

            CounterRow row = Assert.Single(parser.FromMetricsEvent("CounterRateValuePublished", At, Fields(new() { ["instrumentName"] = "c", ["rate"] = "250", ["value"] = "1000" })));
            Assert.Equal(new CounterRow(At, "M", "c (Count / 1 sec)", "Rate", 250), row);
            Assert.Empty(parser.FromMetricsEvent("CounterRateValuePublished", At, Fields(new() { ["instrumentName"] = "c", ["rate"] = "", ["value"] = "1000" })));
        }

        [Fact]
        public void Values_of_another_session_are_ignored()
        {
            Assert.Empty(Parser().FromMetricsEvent("GaugeValuePublished", At, Fields(new() { ["sessionId"] = "someone-else", ["instrumentName"] = "g", ["lastValue"] = "1" })));
        }

        [Fact]
        public void A_histogram_is_one_metric_per_percentile()
        {
            IReadOnlyList<CounterRow> rows = Parser().FromMetricsEvent("HistogramValuePublished", At, Fields(new()
            {
                ["instrumentName"] = "h", ["unit"] = "ms", ["tags"] = "route=a", ["quantiles"] = "0.5=1;0.95=2.5;0.99=3",
            }));

            Assert.Equal(new[] { "h (ms)[route=a;Percentile=50]", "h (ms)[route=a;Percentile=95]", "h (ms)[route=a;Percentile=99]" },
                rows.Select(r => r.CounterName));
            Assert.Equal(2.5, rows[1].Value);
        }

        [Fact]
        public void Problems_reported_by_the_child_are_warned_about_once()
        {
            CounterEventParser parser = Parser();

            parser.FromMetricsEvent("TimeSeriesLimitReached", At, Fields(new()));
            parser.FromMetricsEvent("TimeSeriesLimitReached", At, Fields(new()));
            parser.FromMetricsEvent("MultipleSessionsNotSupportedError", At, name => name == "runningSessionId" ? "other" : null);

            Assert.Equal(2, _warnings.Count);
            Assert.Contains("TimeSeriesLimitReached", _warnings[0], StringComparison.Ordinal);
            Assert.Contains("another metrics session", _warnings[1], StringComparison.Ordinal);
        }

        [Fact]
        public void The_csv_writer_quotes_only_what_needs_it()
        {
            string path = Path.Combine(Path.GetTempPath(), "counters-recorder-writer-" + Guid.NewGuid().ToString("N") + ".csv");
            try
            {
                using (var writer = new CsvCounterWriter(path))
                {
                    writer.Write(new CounterRow(At, "P", "plain[a=1;b=2]", "Metric", 0.5));
                    writer.Write(new CounterRow(At, "P", "odd, \"name\"", "Rate", -2));
                    Assert.Equal(2, writer.Rows);
                }

                Assert.Equal(new[]
                {
                    CsvCounterWriter.Header,
                    "2025-01-02T03:04:05.678+00:00,P,plain[a=1;b=2],Metric,0.5",
                    "2025-01-02T03:04:05.678+00:00,P,\"odd, \"\"name\"\"\",Rate,-2",
                }, File.ReadAllLines(path));
            }
            finally
            {
                File.Delete(path);
            }
        }

        private CounterEventParser Parser() => new CounterEventParser(Session, 1, _warnings.Add);

        /// <summary>A payload lookup with this session's id and meter "M" unless the test says otherwise.</summary>
        private static Func<string, object?> Fields(Dictionary<string, string> fields)
        {
            fields.TryAdd("sessionId", Session);
            fields.TryAdd("meterName", "M");
            return name => fields.TryGetValue(name, out string? value) ? value : null;
        }
    }
}
