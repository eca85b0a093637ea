using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using Xunit;

namespace CountersRecorder.Tests
{
    /// <summary>A recorded CSV file read back, every line checked for the five-field layout.</summary>
    internal sealed class CsvRecording
    {
        private CsvRecording(string header, IReadOnlyList<CounterRow> rows)
        {
            Header = header;
            Rows = rows;
        }

        public string Header { get; }

        public IReadOnlyList<CounterRow> Rows { get; }

        public static CsvRecording Read(string path)
        {
            string[] lines = File.ReadAllLines(path);
            Assert.NotEmpty(lines);
            var rows = new List<CounterRow>();
            foreach (string line in lines.Skip(1))
            {
                // The recorder writes no quoted fields for these counters (tags are joined with ';'), so a plain split is exact.
                string[] fields = line.Split(',');
                Assert.True(fields.Length == 5, $"not five fields: {line}");
                Assert.True(DateTimeOffset.TryParseExact(fields[0], "yyyy-MM-ddTHH:mm:ss.fffzzz", CultureInfo.InvariantCulture, DateTimeStyles.None, out DateTimeOffset timestamp),
                    $"bad timestamp: {line}");
                Assert.True(fields[3] == "Metric" || fields[3] == "Rate", $"bad counter type: {line}");
                Assert.True(double.TryParse(fields[4], NumberStyles.Float, CultureInfo.InvariantCulture, out double value), $"bad value: {line}");
                rows.Add(new CounterRow(timestamp, fields[1], fields[2], fields[3], value));
            }

            return new CsvRecording(lines[0], rows);
        }

        public IReadOnlyList<CounterRow> Named(string provider, string counterName) =>
            Rows.Where(r => r.Provider == provider && r.CounterName == counterName).ToList();
    }
}
