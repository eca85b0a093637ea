namespace MockDatabricks.Tests.Server
{
    /// <summary>Inline and CloudFetch results through real HTTP, every value checked against the generator.</summary>
    [Collection(MockServerCollection.Name)]
    public class ResultDeliveryTests(MockServerFixture fixture)
    {
        [Theory]
        [InlineData(true)]
        [InlineData(false)]
        public async Task InlineResults_DirectResults_EveryValueMatches(bool lz4)
        {
            var spec = new DatasetSpec { Rows = 1000, Seed = 3, RowsPerBatch = 300 };
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(session, MockSql.Select(spec, "mode=inline"), new ExecuteOptions { CanDecompressLz4 = lz4 });

            Assert.True(outcome.UsedDirectResults);
            Assert.False(outcome.CloudFetch);
            Assert.Equal(lz4, outcome.Metadata.Lz4Compressed);
            Assert.Equal(TSparkRowSetType.ArrowBasedSet, outcome.Metadata.ResultFormat);
            Assert.Equal(new[] { 300, 300, 300, 100 }, outcome.Batches.Select(b => b.Length));
            Assert.Equal(1000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            Assert.Equal(new[] { "id", "quantity", "price", "amount", "description", "created_at", "event_date", "is_active", "country" },
                outcome.Metadata.Schema!.Columns.Select(c => c.ColumnName));

            List<JournalEntry> journal = await fixture.Admin.JournalAsync(session: session.SessionId.ToHex());
            Assert.Equal(new[] { "OpenSession", "ExecuteStatement", "CloseOperation" }, journal.Select(e => e.Method));
            Assert.All(journal, e => Assert.Equal("ok", e.Outcome));
        }

        [Fact]
        public async Task InlineResults_LargerThanDirectLimit_ContinueWithFetchResults()
        {
            var spec = new DatasetSpec { Rows = 5000, Seed = 4, RowsPerBatch = 1000 };
            QueryOutcome outcome = await fixture.QueryAsync(spec, "mode=inline", new ExecuteOptions { DirectMaxRows = 2000 });

            Assert.Equal(5000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(operation: outcome.OperationId);
            Assert.Equal(new[] { "ExecuteStatement", "FetchResults", "CloseOperation" }, journal.Select(e => e.Method));
            Assert.Null(journal[1].StartRowOffset);
        }

        [Fact]
        public async Task CloudFetch_ManyLz4Files_EveryValueMatches_AndLinksAreWellFormed()
        {
            var spec = new DatasetSpec { Rows = 60_000, Seed = 5, RowsPerFile = 5_000, RowsPerBatch = 2_000 };
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(session, MockSql.Select(spec, "mode=cloudfetch"));

            Assert.True(outcome.CloudFetch);
            Assert.True(outcome.Metadata.Lz4Compressed);
            Assert.Equal(TSparkRowSetType.UrlBasedSet, outcome.Metadata.ResultFormat);
            Assert.Equal(60_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            Assert.Equal(12, outcome.Links.Count);
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            for (int i = 0; i < outcome.Links.Count; i++)
            {
                TSparkArrowResultLink link = outcome.Links[i];
                Assert.StartsWith(fixture.Server.BaseUrlText + "/cloudfetch/", link.FileLink);
                Assert.Equal(i * 5_000L, link.StartRowOffset);
                Assert.Equal(5_000L, link.RowCount);
                Assert.InRange(link.ExpiryTime, now + 3_000_000, now + 3_700_000); // epoch milliseconds, about an hour ahead
                byte[] file = await client.DownloadAsync(link.FileLink);
                Assert.Equal(file.Length, link.BytesNum);
                Assert.Equal(1, CountFrames(file));
                Assert.Equal(0x60, file[4] & 0xFC); // FLG: version 1, independent blocks, no checksums, no content size
                Assert.Equal(0x70, file[5]);        // BD: 4 MB blocks
            }
        }

        [Theory]
        [InlineData("frames=3", 3)]
        [InlineData("frames=per_message, batch_rows=1000", 6)]
        public async Task CloudFetch_SeveralFramesPerFile_DecodeCompletely(string framing, int expectedFrames)
        {
            var spec = new DatasetSpec { Rows = 12_000, Seed = 6, RowsPerFile = 4_000, RowsPerBatch = framing.Contains("batch_rows") ? 1000 : 32768 };
            (_, byte[] file) = await QueryAndDownloadFirstFileAsync(spec, "mode=cloudfetch, " + framing.Replace(", batch_rows=1000", string.Empty));

            Assert.Equal(expectedFrames, CountFrames(file));
        }

        [Fact]
        public async Task CloudFetch_ChecksumsAndLinkedSmallBlocks_AreHonoured()
        {
            var spec = new DatasetSpec { Rows = 20_000, Seed = 7, RowsPerFile = 10_000 };
            (_, byte[] file) = await QueryAndDownloadFirstFileAsync(spec,
                "mode=cloudfetch, lz4_content_checksum=true, lz4_block_checksum=true, lz4_content_size=true, lz4_block=64kb, lz4_linked=true");

            Assert.Equal(0x40 | 0x10 | 0x08 | 0x04, file[4]); // linked, block checksum, content size, content checksum
            Assert.Equal(0x40, file[5]);                     // 64 KB blocks
        }

        [Fact]
        public async Task CloudFetch_WithoutLz4_ServesPlainArrowStreams()
        {
            var spec = new DatasetSpec { Rows = 9_000, Seed = 8, RowsPerFile = 3_000 };
            (QueryOutcome outcome, byte[] file) = await QueryAndDownloadFirstFileAsync(spec, "mode=cloudfetch", new ExecuteOptions { CanDecompressLz4 = false });

            Assert.False(outcome.Metadata.Lz4Compressed);
            Assert.Equal(0xFFFFFFFFu, BitConverter.ToUInt32(file, 0)); // an Arrow IPC stream, not an LZ4 frame
        }

        [Fact]
        public async Task NoDirectResults_PollsThenFetchesWithStartRowOffset()
        {
            var spec = new DatasetSpec { Rows = 30_000, Seed = 9, RowsPerFile = 3_000 };
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(session,
                MockSql.Select(spec, "mode=cloudfetch, links_per_fetch=4, running_polls=2"), new ExecuteOptions { DirectResults = false });

            Assert.False(outcome.UsedDirectResults);
            Assert.Equal(30_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            List<JournalEntry> rpcs = await fixture.Admin.JournalAsync(operation: outcome.OperationId, kind: "rpc");
            Assert.Equal(
                new[] { "ExecuteStatement", "GetOperationStatus", "GetOperationStatus", "GetOperationStatus", "GetResultSetMetadata", "FetchResults", "FetchResults", "FetchResults", "CloseOperation" },
                rpcs.Select(e => e.Method));
            Assert.Equal(new[] { "Running", "Running", "Finished" }, rpcs.Where(e => e.Method == "GetOperationStatus").Select(e => e.Detail));
            Assert.Equal(new long?[] { null, 12_000, 24_000 }, rpcs.Where(e => e.Method == "FetchResults").Select(e => e.StartRowOffset));
            Assert.All(rpcs.Where(e => e.Method == "FetchResults"), e => Assert.Equal(DriverLikeReader.BatchSize, e.MaxRows));
            List<JournalEntry> downloads = await fixture.Admin.JournalAsync(operation: outcome.OperationId, kind: "download");
            Assert.Equal(Enumerable.Range(0, 10).Select(i => (int?)i), downloads.Select(d => d.File));
        }

        [Fact]
        public async Task DirectResults_CappedByMaxRows_ContinueAtTheNextOffset()
        {
            var spec = new DatasetSpec { Rows = 10_000, Seed = 10, RowsPerFile = 1_000 };
            QueryOutcome outcome = await fixture.QueryAsync(spec, "mode=cloudfetch", new ExecuteOptions { DirectMaxRows = 3_000 });

            Assert.Equal(10_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            List<JournalEntry> fetches = (await fixture.Admin.JournalAsync(operation: outcome.OperationId, kind: "rpc")).Where(e => e.Method == "FetchResults").ToList();
            Assert.Equal(new long?[] { 3_000 }, fetches.Select(e => e.StartRowOffset));
        }

        [Fact]
        public async Task SelectOne_AndUseStatement_Work()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            DriverLikeReader reader = MockServerFixture.NewReader(client);

            QueryOutcome one = await reader.RunAsync(session, "SELECT 1");
            QueryOutcome use = await reader.RunAsync(session, "USE default");

            Assert.Equal(1, ((Apache.Arrow.Int32Array)Assert.Single(one.Batches).Column(0)).GetValue(0));
            Assert.Empty(use.Batches);
        }

        [Fact]
        public async Task GetInfo_CancelOperation_CloseSession_Succeed()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            TGetInfoResp name = await client.GetInfoAsync(session, TGetInfoType.DbmsName);
            TGetInfoResp version = await client.GetInfoAsync(session, TGetInfoType.DbmsVersion);
            TExecuteStatementResp executed = await client.ExecuteStatementAsync(session, "SELECT * FROM mock.small", new ExecuteOptions { DirectResults = false });
            TCancelOperationResp cancelled = await client.CancelOperationAsync(executed.OperationHandle!);
            TGetOperationStatusResp status = await client.GetOperationStatusAsync(executed.OperationHandle!);
            TCloseSessionResp closed = await client.CloseSessionAsync(session);
            TCloseSessionResp closedAgain = await client.CloseSessionAsync(session);

            Assert.Equal("Spark SQL", name.InfoValue.StringValue);
            Assert.Contains("MockDatabricks", version.InfoValue.StringValue);
            Assert.Equal(TStatusCode.Success, cancelled.Status.StatusCode);
            Assert.Equal(TOperationState.Canceled, status.OperationState);
            Assert.Equal(TStatusCode.Success, closed.Status.StatusCode);
            Assert.Equal(TStatusCode.InvalidHandle, closedAgain.Status.StatusCode);
        }

        internal static int CountFrames(byte[] file) => Protocol.Lz4FrameLayout.Read(file).Count;

        /// <summary>Runs the query, checks every value against the generator, and downloads the first file as served.</summary>
        private async Task<(QueryOutcome Outcome, byte[] FirstFile)> QueryAndDownloadFirstFileAsync(DatasetSpec spec, string settings, ExecuteOptions? options = null)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(session, MockSql.Select(spec, settings), options);
            Assert.Equal(spec.Rows, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            return (outcome, await client.DownloadAsync(outcome.Links[0].FileLink));
        }
    }
}
