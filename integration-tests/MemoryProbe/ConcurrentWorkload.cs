using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow.Adbc;
using Harness.Support;

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
    internal sealed class ConcurrentWorkload : IHostWorkload
    {
        private readonly ProbeOptions _options;

        public ConcurrentWorkload(ProbeOptions options)
        {
            _options = options;
        }

        public IEnumerable<string> Statements => Enumerable.Range(0, _options.Queries).Select(q => ProbeOptions.Statement(_options.Rows, HostWorkload.SeedOf(_options, q)));

        public long ExpectedRows => _options.Rows * _options.Queries;

        public Task<WorkloadRun> RunAsync(OverlayMetricsListener overlay)
        {
            WorkloadQuery[] queries = RunAll();
            (long rows, long values, List<string> errors) = WorkloadQuery.Totals(queries);
            var details = new Dictionary<string, object?>
            {
                ["queries"] = _options.Queries,
                ["databases"] = _options.Databases,
                ["perQuery"] = queries.Select(q => new { seed = q.Seed, rows = q.Rows, seconds = q.Seconds, errors = q.Errors.Count }),
            };
            string summary = $"{_options.Queries} quer{(_options.Queries == 1 ? "y" : "ies")} at once on {_options.Databases} database(s), " +
                $"slowest {queries.Max(q => q.Seconds):F2} s";
            return Task.FromResult(new WorkloadRun(rows, values, errors, details, summary));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private WorkloadQuery[] RunAll()
        {
            var databases = new List<AdbcDatabase>();
            try
            {
                for (int d = 0; d < _options.Databases; d++)
                {
                    databases.Add(ProbeDriver.Open(_options));
                }

                var queries = new WorkloadQuery[_options.Queries];
                using var start = new Barrier(_options.Queries);
                Thread[] threads = Enumerable.Range(0, _options.Queries).Select(q => new Thread(() =>
                {
                    start.SignalAndWait();
                    queries[q] = WorkloadQuery.Run(databases[q % databases.Count], _options, HostWorkload.SeedOf(_options, q));
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
