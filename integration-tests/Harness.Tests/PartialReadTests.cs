using Apache.Arrow.Ipc;

namespace Harness.Tests
{
    /// <summary>
    /// A reader disposed before the end of its result (a preview, a cancelled refresh) stops the CloudFetch pipeline
    /// with nothing left behind: when its Dispose returns, no buffer of the patched driver's scope is in use (not a file
    /// downloaded but never queued, not a download still being read), and no download starts afterwards (the mock's
    /// journal). The tests that ask the scope are for the patched driver only: the stock driver has no scope to ask, and
    /// it lets in-flight downloads run on (verify's partial-read scenario measures it). No download starts while the
    /// operation is being closed, and a stalled download does not hold the Dispose, for any driver.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class PartialReadTests(HarnessFixture fixture, ITestOutputHelper output)
    {
        // Twenty small files; with prefetch_count=1 the result queue holds two, so the pipeline fills up early.
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 40_000, Seed = 71, RowsPerFile = 2_000, RowsPerBatch = 1_000 };

        // Twelve files sent at 150 KB/s each (about 0.8 s per file): the first batch arrives while files are downloading.
        private static readonly DatasetSpec s_slowSpec = new DatasetSpec { Rows = 36_000, Seed = 72, RowsPerFile = 3_000, RowsPerBatch = 1_000 };

        // prefetch_count=1 bounds both pipelines. The fixed one fills the result queue (two files), then its loop holds one
        // more downloaded file waiting for room (the file a stop used to leave undisposed): with the reader's, at least 4.
        // Adaptive prefetch starts a download only while fewer than twice prefetch_count files are ahead of the reader,
        // so it never holds a file waiting for room: the reader's file and at most 2 ahead.
        [SkippableTheory]
        [InlineData("false", 4, 19)]
        [InlineData("true", 2, 3)]
        public void AReaderDisposedWithItsPipelineFullGivesEveryBufferBackBeforeDisposeReturns(string adaptivePrefetch, int fewestDownloads, int mostDownloads)
        {
            Skip.IfNot(DriverUnderTest.IsPatched, DriverUnderTest.NotPatchedReason);
            string tag = NewTag();
            using var watch = new MemoryScopeWatch();
            using AdbcDatabase database = watch.Open(() => fixture.OpenDatabase(new Dictionary<string, string>
            {
                ["adbc.databricks.cloudfetch.prefetch_count"] = "1",
                ["adbc.databricks.memory.adaptive_prefetch"] = adaptivePrefetch,
            }));
            using AdbcConnection connection = database.Connect(null);
            using AdbcStatement statement = connection.CreateStatement();
            IArrowArrayStream reader = ReadFirstBatch(statement, s_spec, $"mode=cloudfetch, tag={tag}");

            // Downloads stop once the pipeline is full.
            int downloaded = WaitUntilDownloadsStop(tag);
            output.WriteLine($"{downloaded} files downloaded before the dispose; {watch.Describe()}");
            Assert.True(downloaded >= fewestDownloads && downloaded <= mostDownloads,
                $"{downloaded} files downloaded (expected {fewestDownloads}-{mostDownloads} of 20): the pipeline did not stop where prefetch_count=1 bounds it");

            Bounded.Run(reader.Dispose, Bounded.Dispose, "reader dispose");

            // At once, not eventually: everything the reader's pipeline rented is back when Dispose returns.
            Assert.True(watch.InUse == 0, "bytes still in use right after the reader's Dispose returned: " + watch.Describe());
            Assert.Equal(downloaded, Downloads(tag).Count);
        }

        [SkippableFact]
        public void AReaderDisposedWithDownloadsInFlightEndsThemBeforeDisposeReturnsAndStartsNoOther()
        {
            Skip.IfNot(DriverUnderTest.IsPatched, DriverUnderTest.NotPatchedReason);
            string tag = NewTag();
            using var watch = new MemoryScopeWatch();
            using AdbcDatabase database = watch.Open(() => fixture.OpenDatabase());
            using AdbcConnection connection = database.Connect(null);
            using AdbcStatement statement = connection.CreateStatement();
            IArrowArrayStream reader = ReadFirstBatch(statement, s_slowSpec, $"mode=cloudfetch, tag={tag}, faults='throttle bps=150000 times=always'");

            List<JournalEntry> atDispose = Downloads(tag);
            Bounded.Run(reader.Dispose, Bounded.Dispose, "reader dispose with downloads in flight");
            Assert.True(watch.InUse == 0, "bytes still in use right after the reader's Dispose returned: " + watch.Describe());
            List<JournalEntry> afterDispose = Downloads(tag);

            // Nothing more may start (the driver retries a failed GET after 50 ms here, so a second is ample). Whether a
            // transfer in flight ends aborted or complete is not the driver's to decide: .NET's HTTP handler reads up to
            // 1 MiB of an abandoned response to keep the connection, which is all of these small files.
            System.Threading.Thread.Sleep(TimeSpan.FromSeconds(1));
            Assert.True(Bounded.WaitUntil(() => Downloads(tag).All(d => d.Transfer?.State != "sending"), TimeSpan.FromSeconds(30)),
                "a transfer was still being sent 30 s after the dispose");
            List<JournalEntry> later = Downloads(tag);
            output.WriteLine(string.Join("; ", later.Select(d => $"file {d.File}: {d.Transfer?.State} {d.Transfer?.BytesSent}/{d.Transfer?.BytesTotal}")));
            Assert.Equal(afterDispose.Select(d => d.Seq), later.Select(d => d.Seq));
            Assert.Contains(atDispose, d => d.Transfer?.State == "sending");
        }

        // Twenty-four files sent at 150 KB/s each, and room in the queues for all of them: downloads keep starting
        // while the reader is being disposed, unless the pipeline is stopped first.
        private static readonly DatasetSpec s_flowingSpec = new DatasetSpec { Rows = 72_000, Seed = 73, RowsPerFile = 3_000, RowsPerBatch = 1_000 };

        [SkippableFact]
        public void NoDownloadStartsWhileTheOperationIsBeingClosed()
        {
            // CloseOperation is answered 3 s after the mock journals it. A reader that closes the operation before it stops
            // its pipeline (csharp/v1.1.7's composite reader) starts downloads during that round trip, after its Dispose
            // began: a new download every ~0.8 s here (three at a time). A reader stopped first starts none; a request it
            // sent just before the stop can still reach the mock after the close (requests on other connections are not
            // ordered), hence the margin: a download journaled more than 0.5 s into the close was started during it.
            string tag = NewTag();
            using AdbcDatabase database = fixture.OpenDatabase(new Dictionary<string, string> { ["adbc.databricks.cloudfetch.prefetch_count"] = "24" });
            using AdbcConnection connection = database.Connect(null);
            using AdbcStatement statement = connection.CreateStatement();
            IArrowArrayStream reader = ReadFirstBatch(statement, s_flowingSpec,
                $"mode=cloudfetch, tag={tag}, faults='throttle bps=150000 times=always; rpc_slow method=CloseOperation delay_ms=3000'");

            Bounded.Run(reader.Dispose, Bounded.Dispose, "reader dispose");

            List<JournalEntry> journal = Journal(tag);
            JournalEntry close = Assert.Single(journal, e => e.Method == "CloseOperation");
            List<JournalEntry> startedDuringClose = journal.Where(e => e.Kind == "download" && e.Time > close.Time + TimeSpan.FromMilliseconds(500)).ToList();
            output.WriteLine($"{journal.Count(e => e.Kind == "download")} downloads, {startedDuringClose.Count} during CloseOperation; {DriverUnderTest.Description}");
            output.WriteLine(string.Join("; ", journal.Select(e => $"{e.Seq} {e.Time:HH:mm:ss.fff} {e.Method} {e.File} {e.Outcome}")));
            KnownDriverBugs.SkipIf(!DriverUnderTest.IsPatched && startedDuringClose.Count > 0, KnownDriverBugs.DownloadsDuringCloseOperation);
            Assert.Empty(startedDuringClose);
        }

        [Fact]
        public void ADisposeDoesNotWaitForAStalledDownloadAndItsBufferComesBackWhenTheDownloadEnds()
        {
            // Every file stalls 20 s after its first quarter, whatever the client does. A reader disposed meanwhile must
            // not wait for the stall (the downloader's drain is bounded; .NET's socket reads honour the cancellation, the
            // bound covers .NET Framework's, which do not), and every pooled byte is back once the downloads have ended.
            string tag = NewTag();
            using var watch = new MemoryScopeWatch();
            using AdbcDatabase database = DriverUnderTest.IsPatched ? watch.Open(() => fixture.OpenDatabase()) : fixture.OpenDatabase();
            using AdbcConnection connection = database.Connect(null);
            using AdbcStatement statement = connection.CreateStatement();
            IArrowArrayStream reader = ReadFirstBatch(statement, s_slowSpec, $"mode=cloudfetch, tag={tag}, faults='stall files=1,2,3,4,5,6,7,8,9,10,11 at=0.25 delay_ms=20000 times=always'");
            Assert.True(Bounded.WaitUntil(() => Downloads(tag).Count(d => d.Outcome == "stalled") >= 1, TimeSpan.FromSeconds(30)), "no download reached its stall");

            var clock = System.Diagnostics.Stopwatch.StartNew();
            Bounded.Run(reader.Dispose, TimeSpan.FromSeconds(10), "reader dispose with a stalled download (its stall lasts 20 s)");
            output.WriteLine($"reader dispose took {clock.ElapsedMilliseconds} ms; {watch.Describe()}; {DriverUnderTest.Description}");
            if (DriverUnderTest.IsPatched)
            {
                Assert.True(Bounded.WaitUntil(() => watch.InUse == 0, TimeSpan.FromSeconds(30)), "pooled bytes still in use 30 s after the dispose: " + watch.Describe());
            }
        }

        private static string NewTag() => "partial-" + Guid.NewGuid().ToString("N");

        /// <summary>Executes, reads and checks the first batch (every value), disposes it, and returns the reader.</summary>
        private static IArrowArrayStream ReadFirstBatch(AdbcStatement statement, DatasetSpec spec, string options)
        {
            statement.SqlQuery = MockSql.Select(spec, options);
            IArrowArrayStream reader = Bounded.Run(() => statement.ExecuteQuery().Stream!, Bounded.Query, "execute");
            var verifier = new Harness.Support.ResultVerifier(spec) { StopAfterBatches = 1 };
            Bounded.Run(() => verifier.ReadAllAsync(reader).GetAwaiter().GetResult(), Bounded.Query, "first batch");
            Assert.Equal((1L, spec.RowsPerBatch, 0), (verifier.Batches, verifier.Rows, verifier.Errors.Count));
            return reader;
        }

        private List<JournalEntry> Downloads(string tag) => fixture.Admin.JournalAsync(tag: tag, kind: "download").GetAwaiter().GetResult();

        private List<JournalEntry> Journal(string tag) => fixture.Admin.JournalAsync(tag: tag).GetAwaiter().GetResult();

        /// <summary>Waits (bounded) until every download of the query has been sent and none has started for half a second.</summary>
        private int WaitUntilDownloadsStop(string tag)
        {
            int seen = -1;
            DateTime quietSince = DateTime.UtcNow;
            Assert.True(Bounded.WaitUntil(() =>
            {
                List<JournalEntry> downloads = Downloads(tag);
                if (downloads.Count != seen || downloads.Any(d => d.Transfer?.State == "sending"))
                {
                    seen = downloads.Count;
                    quietSince = DateTime.UtcNow;
                    return false;
                }

                return DateTime.UtcNow - quietSince > TimeSpan.FromMilliseconds(500);
            }, TimeSpan.FromSeconds(30)), "downloads never stopped");
            return seen;
        }
    }
}
