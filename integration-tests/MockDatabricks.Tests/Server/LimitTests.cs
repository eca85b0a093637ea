using Apache.Arrow;
using MockDatabricks.Tests.Protocol;

namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// LIMIT on a mock.* data set. Exact (default): the files end at the limit. limit_files=whole: the files are those of
    /// the whole data set, and the link of the file the limit falls in has a rowCount smaller than the file's rows, as a
    /// warehouse serves LIMIT results (upstream #126): a client must use only the first rowCount rows of each file.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class LimitTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_whole = new DatasetSpec { Rows = 10_000, Seed = 31, RowsPerFile = 3_000, RowsPerBatch = 1_000 };

        [Fact]
        public async Task Exact_FilesEndAtTheLimit()
        {
            List<(TSparkArrowResultLink Link, List<RecordBatch> File)> served = await ReadLinksAsync(MockSql.Select(s_whole, "mode=cloudfetch") + " LIMIT 7000");

            Assert.Equal(new long[] { 3_000, 3_000, 1_000 }, served.Select(s => s.Link.RowCount));
            Assert.Equal(new long[] { 3_000, 3_000, 1_000 }, served.Select(s => s.File.Sum(b => (long)b.Length)));
            Assert.Equal(7_000, ResultVerifier.VerifyAllValues(served.SelectMany(s => s.File), s_whole with { Rows = 7_000 }));
        }

        [Fact]
        public async Task Whole_TheLastLinkCountsFewerRowsThanItsFileHolds()
        {
            List<(TSparkArrowResultLink Link, List<RecordBatch> File)> served = await ReadLinksAsync(MockSql.Select(s_whole, "mode=cloudfetch, limit_files=whole") + " LIMIT 7000");

            Assert.Equal(new long[] { 0, 3_000, 6_000 }, served.Select(s => s.Link.StartRowOffset));
            Assert.Equal(new long[] { 3_000, 3_000, 1_000 }, served.Select(s => s.Link.RowCount));
            Assert.Equal(new long[] { 3_000, 3_000, 3_000 }, served.Select(s => s.File.Sum(b => (long)b.Length)));

            // The files hold rows 0..8,999 of the 10,000-row data set; the result is their first 7,000.
            Assert.Equal(9_000, ResultVerifier.VerifyAllValues(served.SelectMany(s => s.File), s_whole with { Rows = 9_000 }));
            List<RecordBatch> result = served.SelectMany(s => Trim(s.File, s.Link.RowCount)).ToList();
            Assert.Equal(7_000, ResultVerifier.VerifyAllValues(result, s_whole with { Rows = 7_000 }));
        }

        [Theory]
        [InlineData(100, new long[] { 100 })]
        [InlineData(6_000, new long[] { 3_000, 3_000 })]
        [InlineData(20_000, new long[] { 3_000, 3_000, 3_000, 1_000 })]
        public async Task Whole_ALimitInTheFirstFile_OnAFileBoundary_OrPastTheEnd(long limit, long[] rowCounts)
        {
            List<(TSparkArrowResultLink Link, List<RecordBatch> File)> served = await ReadLinksAsync(MockSql.Select(s_whole, "mode=cloudfetch, limit_files=whole") + $" LIMIT {limit}");

            Assert.Equal(rowCounts, served.Select(s => s.Link.RowCount));
            var layout = new DatasetLayout(s_whole);
            Assert.Equal(rowCounts.Select((_, i) => layout.File(i).RowCount), served.Select(s => s.File.Sum(b => (long)b.Length)));
        }

        [Fact]
        public async Task Whole_InlineResultsStayExact()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(session, MockSql.Select(s_whole, "mode=inline, limit_files=whole") + " LIMIT 7000");

            Assert.False(outcome.CloudFetch);
            Assert.Equal(7_000, ResultVerifier.VerifyAllValues(outcome.Batches, s_whole with { Rows = 7_000 }));
        }

        /// <summary>Every link of the result (direct results, then FetchResults from the cursor) with its file as served.</summary>
        private async Task<List<(TSparkArrowResultLink, List<RecordBatch>)>> ReadLinksAsync(string statement)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await MockServerFixture.ExecuteInNewSessionAsync(client, statement, new ExecuteOptions { DirectMaxRows = 3_000 });
            Assert.Equal(TStatusCode.Success, executed.Status.StatusCode);
            var links = new List<TSparkArrowResultLink>(MockServerFixture.DirectResultLinks(executed));
            bool more = executed.DirectResults!.ResultSet!.HasMoreRows;
            while (more)
            {
                TFetchResultsResp page = await client.FetchResultsAsync(executed.OperationHandle!, 3_000);
                links.AddRange(page.Results!.ResultLinks ?? new List<TSparkArrowResultLink>());
                more = page.HasMoreRows;
            }

            var served = new List<(TSparkArrowResultLink, List<RecordBatch>)>();
            foreach (TSparkArrowResultLink link in links)
            {
                served.Add((link, ArrowInteropTests.ReadFile(await client.DownloadAsync(link.FileLink))));
            }

            return served;
        }

        /// <summary>A file's first <paramref name="rows"/> rows, as a client trims the last batch of a LIMIT result.</summary>
        private static IEnumerable<RecordBatch> Trim(List<RecordBatch> file, long rows)
        {
            foreach (RecordBatch batch in file)
            {
                if (rows <= 0)
                {
                    yield break;
                }

                yield return batch.Length <= rows ? batch : batch.Slice(0, (int)rows);
                rows -= batch.Length;
            }
        }
    }
}
