namespace Harness.Tests
{
    /// <summary>
    /// A LIMIT over CloudFetch as a warehouse serves it (the mock's limit_files=whole): the link of the file the limit
    /// falls in has a rowCount smaller than its file's rows, and the driver trims that file's batch (upstream #126).
    /// Trimmed with RecordBatch.Slice from a batch it then disposed, the last batch could not be read (stock: the native
    /// allocator's memory freed under the slice; series 1.4: ObjectDisposedException); the series clones the rows.
    /// Every value of the limited result is checked against the generator.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class LimitTrimmedResultTests(HarnessFixture fixture)
    {
        // 10,000 rows in files of 3,000 and batches of 1,000: LIMIT 6,500 ends in the third file's first batch, which is
        // trimmed to 500 rows; LIMIT 100 trims the very first batch of the result.
        [SkippableTheory]
        [InlineData(6_500)]
        [InlineData(100)]
        public void TheLastBatchOfALimitedCloudFetchResultIsReadable(long limit)
        {
            var served = new DatasetSpec { Rows = 10_000, Seed = 31, RowsPerFile = 3_000, RowsPerBatch = 1_000 };
            var expected = new DatasetSpec { Rows = limit, Seed = 31, RowsPerFile = 3_000, RowsPerBatch = 1_000 };
            string sql = MockSql.Select(served, "mode=cloudfetch, limit_files=whole") + $" LIMIT {limit}";
            using AdbcDatabase database = fixture.OpenDatabase();
            using AdbcConnection connection = database.Connect(null);

            QueryOutcome outcome = DriverQueries.RunSql(connection, sql, expected);

            KnownDriverBugs.SkipIf(!DriverUnderTest.IsNewHome && outcome.Rows != limit, KnownDriverBugs.LinkRowCountIgnored + " (here: " + outcome.Describe() + ")");
            KnownDriverBugs.SkipIf(!DriverUnderTest.IsPatched && (outcome.Error != null || outcome.WrongValues.Count > 0), KnownDriverBugs.LimitTrimmedBatchUnreadable + " (here: " + outcome.Describe() + ")");
            outcome.AssertAllRowsCorrect();
        }
    }
}
