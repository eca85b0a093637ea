using System.Runtime.CompilerServices;
using MockDatabricks.Protocol.Admin;
using MockDatabricks.Testing;

namespace MemoryProbe
{
    /// <summary>
    /// Several partitions refreshed at once: <c>--queries</c> queries start together, spread over <c>--databases</c>
    /// databases (1: all on one database, sharing its memory scope; as many as queries: one database each), each on a
    /// connection of its own, and each query reads a different data set, so rows crossing between queries would be wrong
    /// values. Each query runs on a dedicated thread, as a host's refresh threads do: a probe that blocked thread-pool
    /// threads would slow the drivers' own asynchronous pipelines and measure itself. With --queries 1 this is the
    /// one-query baseline the concurrent runs are compared with.
    /// </summary>
    internal sealed class ConcurrentWorkload(ProbeOptions options) : IHostWorkload
    {
        public IEnumerable<string> Statements => Enumerable.Range(0, options.Queries).Select(q => ProbeOptions.Statement(options.Rows, HostWorkload.SeedOf(options, q)));

        public long ExpectedRows => options.Rows * options.Queries;

        public async Task<WorkloadRun> RunAsync(OverlayMetricsListener overlay)
        {
            string tag = "probe-concurrent-" + Guid.NewGuid().ToString("N");
            WorkloadQuery[] queries = RunAll(tag);
            (long rows, long values, List<string> errors) = WorkloadQuery.Totals(queries);
            using var admin = new AdminClient(options.MockUrl, options.TrustedCertificate);
            List<JournalEntry> downloads = await admin.JournalAsync(tag: tag, kind: "download").ConfigureAwait(false);
            var details = new Dictionary<string, object?>
            {
                ["queries"] = options.Queries,
                ["databases"] = options.Databases,
                // The largest file a reader downloaded: the most a reader that held nothing could take over the budget.
                ["largestFileBytes"] = downloads.Count == 0 ? null : downloads.Max(d => d.Transfer?.BytesTotal ?? 0),
                // The slowest query's time to its first batch (with one query: that query's), from the query's start.
                ["firstBatchSeconds"] = queries.Max(q => q.FirstBatchSeconds),
                ["perQuery"] = queries.Select(q => new { seed = q.Seed, rows = q.Rows, seconds = q.Seconds, firstBatchSeconds = q.FirstBatchSeconds, errors = q.Errors.Count }),
                ["downloads"] = DownloadSummary.Of(downloads),
            };
            string summary = $"{options.Queries} quer{(options.Queries == 1 ? "y" : "ies")} at once on {options.Databases} database(s), " +
                $"slowest {queries.Max(q => q.Seconds):F2} s";
            return new WorkloadRun(rows, values, errors, details, summary);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private WorkloadQuery[] RunAll(string tag)
        {
            var databases = new List<AdbcDatabase>();
            try
            {
                for (int d = 0; d < options.Databases; d++)
                {
                    databases.Add(ProbeDriver.Open(options));
                }

                var queries = new WorkloadQuery[options.Queries];
                using var start = new Barrier(options.Queries);
                Thread[] threads = Enumerable.Range(0, options.Queries).Select(q => new Thread(() =>
                {
                    start.SignalAndWait();
                    queries[q] = WorkloadQuery.Run(databases[q % databases.Count], options, HostWorkload.SeedOf(options, q), "tag=" + tag);
                })
                { Name = $"query {q}" }).ToArray();
                foreach (Thread thread in threads)
                {
                    thread.Start();
                }

                foreach (Thread thread in threads)
                {
                    thread.Join();
                }

                return queries;
            }
            finally
            {
                foreach (AdbcDatabase database in databases)
                {
                    database.Dispose();
                }
            }
        }
    }
}
