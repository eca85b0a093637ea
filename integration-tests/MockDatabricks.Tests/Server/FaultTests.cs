using Lz4Reference;

namespace MockDatabricks.Tests.Server
{
    /// <summary>Download and RPC faults, as a driver-like client observes them.</summary>
    [Collection(MockServerCollection.Name)]
    public class FaultTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 8_000, Seed = 21, RowsPerFile = 2_000 };

        [Fact]
        public async Task ExpiredLink_IsRefreshedWithMaxRowsOne_AndTheFreshLinkServesTheFile()
        {
            (QueryOutcome outcome, List<JournalEntry> journal) = await RunAsync("faults='expired files=1'");

            Assert.Equal(1, outcome.Refreshes);
            TSparkArrowResultLink[] file1 = outcome.Links.Where(l => l.StartRowOffset == 2_000).ToArray();
            Assert.Equal(2, file1.Length);
            Assert.True(file1[0].ExpiryTime < DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
            Assert.True(file1[1].ExpiryTime > DateTimeOffset.UtcNow.AddMinutes(30).ToUnixTimeMilliseconds());
            Assert.NotEqual(file1[0].FileLink, file1[1].FileLink);
            JournalEntry refresh = Assert.Single(journal, e => e.Method == "FetchResults");
            Assert.Equal(1, refresh.MaxRows);
            Assert.Equal(2_000, refresh.StartRowOffset);
            Assert.Equal(4, journal.Count(e => e.Kind == "download" && e.Outcome == "ok"));
        }

        [Fact]
        public async Task ExpiredLinkUsedAnyway_Gets403_ThenRefreshWorks()
        {
            // A client that skips the expiry check meets cloud storage's answer: 403.
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await ExecuteAsync(client, "faults='expired files=0'");
            TSparkArrowResultLink stale = MockServerFixture.DirectResultLinks(executed)[0];

            var error = await Assert.ThrowsAsync<HttpRequestException>(() => client.DownloadAsync(stale.FileLink));
            TFetchResultsResp refreshed = await client.FetchResultsAsync(executed.OperationHandle!, 1, stale.StartRowOffset);
            byte[] file = await client.DownloadAsync(Assert.Single(refreshed.Results!.ResultLinks!).FileLink);

            Assert.Equal(HttpStatusCode.Forbidden, error.StatusCode);
            Assert.Equal(stale.BytesNum, file.Length);
        }

        [Fact]
        public async Task Http403OnALiveLink_IsServedOnTheRetryOfTheSameLink_WithoutARefresh()
        {
            // What the tag-21 driver needs (Harness.Tests Forbidden403OnALiveLinkIsRetried): the one-off 403 is consumed
            // and the same URL then serves the file; the driver asks for no new link while the old one is live.
            (QueryOutcome outcome, List<JournalEntry> journal) = await RunAsync("faults='http403 files=0'");

            Assert.Equal(0, outcome.Refreshes);
            Assert.Equal(
                new[] { "download:0:http403", "download:0:ok", "download:1:ok", "download:2:ok", "download:3:ok" },
                journal.Where(e => e.Method != "ExecuteStatement" && e.Method != "CloseOperation").Select(Describe));
        }

        [Fact]
        public async Task PersistentHttp403_FailsAfterThreeAttemptsOnTheSameLink_AsTheDriverReportsIt()
        {
            InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(() => RunAsync("faults='http403 files=1 times=always'"));

            Assert.Matches("^Failed to download file from http://[^ ]+/cloudfetch/[^ ]+ after 3 attempts$", error.Message);
            Assert.Equal(HttpStatusCode.Forbidden, Assert.IsType<HttpRequestException>(error.InnerException).StatusCode);
        }

        [Fact]
        public async Task Http404And503_AreRetried_ThenSucceed()
        {
            (QueryOutcome outcome, List<JournalEntry> journal) = await RunAsync("faults='http404 files=0; http503 files=2 times=2'");

            Assert.Equal(0, outcome.Refreshes);
            Assert.Equal(new[] { "http404", "ok" }, journal.Where(e => e.File == 0).Select(e => e.Outcome));
            Assert.Equal(new[] { "http503", "http503", "ok" }, journal.Where(e => e.File == 2).Select(e => e.Outcome));
        }

        [Fact]
        public async Task PersistentHttp500_IsServedToEveryAttempt_AndTheLastErrorSurfaces()
        {
            string tag = "http500-" + Guid.NewGuid().ToString("N");

            HttpRequestException error = await Assert.ThrowsAsync<HttpRequestException>(() => RunAsync($"tag={tag}, faults='http500 files=1 times=always'"));

            Assert.Equal(HttpStatusCode.InternalServerError, error.StatusCode);
            Assert.Equal("Response status code does not indicate success: 500 (Internal Server Error).", error.Message);
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(tag: tag);
            Assert.Equal(new[] { "http500", "http500", "http500" }, journal.Where(e => e.File == 1).Select(e => e.Outcome));
        }

        [Theory]
        [InlineData("truncate")]
        [InlineData("reset")]
        public async Task BrokenBodies_AreSeenByTheClient_AndRetried(string kind)
        {
            (QueryOutcome outcome, List<JournalEntry> journal) = await RunAsync($"faults='{kind} files=0 at=0.3'");

            Assert.Equal(new[] { kind == "truncate" ? "truncated" : "reset", "ok" }, journal.Where(e => e.File == 0).Select(e => e.Outcome));
            Assert.Equal(5, outcome.DownloadAttempts);
        }

        [Theory]
        [InlineData("truncate")]
        [InlineData("reset")]
        public async Task BrokenBodies_FailAPlainHttpClient(string kind)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await ExecuteAsync(client, $"faults='{kind} files=0 times=always'");
            string link = MockServerFixture.DirectResultLinks(executed)[0].FileLink;

            using var http = new HttpClient();
            HttpRequestException error = await Assert.ThrowsAsync<HttpRequestException>(async () =>
            {
                using HttpResponseMessage response = await http.GetAsync(link, HttpCompletionOption.ResponseHeadersRead);
                await response.Content.ReadAsByteArrayAsync();
            });

            // The connection is cut before the declared body is complete: a transport read error, not a short success.
            // Which stage of HttpClient reports it depends on where the cut lands relative to what it has buffered: the
            // send (headers and the first bytes) or the content copy. Both were seen: the second through podman's port
            // forwarder in container mode, which relays the bytes it has before closing.
            Assert.Contains(error.Message, new[] { "An error occurred while sending the request.", "Error while copying content to a stream." });
            IOException cause = Assert.IsAssignableFrom<IOException>(error.InnerException);
            Assert.True(
                cause.Message.StartsWith("Unable to read data from the transport connection", StringComparison.Ordinal)
                    || cause.Message.StartsWith("The response ended prematurely", StringComparison.Ordinal),
                $"unexpected transport error: {cause.GetType().Name}: {cause.Message}");
        }

        [Theory]
        [InlineData("offset", "", "LZ4F_decompress: ERROR_decompressionFailed")]
        [InlineData("magic", "", "LZ4F_decompress: ERROR_frameType_unknown")]
        [InlineData("checksum", ", lz4_content_checksum=true", "LZ4F_decompress: ERROR_contentChecksum_invalid")]
        public async Task CorruptLz4_IsRejectedByTheReferenceDecoder_NotReturnedAsRows(string mode, string options, string expectedError)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            // liblz4's own verdict, not retried: the file is served whole, it is its content that is wrong.
            InvalidDataException error = await Assert.ThrowsAsync<InvalidDataException>(() =>
                MockServerFixture.NewReader(client).RunAsync(session, MockSql.Select(s_spec, $"mode=cloudfetch, faults='corrupt_lz4 files=2 mode={mode}'{options}")));

            Assert.Equal(expectedError, error.Message);
        }

        [Fact]
        public async Task SlowAndThrottledBodies_StillDeliverEveryValue()
        {
            (QueryOutcome outcome, List<JournalEntry> journal) = await RunAsync("faults='slow files=0 delay_ms=300; throttle files=1 bps=4000000'");

            Assert.Equal(new[] { "slow" }, journal.Where(e => e.File == 0).Select(e => e.Outcome));
            Assert.Equal(new[] { "throttled" }, journal.Where(e => e.File == 1).Select(e => e.Outcome));
            Assert.Equal(s_spec.Rows, outcome.RowCount);
        }

        [Fact]
        public async Task Stall_SendsTheFirstFractionThenKeepsTheResponseOpenWhenTheClientGivesUp()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await ExecuteAsync(client, "faults='stall files=0 at=0.25 delay_ms=3000'");
            TSparkArrowResultLink link = MockServerFixture.DirectResultLinks(executed)[0];
            string operation = executed.OperationHandle!.OperationId.ToHex();

            using (var giveUp = new CancellationTokenSource(TimeSpan.FromMilliseconds(500)))
            {
                await Assert.ThrowsAnyAsync<OperationCanceledException>(() => client.DownloadAsync(link.FileLink, giveUp.Token));
            }

            // The client is gone; the server still stalls (its wait ignores the abort), having sent the first quarter.
            JournalEntry stalled = Assert.Single(await fixture.Admin.JournalAsync(operation: operation), e => e.Kind == "download");
            Assert.Equal("stalled", stalled.Outcome);
            Assert.Equal("sending", stalled.Transfer!.State);
            Assert.Equal(link.BytesNum / 4, stalled.Transfer.BytesSent);
        }

        [Fact]
        public async Task Stall_OnceStillDeliversEveryValueToAClientThatWaits()
        {
            (QueryOutcome outcome, List<JournalEntry> journal) = await RunAsync("faults='stall files=1 delay_ms=300'");

            Assert.Equal(new[] { "stalled" }, journal.Where(e => e.File == 1).Select(e => e.Outcome));
            Assert.Equal(s_spec.Rows, outcome.RowCount);
        }

        [Fact]
        public async Task RpcSlow_JournalsTheCallFirstSoWhatTheClientDoesMeanwhileComesAfterIt()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await ExecuteAsync(client, "faults='rpc_slow method=CloseOperation delay_ms=1500'");
            string operation = executed.OperationHandle!.OperationId.ToHex();

            Task<TCloseOperationResp> closing = client.CloseOperationAsync(executed.OperationHandle!);
            while (!(await fixture.Admin.JournalAsync(operation: operation)).Any(e => e.Method == "CloseOperation"))
            {
                Assert.False(closing.IsCompleted, "CloseOperation was answered before the delay");
                await Task.Delay(20);
            }

            await client.DownloadAsync(MockServerFixture.DirectResultLinks(executed)[0].FileLink);
            Assert.Equal(TStatusCode.Success, (await closing).Status.StatusCode);

            List<JournalEntry> journal = await fixture.Admin.JournalAsync(operation: operation);
            JournalEntry close = Assert.Single(journal, e => e.Method == "CloseOperation");
            JournalEntry download = Assert.Single(journal, e => e.Kind == "download");
            Assert.Equal("slow", close.Outcome);
            Assert.True(download.Seq > close.Seq, "the download made during the slow call is journaled after it");
        }

        [Fact]
        public async Task RpcError_OnMetadata_SurfacesAsAThriftError()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            ThriftStatusException error = await Assert.ThrowsAsync<ThriftStatusException>(() =>
                MockServerFixture.NewReader(client).RunAsync(session, MockSql.Select(s_spec, "faults='rpc_error method=FetchResults message=warehouse_is_sad'"), new ExecuteOptions { DirectResults = false }));

            Assert.Equal(TStatusCode.Error, error.Status.StatusCode);
            Assert.Equal("warehouse is sad", error.Status.ErrorMessage);
        }

        [Fact]
        public async Task AdminFaults_OneShotIsConsumed_PersistentStaysUntilCleared()
        {
            string tag = "admin-" + Guid.NewGuid().ToString("N");
            Assert.Equal(HttpStatusCode.Created, (await fixture.Admin.AddFaultAsync("http503 files=0", tag: tag)).StatusCode);
            Assert.Equal(HttpStatusCode.BadRequest, (await fixture.Admin.AddFaultAsync("no_such_fault")).StatusCode);

            (_, List<JournalEntry> first) = await RunAsync($"tag={tag}");
            (_, List<JournalEntry> second) = await RunAsync($"tag={tag}");

            Assert.Equal(new[] { "http503", "ok" }, first.Where(e => e.File == 0).Select(e => e.Outcome));
            Assert.Equal(new[] { "ok" }, second.Where(e => e.File == 0).Select(e => e.Outcome));

            await fixture.Admin.AddFaultAsync("http503 files=3", persistent: true, tag: tag);
            HttpRequestException persistent = await Assert.ThrowsAsync<HttpRequestException>(() => RunAsync($"tag={tag}"));
            Assert.Equal(HttpStatusCode.ServiceUnavailable, persistent.StatusCode);
            await fixture.Admin.ClearFaultsAsync();
            (QueryOutcome recovered, _) = await RunAsync($"tag={tag}");
            Assert.Equal(s_spec.Rows, recovered.RowCount);
        }

        private async Task<(QueryOutcome Outcome, List<JournalEntry> Journal)> RunAsync(string options)
        {
            QueryOutcome outcome = await fixture.QueryAsync(s_spec, "mode=cloudfetch, " + options);
            Assert.Equal(s_spec.Rows, ResultVerifier.VerifyAllValues(outcome.Batches, s_spec));
            return (outcome, await fixture.Admin.JournalAsync(operation: outcome.OperationId));
        }

        /// <summary>The same statement executed but not read: the test fetches, refreshes or closes what it needs itself.</summary>
        private static Task<TExecuteStatementResp> ExecuteAsync(MockDatabricksClient client, string options) =>
            MockServerFixture.ExecuteInNewSessionAsync(client, MockSql.Select(s_spec, "mode=cloudfetch, " + options));

        private static string Describe(JournalEntry entry) =>
            entry.Kind == "download" ? $"download:{entry.File}:{entry.Outcome}" : $"rpc:{entry.Method}";
    }
}
