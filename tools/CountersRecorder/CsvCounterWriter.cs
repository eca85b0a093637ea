using System;
using System.Globalization;
using System.IO;
using System.Text;

namespace CountersRecorder
{
    /// <summary>One CSV row: what dotnet-counters writes for one counter value.</summary>
    /// <param name="CounterType">"Metric" (a mean, gauge or up-down value) or "Rate" (a counter's increment over the interval).</param>
    internal sealed record CounterRow(DateTimeOffset Timestamp, string Provider, string CounterName, string CounterType, double Value);

    /// <summary>
    /// Writes rows in dotnet-counters' CSV layout (<c>Timestamp,Provider,Counter Name,Counter Type,Mean/Increment</c>),
    /// flushing each row so that a crash or a kill of the recorder still leaves every row received so far on disk.
    /// </summary>
    /// <remarks>
    /// The one deliberate difference from dotnet-counters: the timestamp is ISO 8601 with milliseconds and the UTC
    /// offset (dotnet-counters writes <c>DateTime.ToString()</c>, which depends on the culture and drops sub-seconds),
    /// so scripts can parse and order it. Fields are quoted only if they contain a comma, a quote or a line break
    /// (dotnet-counters never quotes; it turns the commas between tags into semicolons, and so does
    /// <see cref="CounterNames"/>).
    /// </remarks>
    internal sealed class CsvCounterWriter : IDisposable
    {
        public const string Header = "Timestamp,Provider,Counter Name,Counter Type,Mean/Increment";

        private readonly object _gate = new object();
        private readonly StreamWriter _writer;
        private bool _disposed;

        public CsvCounterWriter(string path)
        {
            string full = Path.GetFullPath(path);
            Directory.CreateDirectory(Path.GetDirectoryName(full)!);
            _writer = new StreamWriter(full, append: false, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false)) { NewLine = "\n" };
            _writer.WriteLine(Header);
            _writer.Flush();
        }

        public long Rows { get; private set; }

        public void Write(CounterRow row)
        {
            var line = new StringBuilder(128)
                .Append(row.Timestamp.ToString("yyyy-MM-ddTHH:mm:ss.fffzzz", CultureInfo.InvariantCulture)).Append(',')
                .Append(Field(row.Provider)).Append(',')
                .Append(Field(row.CounterName)).Append(',')
                .Append(row.CounterType).Append(',')
                .Append(row.Value.ToString("R", CultureInfo.InvariantCulture));
            lock (_gate)
            {
                if (_disposed)
                {
                    // Rows arriving after the recording was closed (a late event while draining) are dropped.
                    return;
                }

                _writer.WriteLine(line.ToString());
                _writer.Flush();
                Rows++;
            }
        }

        public void Dispose()
        {
            lock (_gate)
            {
                if (!_disposed)
                {
                    _disposed = true;
                    _writer.Dispose();
                }
            }
        }

        private static string Field(string value) =>
            value.AsSpan().IndexOfAny(",\"\r\n") < 0 ? value : "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
    }
}
