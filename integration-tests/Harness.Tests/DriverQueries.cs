namespace Harness.Tests
{
    /// <summary>Runs statements of the mock's grammar through the public ADBC API and checks the rows.</summary>
    public static class DriverQueries
    {
        /// <summary>
        /// Executes <see cref="MockSql.Select"/> of <paramref name="spec"/> plus <paramref name="options"/> on the
        /// connection, reads the stream to the end and checks every <paramref name="sampleEvery"/>-th row (1 = every
        /// value). Driver exceptions are captured in the outcome; a hang becomes a TimeoutException.
        /// </summary>
        public static QueryOutcome Run(AdbcConnection connection, DatasetSpec spec, string? options = null, int sampleEvery = 1) =>
            Bounded.Run(() => RunUnbounded(connection, MockSql.Select(spec, options), spec, sampleEvery), Bounded.Query, "query " + MockSql.Select(spec, options));

        /// <summary>
        /// Executes <paramref name="sql"/> and checks its rows against <paramref name="expected"/> (a statement that
        /// returns part of a data set, e.g. with LIMIT: every value is a function of seed, row and column only).
        /// </summary>
        public static QueryOutcome RunSql(AdbcConnection connection, string sql, DatasetSpec expected) =>
            Bounded.Run(() => RunUnbounded(connection, sql, expected, 1), Bounded.Query, "query " + sql);

        /// <summary>Opens a database and one connection, runs one query, disposes everything.</summary>
        public static QueryOutcome RunOnce(HarnessFixture fixture, DatasetSpec spec, string? options = null, IReadOnlyDictionary<string, string>? properties = null, int sampleEvery = 1)
        {
            using AdbcDatabase database = fixture.OpenDatabase(properties);
            using AdbcConnection connection = database.Connect(null);
            return Run(connection, spec, options, sampleEvery);
        }

        private static QueryOutcome RunUnbounded(AdbcConnection connection, string sql, DatasetSpec spec, int sampleEvery)
        {
            var verifier = new Harness.Support.ResultVerifier(spec, sampleEvery);
            try
            {
                using AdbcStatement statement = connection.CreateStatement();
                statement.SqlQuery = sql;
                QueryResult result = statement.ExecuteQuery();
                using (result.Stream)
                {
                    verifier.ReadAllAsync(result.Stream!).GetAwaiter().GetResult();
                }

                return new QueryOutcome(spec.Rows, verifier.Rows, verifier.ValuesChecked, verifier.Errors, null);
            }
            catch (Exception ex)
            {
                return new QueryOutcome(spec.Rows, verifier.Rows, verifier.ValuesChecked, verifier.Errors, ex);
            }
        }
    }
}
