using System.Diagnostics;
using System.Runtime.CompilerServices;
using MockDatabricks.Protocol.Data;

namespace MemoryProbe
{
    /// <summary>One query of a host workload: its data set, what it read, how long it took and how long its first batch took.</summary>
    internal sealed record WorkloadQuery(int Seed, long Rows, long ValuesChecked, List<string> Errors, double Seconds, double FirstBatchSeconds = 0)
    {
        /// <summary>
        /// Runs the probe's statement for <paramref name="seed"/> on a connection of its own from <paramref name="database"/>
        /// (with <paramref name="extra"/> options that leave the data as it is, e.g. a journal tag, and the mock's network of
        /// <see cref="ProbeOptions.DownloadFaults"/>) and checks every <c>SampleEvery</c>-th row against the generator (all of them when it is 1); the connection is
        /// disposed before this returns. A driver exception becomes an error of the query, not of the probe.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static WorkloadQuery Run(AdbcDatabase database, ProbeOptions options, int seed, string? extra = null)
        {
            var verifier = new ResultVerifier(new DatasetSpec { Rows = options.Rows, Seed = seed }, options.SampleEvery);
            var clock = Stopwatch.StartNew();
            double firstBatchAt = 0;
            string? error = null;
            try
            {
                using AdbcConnection connection = database.Connect(null);
                using AdbcStatement statement = connection.CreateStatement();
                string? network = options.DownloadFaults;
                statement.SqlQuery = ProbeOptions.Statement(options.Rows, seed, extra == null || network == null ? extra ?? network : $"{extra}, {network}");
                QueryResult result = statement.ExecuteQuery();
                double executed = clock.Elapsed.TotalSeconds;
                using (result.Stream)
                {
                    verifier.ReadAllAsync(result.Stream!).GetAwaiter().GetResult();
                }

                firstBatchAt = executed + verifier.FirstBatchSeconds;
            }
            catch (Exception ex)
            {
                error = $"seed {seed}: {ex.GetType().Name}: {ex.Message}";
            }

            List<string> errors = verifier.Errors.Select(e => $"seed {seed}: {e}").ToList();
            if (error != null)
            {
                errors.Insert(0, error);
            }

            // The first batch from the start of the query: connection, statement and execution included, as a host waits for it.
            return new WorkloadQuery(seed, verifier.Rows, verifier.ValuesChecked, errors, clock.Elapsed.TotalSeconds, firstBatchAt);
        }

        /// <summary>The rows, values and errors of several queries together.</summary>
        public static (long Rows, long ValuesChecked, List<string> Errors) Totals(IReadOnlyCollection<WorkloadQuery> queries) =>
            (queries.Sum(q => q.Rows), queries.Sum(q => q.ValuesChecked), queries.SelectMany(q => q.Errors).Take(20).ToList());
    }
}
