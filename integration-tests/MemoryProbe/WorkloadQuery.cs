using System.Diagnostics;
using System.Runtime.CompilerServices;
using MockDatabricks.Protocol.Data;

namespace MemoryProbe
{
    /// <summary>One query of a host workload: its data set, what it read and how long it took.</summary>
    internal sealed record WorkloadQuery(int Seed, long Rows, long ValuesChecked, List<string> Errors, double Seconds)
    {
        /// <summary>
        /// Runs the probe's statement for <paramref name="seed"/> on a connection of its own from <paramref name="database"/>
        /// (with <paramref name="extra"/> options that leave the data as it is, e.g. a journal tag)
        /// and checks every <c>SampleEvery</c>-th row against the generator (all of them when it is 1); the connection is
        /// disposed before this returns. A driver exception becomes an error of the query, not of the probe.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static WorkloadQuery Run(AdbcDatabase database, ProbeOptions options, int seed, string? extra = null)
        {
            var verifier = new ResultVerifier(new DatasetSpec { Rows = options.Rows, Seed = seed }, options.SampleEvery);
            var clock = Stopwatch.StartNew();
            string? error = null;
            try
            {
                using AdbcConnection connection = database.Connect(null);
                using AdbcStatement statement = connection.CreateStatement();
                statement.SqlQuery = ProbeOptions.Statement(options.Rows, seed, extra);
                QueryResult result = statement.ExecuteQuery();
                using (result.Stream)
                {
                    verifier.ReadAllAsync(result.Stream!).GetAwaiter().GetResult();
                }
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

            return new WorkloadQuery(seed, verifier.Rows, verifier.ValuesChecked, errors, clock.Elapsed.TotalSeconds);
        }

        /// <summary>The rows, values and errors of several queries together.</summary>
        public static (long Rows, long ValuesChecked, List<string> Errors) Totals(IReadOnlyCollection<WorkloadQuery> queries) =>
            (queries.Sum(q => q.Rows), queries.Sum(q => q.ValuesChecked), queries.SelectMany(q => q.Errors).Take(20).ToList());
    }
}
