using Lz4Reference;

namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>The Thrift path's faults behind the REST API: download faults on its links, RPC faults on its calls.</summary>
    [Collection(MockServerCollection.Name)]
    public class RestFaultTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 6_000, Seed = 61, RowsPerFile = 2_000 };

        [Theory]
        [InlineData("http500 files=0", 0, new[] { "http500", "ok" })]
        [InlineData("http503 files=2 times=2", 2, new[] { "http503", "http503", "ok" })]
        [InlineData("http404 files=1", 1, new[] { "http404", "ok" })]
        [InlineData("truncate files=0 at=0.3", 0, new[] { "truncated", "ok" })]
        [InlineData("reset files=1 at=0.5", 1, new[] { "reset", "ok" })]
        [InlineData("slow files=0 delay_ms=200", 0, new[] { "slow" })]
        [InlineData("throttle files=2 bps=2000000", 2, new[] { "throttled" })]
        [InlineData("stall files=1 delay_ms=100", 1, new[] { "stalled" })]
        public async Task DownloadFaults_HitTheLinksFiles_AndAreRetriedToEveryValue(string fault, int file, string[] outcomes)
        {
            string tag = "rest-fault-" + Guid.NewGuid().ToString("N");

            RestOutcome outcome = await fixture.QueryAsync(RestSteps.Select(s_spec, $"tag={tag}, faults='{fault}'") with { Disposition = "EXTERNAL_LINKS" });

            Assert.Equal(6_000, ResultVerifier.VerifyAllValues(outcome.Batches, s_spec));
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(tag: tag, kind: "download");
            Assert.Equal(outcomes, journal.Where(e => e.File == file).Select(e => e.Outcome));
        }

        [Fact]
        public async Task CorruptLz4_ReachesTheDecoder()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, "faults='corrupt_lz4 files=0'") with { SessionId = await client.CreateSessionAsync(), Disposition = "EXTERNAL_LINKS" });

            byte[] file = await client.DownloadAsync(executed.Result!.ExternalLinks![0]);

            Assert.Equal(executed.Result.ExternalLinks[0].ByteCount, file.Length);
            Assert.Throws<InvalidDataException>(() => NativeLz4.DecompressFrame(file));
        }

        [Fact]
        public async Task RpcHttp_OnGetResultChunk_AnswersThatStatus_Once()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, "faults='rpc_http method=GetResultChunk status=503 message=warehouse_busy'") with
            {
                SessionId = await client.CreateSessionAsync(),
                Disposition = "EXTERNAL_LINKS",
            });

            RestApiException error = await Assert.ThrowsAsync<RestApiException>(() => client.GetChunkAsync(executed.StatementId, 1));
            RestResultData retried = await client.GetChunkAsync(executed.StatementId, 1);

            Assert.Equal(HttpStatusCode.ServiceUnavailable, error.StatusCode);
            Assert.Equal("TEMPORARILY_UNAVAILABLE", error.ErrorCode);
            Assert.Equal("warehouse busy", error.ServerMessage);
            Assert.Single(retried.ExternalLinks!);
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(operation: executed.StatementId, kind: "rest");
            Assert.Equal(new[] { "http503", "ok" }, journal.Where(e => e.Method == "GetResultChunk").Select(e => e.Outcome));
        }

        [Theory]
        [InlineData("ExecuteStatement")]
        [InlineData("GetStatement")]
        [InlineData("GetOperationStatus")]
        public async Task RpcError_OnACallThatReportsState_IsAFailedStatement(string method)
        {
            using RestApiClient client = fixture.NewRestClient();

            // wait_timeout=0s: the execute answers PENDING, so GetStatement is called (the Thrift name reaches it too).
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, $"faults='rpc_error method={method} message=injected_failure'") with
            {
                SessionId = await client.CreateSessionAsync(),
                WaitTimeout = "0s",
            });
            RestStatement failed = method == "ExecuteStatement" ? executed : await client.GetStatementAsync(executed.StatementId);

            Assert.Equal("FAILED", failed.State);
            Assert.Equal("INTERNAL_ERROR", failed.Status!.Error!.ErrorCode);
            Assert.Equal("injected failure", failed.Status.Error.Message);
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(operation: executed.StatementId, kind: "rest");
            Assert.Equal("injected-error", Assert.Single(journal, e => e.Outcome != "ok").Outcome);
        }

        [Fact]
        public async Task RpcError_OnACallWithoutState_IsAnHttp500()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, "faults='rpc_error method=CancelStatement message=cancel_refused'") with { SessionId = await client.CreateSessionAsync() });

            RestApiException error = await Assert.ThrowsAsync<RestApiException>(() => client.CancelAsync(executed.StatementId));
            RestStatement after = await client.GetStatementAsync(executed.StatementId);

            Assert.Equal(HttpStatusCode.InternalServerError, error.StatusCode);
            Assert.Equal("INTERNAL_ERROR", error.ErrorCode);
            Assert.Equal("cancel refused", error.ServerMessage);
            Assert.Equal("SUCCEEDED", after.State);
        }

        [Fact]
        public async Task RpcSlow_AnswersTheCallNormally_AfterJournalingIt()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, "faults='rpc_slow method=CloseOperation delay_ms=100'") with { SessionId = await client.CreateSessionAsync() });

            await client.CloseAsync(executed.StatementId);
            RestStatement after = await client.GetStatementAsync(executed.StatementId);

            Assert.Equal("CLOSED", after.State);
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(operation: executed.StatementId, kind: "rest");
            JournalEntry close = Assert.Single(journal, e => e.Method == "CloseStatement");
            Assert.Equal(("slow", 200), (close.Outcome, close.Status));
        }

        [Fact]
        public async Task AdminRpcFault_FailsTheNextCreateSession()
        {
            using RestApiClient client = fixture.NewRestClient();
            using HttpResponseMessage added = await fixture.Admin.AddFaultAsync("rpc_http method=OpenSession status=500", tag: null);
            added.EnsureSuccessStatusCode();

            RestApiException error = await Assert.ThrowsAsync<RestApiException>(() => client.CreateSessionAsync());
            string session = await client.CreateSessionAsync();

            Assert.Equal(HttpStatusCode.InternalServerError, error.StatusCode);
            Assert.Equal("INTERNAL_ERROR", error.ErrorCode);
            Assert.Matches("^[0-9a-f]{32}$", session);
        }
    }
}
