using System.Runtime.CompilerServices;

namespace MemoryProbe
{
    /// <summary>
    /// A long-lived host: <c>--queries</c> queries one after another on one database kept open (a connection per query, as
    /// refreshes open them), then <c>--idle-seconds</c> with nothing running and the database still open. Samples the GC
    /// heap and the working set before the first query, after each query (no collection forced: what the host sees),
    /// at the end of the idle time, and after one full collection then (the next Gen2 a host would run: an idle process
    /// allocates nothing, so nothing collects what an idle trim let go until then). With --queries 4 and no idle time it
    /// is the sequential baseline of the concurrent runs.
    /// </summary>
    internal sealed class SequentialWorkload(ProbeOptions options) : IHostWorkload
    {
        public IEnumerable<string> Statements => Enumerable.Range(0, Math.Min(options.Queries, HostWorkload.DistinctDatasets))
            .Select(q => ProbeOptions.Statement(options.Rows, HostWorkload.SeedOf(options, q)));

        public long ExpectedRows => options.Rows * options.Queries;

        public Task<WorkloadRun> RunAsync(OverlayMetricsListener overlay)
        {
            var samples = new List<Sample>(options.Queries + 4);
            WorkloadQuery[] queries = RunAll(overlay, samples, out long peakWorkingSet);
            (long rows, long values, List<string> errors) = WorkloadQuery.Totals(queries);
            var details = new Dictionary<string, object?>
            {
                ["queries"] = options.Queries,
                ["idleSeconds"] = options.IdleSeconds,
                ["beforeFirstQuery"] = samples.Single(s => s.Point == "before first query"),
                ["perQuery"] = samples.Where(s => s.Query > 0),
                ["afterIdle"] = samples.SingleOrDefault(s => s.Point == "after idle"),
                ["afterIdleAndFullCollection"] = samples.SingleOrDefault(s => s.Point == "after idle and a full collection"),
                ["afterIdleAndAggressiveCollection"] = samples.SingleOrDefault(s => s.Point == "after idle and an aggressive collection"),
                ["querySeconds"] = queries.Select(q => q.Seconds),
            };
            Sample first = samples.First(s => s.Query == 1);
            Sample last = samples.Last(s => s.Query > 0);
            string summary = $"{options.Queries} queries one after another, working set after query 1 {first.WorkingSetBytes / 1048576.0:F0} MB, " +
                $"after query {last.Query} {last.WorkingSetBytes / 1048576.0:F0} MB";
            return Task.FromResult(new WorkloadRun(rows, values, errors, details, summary) { PeakWorkingSetBytes = peakWorkingSet });
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private WorkloadQuery[] RunAll(OverlayMetricsListener overlay, List<Sample> samples, out long peakWorkingSet)
        {
            var queries = new WorkloadQuery[options.Queries];
            using (AdbcDatabase database = ProbeDriver.Open(options))
            {
                samples.Add(Sample.Take("before first query", 0, overlay));
                for (int q = 0; q < options.Queries; q++)
                {
                    queries[q] = WorkloadQuery.Run(database, options, HostWorkload.SeedOf(options, q));
                    samples.Add(Sample.Take("after query", q + 1, overlay));
                }

                // Before the collections below, which can raise the working set themselves.
                using (var process = System.Diagnostics.Process.GetCurrentProcess())
                {
                    peakWorkingSet = process.PeakWorkingSet64;
                }

                if (options.IdleSeconds > 0)
                {
                    Thread.Sleep(TimeSpan.FromSeconds(options.IdleSeconds));
                    samples.Add(Sample.Take("after idle", 0, overlay));
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    samples.Add(Sample.Take("after idle and a full collection", 0, overlay));

                    // What the OS could get back: an aggressive collection decommits every free region the GC keeps
                    // committed for reuse, which a normal one leaves in the working set.
                    RuntimeMeasures.AggressiveCollect();
                    samples.Add(Sample.Take("after idle and an aggressive collection", 0, overlay));
                }
            }

            return queries;
        }

        /// <summary>
        /// One point of the drift line: the GC heap without a collection (what the process holds, garbage included), the
        /// memory the GC had committed at its last collection (heap plus the free space it keeps for reuse), the working
        /// set, the process's threads, and the patched driver's pools (bytes lent out and kept free; 0 for the stock driver).
        /// </summary>
        internal sealed record Sample(string Point, int Query, double T, long GcHeapBytes, long? GcCommittedBytes, long WorkingSetBytes, int Threads,
            long PoolInUseBytes, long PoolRetainedBytes)
        {
            private static readonly System.Diagnostics.Stopwatch s_clock = System.Diagnostics.Stopwatch.StartNew();

            public static Sample Take(string point, int query, OverlayMetricsListener overlay)
            {
                using var process = System.Diagnostics.Process.GetCurrentProcess();
                return new Sample(point, query, s_clock.Elapsed.TotalSeconds, GC.GetTotalMemory(forceFullCollection: false), RuntimeMeasures.GcCommittedBytes(),
                    RuntimeMeasures.WorkingSet(), process.Threads.Count, overlay.InUseBytes(), overlay.RetainedBytes());
            }
        }
    }
}
