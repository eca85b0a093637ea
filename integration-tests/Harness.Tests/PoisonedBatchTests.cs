using Apache.Arrow;
using MetricNames = Apache.Arrow.Adbc.Drivers.Databricks.DatabricksMemoryMetricNames;

namespace Harness.Tests
{
    /// <summary>
    /// Record batches rented from the database's batch pool never show bytes of another batch (DESIGN 3.5). The
    /// driver runs in poison mode: every batch array is overwritten with a pattern when it goes back to the pool, so
    /// a batch whose array was returned (or handed to a second batch) while it was still alive shows the pattern, or
    /// the other batch's values, instead of its own. Several batches are kept alive at once and every value of every
    /// batch is checked against the generator again after each later batch is read.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class PoisonedBatchTests(HarnessFixture fixture, ITestOutputHelper output)
    {
        private const string PoisonKey = "adbc.databricks.memory.poison_returned_arrays";
        private const string BatchPool = MetricNames.ArrowBatchesPool;
        private const string Returned = MetricNames.Returned;

        // Many files and batches, so returned arrays are reused many times while older batches are still alive.
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 60_000, Seed = 61, RowsPerFile = 6_000, RowsPerBatch = 1_500 };

        /// <summary>Batches held alive at once: older ones are disposed (and poisoned) as newer ones arrive.</summary>
        private const int Window = 3;

        [SkippableFact]
        public void WithPoisonedReturnsEveryLiveBatchShowsOnlyItsOwnValues()
        {
            Skip.IfNot(DriverUnderTest.IsPatched, DriverUnderTest.NotPatchedReason);
            using var watch = new MemoryScopeWatch();
            var generator = new DatasetGenerator(s_spec);
            long rows = 0, batches = 0;
            var errors = new List<string>();

            using (AdbcDatabase database = watch.Open(() => fixture.OpenDatabase(new Dictionary<string, string> { [PoisonKey] = "true" })))
            using (AdbcConnection connection = database.Connect(null))
            using (AdbcStatement statement = connection.CreateStatement())
            {
                statement.SqlQuery = MockSql.Select(s_spec, "mode=cloudfetch");
                QueryResult result = statement.ExecuteQuery();
                var alive = new Queue<(RecordBatch Batch, long FirstRow)>();
                using (result.Stream)
                {
                    Bounded.Run(() =>
                    {
                        while (result.Stream!.ReadNextRecordBatchAsync().AsTask().GetAwaiter().GetResult() is RecordBatch batch)
                        {
                            alive.Enqueue((batch, rows));
                            rows += batch.Length;
                            batches++;
                            foreach ((RecordBatch live, long firstRow) in alive)
                            {
                                CheckEveryValue(generator, live, firstRow, errors);
                            }

                            if (alive.Count == Window)
                            {
                                alive.Dequeue().Batch.Dispose();
                            }
                        }

                        return 0;
                    }, Bounded.Query, "poisoned read");
                }

                while (alive.Count > 0)
                {
                    alive.Dequeue().Batch.Dispose();
                }
            }

            output.WriteLine($"{batches} batches, {rows} rows; {watch.Describe()}; batch pool returned {watch.Sum(Returned, BatchPool)} bytes");
            Assert.True(errors.Count == 0, $"{errors.Count} wrong values, first: {string.Join("; ", errors.GetRange(0, Math.Min(5, errors.Count)))}");
            Assert.Equal(s_spec.Rows, rows);

            // Not vacuous: the batches came from the batch pool, and its arrays were reused (so poisoned arrays were
            // handed to later batches) while older batches were still alive.
            long rented = watch.Sum(MemoryScopeWatch.Rented, BatchPool);
            long allocated = watch.Sum(MemoryScopeWatch.Allocated, BatchPool);
            Assert.True(rented > 0, "no batch body came from the batch pool: " + watch.Describe());
            Assert.True(allocated < rented, $"the batch pool never reused an array (rented {rented}, allocated {allocated})");
            Assert.True(batches > 2 * Window, $"only {batches} batches: too few to reuse arrays under live batches");
            watch.AssertReleasedAndEmpty();
        }

        private static void CheckEveryValue(DatasetGenerator generator, RecordBatch batch, long firstRow, List<string> errors)
        {
            for (int i = 0; i < batch.Length && errors.Count < 100; i++)
            {
                for (int column = 0; column < batch.ColumnCount; column++)
                {
                    object? expected = generator.GetValue(firstRow + i, column);
                    object? actual = ArrowValues.Get(batch.Column(column), i);
                    if (!ArrowValues.AreEqual(expected, actual))
                    {
                        errors.Add($"row {firstRow + i} column {column}: expected {expected}, got {actual}");
                    }
                }
            }
        }
    }
}
