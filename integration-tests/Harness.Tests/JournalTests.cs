namespace Harness.Tests
{
    /// <summary>
    /// What the driver asked the server for, read from the mock's journal: the Thrift calls in order and the GETs of
    /// CloudFetch files. Proves the scenarios really take the path they are named after (inline vs CloudFetch, direct
    /// results vs polling, paging with startRowOffset) and that the driver closes what it opens.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class JournalTests(HarnessFixture fixture, ITestOutputHelper output)
    {
        [Fact]
        public async Task InlineWithDirectResultsIsOneRoundTrip()
        {
            List<JournalEntry> journal = await RunAndReadJournalAsync(new DatasetSpec { Rows = 3_000, Seed = 31, RowsPerBatch = 1_000 }, "mode=inline, tag=inline-direct");

            // The whole result came with ExecuteStatement: no polling, no FetchResults, no download.
            Assert.Equal(new[] { "OpenSession", "ExecuteStatement", "CloseOperation", "CloseSession" }, RpcMethods(journal));
            Assert.DoesNotContain(journal, e => e.Kind == "download");
            Assert.All(journal, e => Assert.Equal(200, e.Status));
        }

        [Fact]
        public async Task CloudFetchWithDirectResultsDownloadsEveryFileOnce()
        {
            List<JournalEntry> journal = await RunAndReadJournalAsync(
                new DatasetSpec { Rows = 6_000, Seed = 32, RowsPerFile = 1_000, RowsPerBatch = 500 }, "mode=cloudfetch, tag=cf-direct");

            Assert.Equal(new[] { "OpenSession", "ExecuteStatement", "CloseOperation", "CloseSession" }, RpcMethods(journal));
            AssertEveryFileDownloadedOnce(journal, files: 6);
        }

        [Fact]
        public async Task WithoutDirectResultsTheDriverPollsThenPagesWithStartRowOffset()
        {
            // Six files, two links per FetchResults reply: the driver must page three times, asking for the next
            // link by its start row offset (0 is left unset, as the first fetch).
            List<JournalEntry> journal = await RunAndReadJournalAsync(
                new DatasetSpec { Rows = 6_000, Seed = 33, RowsPerFile = 1_000, RowsPerBatch = 500 },
                "mode=cloudfetch, direct=false, running_polls=3, links_per_fetch=2, tag=cf-poll");

            List<string> rpcs = RpcMethods(journal);
            Assert.Equal("OpenSession", rpcs[0]);
            Assert.Equal("ExecuteStatement", rpcs[1]);
            Assert.Equal(new[] { "CloseOperation", "CloseSession" }, rpcs.Skip(rpcs.Count - 2));

            // Polled until FINISHED: three RUNNING answers, then FINISHED, before the metadata is read.
            int metadata = rpcs.IndexOf("GetResultSetMetadata");
            Assert.True(metadata > 1, string.Join(",", rpcs));
            List<JournalEntry> polls = journal.Where(e => e.Kind == "rpc" && e.Method == "GetOperationStatus").ToList();
            Assert.Equal(new[] { "Running", "Running", "Running", "Finished" }, polls.Take(4).Select(e => e.Detail));
            Assert.Equal(4, rpcs.Take(metadata).Count(m => m == "GetOperationStatus"));

            List<JournalEntry> fetches = journal.Where(e => e.Kind == "rpc" && e.Method == "FetchResults").ToList();
            Assert.Equal(new long[] { 0, 2_000, 4_000 }, fetches.Select(e => e.StartRowOffset ?? 0));
            Assert.All(fetches, e => Assert.Equal("ok", e.Outcome));
            AssertEveryFileDownloadedOnce(journal, files: 6);
        }

        [Fact]
        public async Task InlineWithoutDirectResultsFetchesBatches()
        {
            List<JournalEntry> journal = await RunAndReadJournalAsync(
                new DatasetSpec { Rows = 5_000, Seed = 34, RowsPerBatch = 1_000 }, "mode=inline, direct=false, tag=inline-poll");

            List<string> rpcs = RpcMethods(journal);
            Assert.Equal(new[] { "OpenSession", "ExecuteStatement" }, rpcs.Take(2));
            Assert.Contains("GetResultSetMetadata", rpcs);
            Assert.Contains("FetchResults", rpcs);
            Assert.Equal(new[] { "CloseOperation", "CloseSession" }, rpcs.Skip(rpcs.Count - 2));
            Assert.DoesNotContain(journal, e => e.Kind == "download");
        }

        private async Task<List<JournalEntry>> RunAndReadJournalAsync(DatasetSpec spec, string options)
        {
            // Tests run one at a time (AssemblyInfo), so after clearing, the journal holds only this test's calls.
            await fixture.Admin.ClearJournalAsync();
            DriverQueries.RunOnce(fixture, spec, options).AssertAllRowsCorrect();
            List<JournalEntry> journal = await fixture.Admin.JournalAsync();
            foreach (JournalEntry e in journal)
            {
                output.WriteLine($"{e.Kind} {e.Method} offset={e.StartRowOffset} maxRows={e.MaxRows} file={e.File} {e.Status} {e.Outcome} {e.Detail}");
            }

            return journal;
        }

        private static List<string> RpcMethods(IEnumerable<JournalEntry> journal) =>
            journal.Where(e => e.Kind == "rpc").Select(e => e.Method).ToList();

        private static void AssertEveryFileDownloadedOnce(List<JournalEntry> journal, int files)
        {
            List<JournalEntry> downloads = journal.Where(e => e.Kind == "download").ToList();
            Assert.Equal(Enumerable.Range(0, files), downloads.Select(e => e.File ?? -1).OrderBy(f => f));
            Assert.All(downloads, e => Assert.Equal(200, e.Status));
        }
    }
}
