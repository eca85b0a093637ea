using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;

namespace Lz4Benchmarks
{
    /// <summary>
    /// The same paths as <see cref="CloudFetchFileDecompression"/>, run round-robin: every round times each path once,
    /// in a rotating order, and the ratios are taken within a round before the median over rounds. On a shared,
    /// noisy machine a burst of load then slows every path of a round alike instead of skewing whichever path
    /// BenchmarkDotNet happened to be measuring at the time.
    /// </summary>
    internal static class InterleavedComparison
    {
        private const int WarmupRounds = 5;

        /// <summary>Allocation is averaged over several files so a one-off (a pool's first rent of a size) shows as such.</summary>
        private const int AllocationSamples = 10;

        /// <summary>Issue 9's targets, all within one run.</summary>
        private const double OverlayOverTag22Target = 1.4;
        private const double OverlayOfFloorTarget = 0.9;
        private const double OverlayOfChecksumFloorTarget = 0.95;
        private const long AllocationTargetBytes = 1024;

        public static void Run(int rounds)
        {
            Console.WriteLine($"Interleaved comparison, {rounds} rounds per framing, medians (ratios are per round, then the median).");
            Console.WriteLine($"Load average at start: {LoadAverage()}; {Environment.ProcessorCount} cores; .NET {Environment.Version}.");
            var verdicts = new List<string>();
            foreach (string framing in Framings.All)
            {
                var subject = new CloudFetchFileDecompression { Framing = framing };
                subject.Setup();
                try
                {
                    verdicts.AddRange(Measure(subject, framing, rounds));
                }
                finally
                {
                    subject.Cleanup();
                }
            }

            Console.WriteLine();
            Console.WriteLine("Targets:");
            foreach (string verdict in verdicts)
            {
                Console.WriteLine("- " + verdict);
            }

            Console.WriteLine($"Load average at end: {LoadAverage()}.");
        }

        private static IEnumerable<string> Measure(CloudFetchFileDecompression subject, string framing, int rounds)
        {
            var paths = new (string Name, Func<long> Run)[]
            {
                ("(a) tag 21: K4os LZ4Stream -> MemoryStream", subject.Tag21),
                ("(b) tag 22: K4os pooled reader -> RecyclableMemoryStream", subject.Tag22),
                ("(c) overlay: DecompressToStream, read, dispose", subject.Overlay),
                ("(c0) overlay, stream not read", subject.OverlayDecodeOnly),
                ("(d) floor: K4os LZ4Codec.Decode per block", subject.FloorK4os),
                ("(d+xxh) floor + XXH32 of the output", subject.FloorK4osWithChecksum),
                ("(d') floor: liblz4 per block", subject.FloorNative),
            };
            const int Tag22 = 1, Overlay = 2, Floor = 4, ChecksumFloor = 5;

            var milliseconds = new double[paths.Length][];
            var allocated = new long[paths.Length];
            for (int p = 0; p < paths.Length; p++)
            {
                milliseconds[p] = new double[rounds];
                for (int i = 0; i < WarmupRounds; i++)
                {
                    paths[p].Run();
                }

                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < AllocationSamples; i++)
                {
                    paths[p].Run();
                }

                allocated[p] = (GC.GetAllocatedBytesForCurrentThread() - before) / AllocationSamples;
            }

            for (int round = 0; round < rounds; round++)
            {
                for (int k = 0; k < paths.Length; k++)
                {
                    int p = (round + k) % paths.Length;
                    long start = Stopwatch.GetTimestamp();
                    paths[p].Run();
                    milliseconds[p][round] = (Stopwatch.GetTimestamp() - start) * 1000.0 / Stopwatch.Frequency;
                }
            }

            Console.WriteLine();
            Console.WriteLine($"### {framing} ({subject.Input.Compressed.Length / 1e6:F1} MB -> {subject.Input.Original.Length / 1e6:F1} MB)");
            Console.WriteLine();
            Console.WriteLine("| Path | Median | (b) / path | path vs (d) | path vs (d+xxh) | Allocated per file |");
            Console.WriteLine("|---|---:|---:|---:|---:|---:|");
            for (int p = 0; p < paths.Length; p++)
            {
                Console.WriteLine(
                    $"| {paths[p].Name} | {Median(milliseconds[p]):F2} ms | {MedianRatio(milliseconds[Tag22], milliseconds[p]):F2}x | " +
                    $"{MedianRatio(milliseconds[Floor], milliseconds[p]):F2}x | {MedianRatio(milliseconds[ChecksumFloor], milliseconds[p]):F2}x | " +
                    $"{FormatBytes(allocated[p])} |");
            }

            double overTag22 = MedianRatio(milliseconds[Tag22], milliseconds[Overlay]);
            double ofFloor = MedianRatio(milliseconds[Floor], milliseconds[Overlay]);
            double ofChecksumFloor = MedianRatio(milliseconds[ChecksumFloor], milliseconds[Overlay]);
            switch (framing)
            {
                case Framings.Databricks:
                    yield return $"{framing}: (c) >= {OverlayOverTag22Target}x (b): {Verdict(overTag22 >= OverlayOverTag22Target)} ({overTag22:F2}x)";
                    yield return $"{framing}: (c) >= {OverlayOfFloorTarget}x (d): {Verdict(ofFloor >= OverlayOfFloorTarget)} ({ofFloor:F2}x)";
                    break;
                case Framings.DatabricksChecksummed:
                    yield return $"{framing}: (c) >= {OverlayOfChecksumFloorTarget}x (d+xxh): {Verdict(ofChecksumFloor >= OverlayOfChecksumFloorTarget)} ({ofChecksumFloor:F2}x)";
                    break;
            }

            yield return $"{framing}: (c) allocates < {AllocationTargetBytes} B per file: {Verdict(allocated[Overlay] < AllocationTargetBytes)} ({allocated[Overlay]:N0} B)";
        }

        private static string Verdict(bool met) => met ? "met" : "MISSED";

        private static string FormatBytes(long bytes) =>
            bytes >= 1_000_000 ? $"{bytes / 1e6:F1} MB" : bytes >= 10_000 ? $"{bytes / 1e3:F0} KB" : $"{bytes:N0} B";

        private static string LoadAverage() =>
            File.Exists("/proc/loadavg") ? string.Join(" ", File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "unknown";

        /// <summary>The median over rounds of numerator / denominator, each ratio taken within its own round.</summary>
        private static double MedianRatio(double[] numerator, double[] denominator) =>
            Median(numerator.Zip(denominator, (n, d) => n / d));

        private static double Median(IEnumerable<double> values)
        {
            double[] sorted = values.OrderBy(v => v).ToArray();
            int middle = sorted.Length / 2;
            return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
        }
    }
}
