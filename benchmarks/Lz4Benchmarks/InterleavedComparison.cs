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

        /// <summary>Issue 25's target on 4 MB frames without a checksum (issue 9's before it).</summary>
        private const double OverlayOverTag22Target = 1.4;

        /// <summary>Issue 9's targets, kept for the record.</summary>
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
            Console.WriteLine("Targets and comparisons:");
            foreach (string verdict in verdicts)
            {
                Console.WriteLine("- " + verdict);
            }

            Console.WriteLine($"Load average at end: {LoadAverage()}.");
        }

        /// <summary>A path: what runs untimed before it (the download's copy into a pooled buffer), and what is timed.</summary>
        private sealed record TimedPath(string Name, Action? Prepare, Func<long> Run);

        private static IEnumerable<string> Measure(CloudFetchFileDecompression subject, string framing, int rounds)
        {
            Action download = subject.PrepareDownload;
            var paths = new TimedPath[]
            {
                new("(a) tag 21: K4os LZ4Stream -> MemoryStream", null, subject.Tag21),
                new("(b) tag 22: K4os pooled reader -> RecyclableMemoryStream", null, subject.Tag22),
                new("(c) overlay: DecodeAsRead, 1 MiB reads, dispose", download, subject.Overlay),
                new($"(c-place) overlay: DecodeAsRead, {subject.WholeOutputReadSize / (1024.0 * 1024):F1} MiB reads (all in place)", download, subject.OverlayInPlace),
                new("(c-1.4) series 1.4: whole-file decode, MemoryStream, 1 MiB reads", download, subject.Series14WholeFile),
                new("(f) Arrow streaming over DecodeAsRead", download, subject.ArrowStreaming),
                new("(g) Arrow zero-copy over the whole decoded file", download, subject.ArrowZeroCopy),
                new("(d) floor: K4os LZ4Codec.Decode per block", null, subject.FloorK4os),
                new("(d+xxh) floor + XXH32 of the output", null, subject.FloorK4osWithChecksum),
                new("(d') floor: liblz4 per block", null, subject.FloorNative),
            };
            const int Tag22 = 1, Overlay = 2, InPlace = 3, Streaming = 5, ZeroCopy = 6, Floor = 7, ChecksumFloor = 8;

            var milliseconds = new double[paths.Length][];
            var allocated = new long[paths.Length];
            for (int p = 0; p < paths.Length; p++)
            {
                milliseconds[p] = new double[rounds];
                for (int i = 0; i < WarmupRounds; i++)
                {
                    paths[p].Prepare?.Invoke();
                    paths[p].Run();
                }

                long total = 0;
                for (int i = 0; i < AllocationSamples; i++)
                {
                    paths[p].Prepare?.Invoke();
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    paths[p].Run();
                    total += GC.GetAllocatedBytesForCurrentThread() - before;
                }

                allocated[p] = total / AllocationSamples;
            }

            for (int round = 0; round < rounds; round++)
            {
                for (int k = 0; k < paths.Length; k++)
                {
                    int p = (round + k) % paths.Length;
                    paths[p].Prepare?.Invoke();
                    long start = Stopwatch.GetTimestamp();
                    paths[p].Run();
                    milliseconds[p][round] = (Stopwatch.GetTimestamp() - start) * 1000.0 / Stopwatch.Frequency;
                }
            }

            (HeldBytesProbe streamingHeld, HeldBytesProbe zeroCopyHeld) = subject.MeasureHeldBytes();

            Console.WriteLine();
            Console.WriteLine($"### {framing} ({subject.Input.Compressed.Length / 1e6:F1} MB -> {subject.Input.Original.Length / 1e6:F1} MB, {subject.BatchCount} record batches)");
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

            Console.WriteLine();
            Console.WriteLine($"LZ4-coded bytes decoded in place (the rest through the scratch block; stored blocks, {subject.Input.StoredBytes:N0} B, are copied): (c) {subject.OverlayInPlaceShare:P1}, (c-place) 100%, (f) {subject.ArrowStreamingInPlaceShare:P1}.");
            Console.WriteLine(
                $"Held by one reader, pooled arrays in use (measured): (f) streaming {streamingHeld.PeakBytes:N0} B at most, of which the batch body {streamingHeld.LargestBatchBodyBytes:N0} B; " +
                $"(g) zero-copy {zeroCopyHeld.PeakBytes:N0} B at most (compressed + decoded file, at the end of the decode), {zeroCopyHeld.PeakWhileBatchLivesBytes:N0} B while any batch lives (the decoded file). " +
                $"Compressed file {subject.Input.Compressed.Length:N0} B, decoded {subject.Input.Original.Length:N0} B.");

            double overTag22 = MedianRatio(milliseconds[Tag22], milliseconds[Overlay]);
            double inPlaceOverTag22 = MedianRatio(milliseconds[Tag22], milliseconds[InPlace]);
            double zeroCopyOverStreaming = MedianRatio(milliseconds[Streaming], milliseconds[ZeroCopy]);
            double ofFloor = MedianRatio(milliseconds[Floor], milliseconds[Overlay]);
            double ofChecksumFloor = MedianRatio(milliseconds[ChecksumFloor], milliseconds[Overlay]);
            if (framing == Framings.Databricks)
            {
                yield return $"{framing}: (c) >= {OverlayOverTag22Target}x (b) [issue 25]: {Verdict(overTag22 >= OverlayOverTag22Target)} ({overTag22:F2}x)";
            }
            else
            {
                yield return $"{framing}: (c) / (b) = {overTag22:F2}x";
            }

            yield return $"{framing}: (c-place) / (b) = {inPlaceOverTag22:F2}x";
            yield return
                $"{framing}: (g) zero-copy runs at {zeroCopyOverStreaming:F2}x the speed of (f) streaming " +
                $"({(zeroCopyOverStreaming > 1 ? "faster" : "not faster")}), holding {zeroCopyHeld.PeakBytes:N0} B against {streamingHeld.PeakBytes:N0} B";
            switch (framing)
            {
                case Framings.Databricks:
                    yield return $"{framing}: (c) >= {OverlayOfFloorTarget}x (d) [issue 9]: {Verdict(ofFloor >= OverlayOfFloorTarget)} ({ofFloor:F2}x)";
                    break;
                case Framings.DatabricksChecksummed:
                    yield return $"{framing}: (c) >= {OverlayOfChecksumFloorTarget}x (d+xxh) [issue 9]: {Verdict(ofChecksumFloor >= OverlayOfChecksumFloorTarget)} ({ofChecksumFloor:F2}x)";
                    break;
            }

            yield return $"{framing}: (c) allocates < {AllocationTargetBytes} B per file [issue 9]: {Verdict(allocated[Overlay] < AllocationTargetBytes)} ({allocated[Overlay]:N0} B)";
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
