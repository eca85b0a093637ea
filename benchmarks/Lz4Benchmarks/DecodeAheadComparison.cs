using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Adbc.Drivers.Databricks;
using Apache.Arrow.Ipc;
using MockDatabricks.Protocol.Data;

namespace Lz4Benchmarks
{
    /// <summary>
    /// Issue 34: does the decode overlap again with a consumer's per-value work when the next LZ4 block is decoded
    /// ahead? The patched driver's read of CloudFetch files (Apache.Arrow's stream reader over
    /// <see cref="ScopedLz4Decompressor.DecodeAsRead"/>, bodies from the scope's batch allocator) by a consumer that
    /// converts every value of every batch to its .NET value (a boxed object, a string per string value: what a
    /// host such as Power BI's mashup engine does with each value), decode-ahead off (series 1.5.0: the decode runs on
    /// the consumer's thread) and on, interleaved round by round.
    /// </summary>
    /// <remarks>
    /// Each round times, in rotating order: <c>off</c> and <c>on</c> (files decoded and every value converted),
    /// <c>decode only</c> (the same read, decode-ahead off, no value converted) and <c>convert only</c> (every value of
    /// the same batches converted, the batches decoded before the clock starts). Off should take about decode + convert,
    /// and on, where the overlap works, about the larger of the two; the share of the decode that on hides is
    /// (off - on) / decode only. With <c>--contended</c> another process (<c>yes</c>) keeps one core busy throughout, as a
    /// host's other evaluations do. The downloads' copies into pooled arrays are made before the clock starts.
    /// </remarks>
    internal static class DecodeAheadComparison
    {
        private const int FilesPerRound = 4;
        private const int WarmUpRounds = 2;

        public static void Run(int rounds, bool contended)
        {
            BenchmarkInput input = BenchmarkInput.Create(Framings.Databricks);
            IReadOnlyList<SqlField> fields = new DatasetGenerator(BenchmarkInput.Spec).Fields;
            using DatabricksMemoryLease off = DatabricksMemoryScope.Create(new Dictionary<string, string> { [DatabricksMemoryOptions.DecodeAheadKey] = "false" });
            using DatabricksMemoryLease on = DatabricksMemoryScope.Create(new Dictionary<string, string> { [DatabricksMemoryOptions.DecodeAheadKey] = "true" });
            List<RecordBatch> decoded = DecodeOnce(input);
            long values = decoded.Sum(batch => (long)batch.Length * batch.ColumnCount) * FilesPerRound;
            Console.WriteLine($"Decode-ahead comparison: {FilesPerRound} files of {input.Original.Length / 1e6:F1} MB ({input.Compressed.Length / 1e6:F1} MB compressed, {input.Framing}) per timing, {values:N0} values converted, {rounds} rounds after {WarmUpRounds} warm-up rounds, medians.");
            Console.WriteLine($"Load average at start: {LoadAverage()}; {Environment.ProcessorCount} cores; .NET {Environment.Version}; {(contended ? "one core kept busy by another process (yes > /dev/null)" : "no added load")}.");

            using Process? busy = contended ? StartBusyProcess() : null;
            try
            {
                var paths = new (string Name, Func<double> Time)[]
                {
                    ("off (1.5.0)", () => TimeRead(off.Scope, input, fields, convert: true)),
                    ("on", () => TimeRead(on.Scope, input, fields, convert: true)),
                    ("decode only", () => TimeRead(off.Scope, input, fields, convert: false)),
                    ("convert only", () => TimeConvert(decoded, fields)),
                };
                var milliseconds = paths.Select(_ => new List<double>()).ToArray();
                for (int round = -WarmUpRounds; round < rounds; round++)
                {
                    for (int i = 0; i < paths.Length; i++)
                    {
                        int p = (Math.Max(round, 0) + i) % paths.Length;
                        double elapsed = paths[p].Time();
                        if (round >= 0)
                        {
                            milliseconds[p].Add(elapsed);
                        }
                    }
                }

                Console.WriteLine();
                for (int p = 0; p < paths.Length; p++)
                {
                    Console.WriteLine($"{paths[p].Name,-14} median {Median(milliseconds[p]),8:F1} ms");
                }

                double[] ratios = milliseconds[1].Zip(milliseconds[0], (a, b) => a / b).ToArray();
                double[] hidden = Enumerable.Range(0, rounds).Select(r => (milliseconds[0][r] - milliseconds[1][r]) / milliseconds[2][r]).ToArray();
                Console.WriteLine($"on / off (per round, median)          {Median(ratios):F3}");
                Console.WriteLine($"decode hidden, (off - on) / decode    {Median(hidden):P0}");
                Console.WriteLine($"off / (decode only + convert only)    {Median(milliseconds[0]) / (Median(milliseconds[2]) + Median(milliseconds[3])):F3}");
            }
            finally
            {
                if (busy != null)
                {
                    busy.Kill();
                    busy.WaitForExit();
                }

                foreach (RecordBatch batch in decoded)
                {
                    batch.Dispose();
                }
            }

            Console.WriteLine($"Load average at end: {LoadAverage()}.");
        }

        /// <summary>Reads <see cref="FilesPerRound"/> copies of the file as the patched driver does; the clock starts once they are downloaded.</summary>
        private static double TimeRead(DatabricksMemoryScope scope, BenchmarkInput input, IReadOnlyList<SqlField> fields, bool convert)
        {
            PooledBuffer[] downloads = Enumerable.Range(0, FilesPerRound).Select(_ => OverlayPaths.Download(scope, input.Compressed)).ToArray();
            long start = Stopwatch.GetTimestamp();
            long rows = 0;
            foreach (PooledBuffer download in downloads)
            {
                using var reader = new ArrowStreamReader(scope.Lz4.DecodeAsRead(download, "benchmark file"), scope.BatchAllocator);
                while (reader.ReadNextRecordBatch() is RecordBatch batch)
                {
                    using (batch)
                    {
                        rows += convert ? ConvertEveryValue(batch, fields) : batch.Length;
                    }
                }
            }

            double elapsed = Elapsed(start);
            Expect(rows == BenchmarkInput.Spec.Rows * FilesPerRound, $"read {rows} rows");
            Expect(scope.BufferPool.InUseBytes == 0 && scope.Budget.InUse == 0, "a read left memory in use");
            return elapsed;
        }

        private static double TimeConvert(List<RecordBatch> batches, IReadOnlyList<SqlField> fields)
        {
            long start = Stopwatch.GetTimestamp();
            long rows = 0;
            for (int file = 0; file < FilesPerRound; file++)
            {
                foreach (RecordBatch batch in batches)
                {
                    rows += ConvertEveryValue(batch, fields);
                }
            }

            double elapsed = Elapsed(start);
            Expect(rows == BenchmarkInput.Spec.Rows * FilesPerRound, $"converted {rows} rows");
            return elapsed;
        }

        /// <summary>Every value of the batch as its .NET value (boxed; strings made), folded so that none is optimised away; returns the rows.</summary>
        private static int ConvertEveryValue(RecordBatch batch, IReadOnlyList<SqlField> fields)
        {
            int fold = 0;
            for (int column = 0; column < batch.ColumnCount; column++)
            {
                IArrowArray array = batch.Column(column);
                SqlType type = fields[column].Type;
                for (int row = 0; row < batch.Length; row++)
                {
                    object? value = ArrowValues.Read(array, row, type);
                    fold += value?.GetHashCode() ?? 0;
                }
            }

            Expect(fold != 0x5EED, "(never: keeps the fold alive)");
            return batch.Length;
        }

        /// <summary>The file's batches, decoded into batches that own their memory (for convert only).</summary>
        private static List<RecordBatch> DecodeOnce(BenchmarkInput input)
        {
            using var reader = new ArrowStreamReader(new MemoryStream(input.Original));
            var batches = new List<RecordBatch>();
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                batches.Add(batch);
            }

            return batches;
        }

        /// <summary>Another process that keeps one core busy: <c>yes</c> writing to /dev/null.</summary>
        private static Process StartBusyProcess() =>
            Process.Start(new ProcessStartInfo("sh", new[] { "-c", "exec yes > /dev/null" }) { UseShellExecute = false })
            ?? throw new InvalidOperationException("could not start the busy process");

        private static void Expect(bool condition, string what)
        {
            if (!condition)
            {
                throw new InvalidOperationException("decode-ahead comparison: " + what);
            }
        }

        private static double Elapsed(long start) => (Stopwatch.GetTimestamp() - start) * 1000.0 / Stopwatch.Frequency;

        private static double Median(IEnumerable<double> values)
        {
            double[] sorted = values.OrderBy(v => v).ToArray();
            return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
        }

        private static string LoadAverage() =>
            File.Exists("/proc/loadavg") ? string.Join(" ", File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "unknown";
    }
}
