using Apache.Arrow;
using Apache.Arrow.Ipc;

namespace Harness.Tests
{
    /// <summary>
    /// Disposal in every order and while CloudFetch downloads are in flight, against any driver: no exception escapes
    /// Dispose, nothing hangs (bounded), rows delivered before or after are right. On the patched driver the scope's
    /// accounting must also come back to zero once everything is disposed.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class DisposalTests(HarnessFixture fixture, ITestOutputHelper output)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 12_000, Seed = 61, RowsPerFile = 3_000, RowsPerBatch = 1_000 };

        // Twelve files sent at 150 KB/s each (about 0.8 s per file, three downloads in parallel by default): the first
        // batch arrives while most files are still downloading or queued.
        private static readonly DatasetSpec s_slowSpec = new DatasetSpec { Rows = 36_000, Seed = 62, RowsPerFile = 3_000, RowsPerBatch = 1_000 };
        private const string SlowCloudFetch = "mode=cloudfetch, faults='throttle bps=150000 times=always'";

        public enum Order
        {
            DatabaseBeforeConnections,
            ConnectionsBeforeDatabase,

            /// <summary>connection 1, database, then a query on connection 2 (which must still work), connection 2.</summary>
            Interleaved,
        }

        [Theory]
        [InlineData(Order.DatabaseBeforeConnections)]
        [InlineData(Order.ConnectionsBeforeDatabase)]
        [InlineData(Order.Interleaved)]
        public void DisposalInAnyOrderIsSafe(Order order)
        {
            using MemoryScopeWatch? watch = MemoryScopeWatch.ForDriverUnderTest();
            AdbcDatabase database = MemoryScopeWatch.Open(watch, () => fixture.OpenDatabase());
            AdbcConnection first = database.Connect(null);
            AdbcConnection second = database.Connect(null);
            DriverQueries.Run(first, s_spec, "mode=cloudfetch").AssertAllRowsCorrect();
            DriverQueries.Run(second, s_spec, "mode=cloudfetch").AssertAllRowsCorrect();

            var steps = new List<(string Name, Action Action)>();
            switch (order)
            {
                case Order.DatabaseBeforeConnections:
                    steps.Add(("database", database.Dispose));
                    steps.Add(("connection 1", first.Dispose));
                    steps.Add(("connection 2", second.Dispose));
                    break;
                case Order.ConnectionsBeforeDatabase:
                    steps.Add(("connection 2", second.Dispose));
                    steps.Add(("connection 1", first.Dispose));
                    steps.Add(("database", database.Dispose));
                    break;
                default:
                    steps.Add(("connection 1", first.Dispose));
                    steps.Add(("database", database.Dispose));
                    steps.Add(("query on connection 2 after its database was disposed", () => DriverQueries.Run(second, s_spec with { Seed = 63 }, "mode=cloudfetch").AssertAllRowsCorrect()));
                    steps.Add(("connection 2", second.Dispose));
                    break;
            }

            foreach ((string name, Action action) in steps)
            {
                Bounded.Run(action, Bounded.Dispose, name);
                if (watch != null)
                {
                    output.WriteLine($"after {name}: {watch.Describe()}");
                    if (name == "database" && order != Order.ConnectionsBeforeDatabase)
                    {
                        // A connection still holds its lease: the scope stays alive (its readers must keep working).
                        Assert.True(watch.Live == 1, "scope released while a connection was still open: " + watch.Describe());
                    }
                }
            }

            // Disposing twice is harmless too (hosts do it).
            Bounded.Run(() =>
            {
                database.Dispose();
                first.Dispose();
                second.Dispose();
            }, Bounded.Dispose, "second dispose");
            watch?.AssertReleasedAndEmpty();
        }

        public enum InFlight
        {
            /// <summary>The application abandons the reader: reader, statement, connection, database.</summary>
            ReaderFirst,

            /// <summary>The host tears down under a running reader: database, connection, then the reader is read on and disposed.</summary>
            DatabaseFirst,
        }

        [SkippableTheory]
        [InlineData(InFlight.ReaderFirst)]
        [InlineData(InFlight.DatabaseFirst)]
        public void DisposeWhileDownloadsAreInFlight(InFlight order)
        {
            using MemoryScopeWatch? watch = MemoryScopeWatch.ForDriverUnderTest();
            AdbcDatabase database = MemoryScopeWatch.Open(watch, () => fixture.OpenDatabase());
            AdbcConnection connection = database.Connect(null);
            AdbcStatement statement = connection.CreateStatement();
            statement.SqlQuery = MockSql.Select(s_slowSpec, SlowCloudFetch);
            var verifier = new Harness.Support.ResultVerifier(s_slowSpec);
            IArrowArrayStream stream = Bounded.Run(() => statement.ExecuteQuery().Stream!, Bounded.Query, "execute");

            // The teardown runs right after the first batch arrives, while the remaining files are downloading
            // (throttled) or queued; the verifier checks every row the reader delivers, before and after it.
            Action teardown = order == InFlight.ReaderFirst
                ? () =>
                {
                    Bounded.Run(stream.Dispose, Bounded.Dispose, "reader dispose with downloads in flight");
                    Bounded.Run(statement.Dispose, Bounded.Dispose, "statement dispose");
                    Bounded.Run(connection.Dispose, Bounded.Dispose, "connection dispose");
                    Bounded.Run(database.Dispose, Bounded.Dispose, "database dispose");
                }
                : () =>
                {
                    Bounded.Run(database.Dispose, Bounded.Dispose, "database dispose with downloads in flight");
                    Bounded.Run(connection.Dispose, Bounded.Dispose, "connection dispose with downloads in flight");
                };
            var observed = new TeardownAfterFirstBatch(stream, teardown, stopAfterTeardown: order == InFlight.ReaderFirst, () => watch?.Describe());

            // Reading on after a teardown may fail (the session is gone), but must never give a wrong row, and must
            // end (bounded) rather than wait forever for downloads that were cancelled.
            Exception? readerDisposeBug = null;
            Exception? readError = Bounded.Run(() =>
            {
                try
                {
                    verifier.ReadAllAsync(observed).GetAwaiter().GetResult();
                    return null;
                }
                catch (Exception ex)
                {
                    return ex;
                }
            }, Bounded.Query, "reading");
            output.WriteLine($"in flight at teardown: {observed.AtTeardown}");
            output.WriteLine($"read {verifier.Rows} rows, error: {readError?.GetType().Name}: {readError?.Message}; {string.Join("; ", verifier.Errors)}");
            Assert.True(observed.TornDown, "the teardown never ran");
            if (order == InFlight.ReaderFirst)
            {
                // The test stopped reading after one batch: the only complaint may be the short read.
                Assert.Null(readError);
                Assert.Equal(s_slowSpec.RowsPerBatch, verifier.Rows);
                Assert.Equal(new[] { $"read {verifier.Rows} rows, expected {s_slowSpec.Rows}" }, verifier.Errors);
            }
            else
            {
                Assert.True(verifier.Errors.Count == 0, "wrong rows: " + string.Join("; ", verifier.Errors));
                try
                {
                    Bounded.Run(stream.Dispose, Bounded.Dispose, "reader dispose");
                }
                catch (Exception ex) when (KnownDriverBugs.IsReaderDisposeAfterConnectionDispose(ex))
                {
                    // Recorded, then the accounting is still checked below before the test reports the bug.
                    readerDisposeBug = ex;
                    output.WriteLine("reader Dispose threw: " + ex);
                }

                Bounded.Run(statement.Dispose, Bounded.Dispose, "statement dispose");
            }

            watch?.AssertReleasedAndEmpty();
            if (watch != null)
            {
                output.WriteLine("after: " + watch.Describe());
            }

            KnownDriverBugs.SkipIf(readerDisposeBug != null, KnownDriverBugs.ReaderDisposeAfterConnectionDispose);
        }

        /// <summary>Passes batches through and runs the teardown right after the first one has been handed out.</summary>
        private sealed class TeardownAfterFirstBatch : IArrowArrayStream
        {
            private readonly IArrowArrayStream _inner;
            private readonly Action _teardown;
            private readonly bool _stopAfterTeardown;
            private readonly Func<string?> _describe;

            public TeardownAfterFirstBatch(IArrowArrayStream inner, Action teardown, bool stopAfterTeardown, Func<string?> describe)
            {
                _inner = inner;
                _teardown = teardown;
                _stopAfterTeardown = stopAfterTeardown;
                _describe = describe;
            }

            public bool TornDown { get; private set; }

            public string? AtTeardown { get; private set; }

            public Schema Schema => _inner.Schema;

            public async System.Threading.Tasks.ValueTask<RecordBatch?> ReadNextRecordBatchAsync(System.Threading.CancellationToken cancellationToken = default)
            {
                if (TornDown)
                {
                    if (_stopAfterTeardown)
                    {
                        return null;
                    }
                }
                else if (_seenFirst)
                {
                    AtTeardown = _describe();
                    _teardown();
                    TornDown = true;
                    if (_stopAfterTeardown)
                    {
                        return null;
                    }
                }

                RecordBatch? batch = await _inner.ReadNextRecordBatchAsync(cancellationToken).ConfigureAwait(false);
                _seenFirst = true;
                return batch;
            }

            private bool _seenFirst;

            public void Dispose()
            {
            }
        }
    }
}
