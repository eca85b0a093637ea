using System;
using System.Collections.Generic;
using System.Diagnostics;
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

        public static void Run(int rounds)
        {
            Console.WriteLine($"Interleaved comparison, {rounds} rounds per framing, medians (ratios are per round, then the median).");
            foreach (string framing in new[] { Framings.Databricks, Framings.Linked64K })
            {
                var subject = new CloudFetchFileDecompression { Framing = framing };
                subject.Setup();
                try
                {
                    Measure(subject, framing, rounds);
                }
                finally
                {
                    subject.Cleanup();
                }
            }
        }

        private static void Measure(CloudFetchFileDecompression subject, string framing, int rounds)
        {
            var paths = new (string Name, Func<long> Run)[]
            {
                ("(a) tag 21", subject.Tag21),
                ("(b) tag 22", subject.Tag22),
                ("(c) overlay", subject.Overlay),
                ("(d) floor, managed codec", subject.FloorManaged),
                ("(d') floor, liblz4", subject.FloorNative),
            };
            int baseline = 1;
            int overlay = 2;
            int floor = 3;

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
                paths[p].Run();
                allocated[p] = GC.GetAllocatedBytesForCurrentThread() - before;
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
            Console.WriteLine($"### {framing}");
            Console.WriteLine();
            Console.WriteLine("| Path | Median | (b) / path | path / (d) floor | Allocated per file |");
            Console.WriteLine("|---|---:|---:|---:|---:|");
            for (int p = 0; p < paths.Length; p++)
            {
                double speedupOverBaseline = MedianRatio(milliseconds[baseline], milliseconds[p]);
                double fractionOfFloor = MedianRatio(milliseconds[floor], milliseconds[p]);
                Console.WriteLine($"| {paths[p].Name} | {Median(milliseconds[p]):F2} ms | {speedupOverBaseline:F2}x | {fractionOfFloor:F2}x | {allocated[p]:N0} B |");
            }

            Console.WriteLine();
            Console.WriteLine(
                $"Targets: (c) >= 1.5x (b): {Verdict(MedianRatio(milliseconds[baseline], milliseconds[overlay]) >= 1.5)}; " +
                $"(c) >= 0.9x (d): {Verdict(MedianRatio(milliseconds[floor], milliseconds[overlay]) >= 0.9)}.");
        }

        private static string Verdict(bool met) => met ? "met" : "MISSED";

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
