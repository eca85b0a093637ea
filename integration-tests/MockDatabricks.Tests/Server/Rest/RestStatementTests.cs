namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>A statement's life: wait_timeout and polling, on_wait_timeout, cancel, close, and what bad requests get.</summary>
    [Collection(MockServerCollection.Name)]
    public class RestStatementTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 3_000, Seed = 41, RowsPerFile = 1_000 };

        [Fact]
        public async Task WaitTimeoutZero_IsPending_ThenRunningForRunningPolls_ThenSucceededWithTheResult()
        {
            using RestApiClient client = fixture.NewRestClient();
            string session = await client.CreateSessionAsync();

            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, "running_polls=2") with { SessionId = session, WaitTimeout = "0s", Disposition = "EXTERNAL_LINKS" });
            var states = new List<string?> { executed.State };
            RestStatement polled;
            do
            {
                polled = await client.GetStatementAsync(executed.StatementId);
                states.Add(polled.State);
            }
            while (polled.State == "RUNNING" && states.Count < 10);
            RestOutcome outcome = await RestSteps.NewReader(client).ReadAsync(polled);

            Assert.Null(executed.Manifest);
            Assert.Equal(new[] { "PENDING", "RUNNING", "RUNNING", "SUCCEEDED" }, states);
            Assert.Equal(3, polled.Manifest!.TotalChunkCount);
            Assert.Equal(3_000, ResultVerifier.VerifyAllValues(outcome.Batches, s_spec));
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(operation: executed.StatementId);
            Assert.Equal(new[] { "Running", "Running", "Finished" }, journal.Where(e => e.Method == "GetStatement").Select(e => e.Detail));
        }

        [Theory]
        [InlineData("CONTINUE", "RUNNING", "SUCCEEDED")]
        [InlineData("CANCEL", "CANCELED", "CANCELED")]
        public async Task AStatementThatOutlastsTheWait_FollowsOnWaitTimeout(string onWaitTimeout, string executeState, string laterState)
        {
            using RestApiClient client = fixture.NewRestClient();

            // direct=false: the statement is not done within the wait (the default 10 s); running_polls=0: done at the next poll.
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, "direct=false, running_polls=0") with
            {
                SessionId = await client.CreateSessionAsync(),
                OnWaitTimeout = onWaitTimeout,
            });
            RestStatement later = await client.GetStatementAsync(executed.StatementId);

            Assert.Equal(executeState, executed.State);
            Assert.Equal(laterState, later.State);
        }

        [Fact]
        public async Task TheMetadataHeader_AnswersAtOnce_EvenWithWaitTimeoutZero()
        {
            using RestApiClient client = fixture.NewRestClient();

            RestStatement executed = await client.ExecuteAsync(new RestExecuteRequest { Statement = "SELECT 1", SessionId = await client.CreateSessionAsync(), WaitTimeout = "0s" }, metadata: true);

            Assert.Equal("SUCCEEDED", executed.State);
            Assert.NotNull(executed.Result!.Attachment);
        }

        [Fact]
        public async Task Cancel_MakesTheStatementCanceled_AndItsResultUnavailable()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec) with { SessionId = await client.CreateSessionAsync(), WaitTimeout = "0s" });

            await client.CancelAsync(executed.StatementId);
            RestStatement after = await client.GetStatementAsync(executed.StatementId);
            RestApiException chunk = await Assert.ThrowsAsync<RestApiException>(() => client.GetChunkAsync(executed.StatementId, 0));

            Assert.Equal("CANCELED", after.State);
            Assert.Null(after.Manifest);
            Assert.Equal(HttpStatusCode.BadRequest, chunk.StatusCode);
            Assert.Equal("INVALID_STATE", chunk.ErrorCode);
        }

        [Fact]
        public async Task Close_MakesTheStatementClosed_AndItsChunksGone()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec) with { SessionId = await client.CreateSessionAsync() });

            await client.CloseAsync(executed.StatementId);
            RestStatement after = await client.GetStatementAsync(executed.StatementId);
            RestApiException chunk = await Assert.ThrowsAsync<RestApiException>(() => client.GetChunkAsync(executed.StatementId, 1));

            Assert.Equal("SUCCEEDED", executed.State);
            Assert.Equal("CLOSED", after.State);
            Assert.Null(after.Manifest);
            Assert.Equal(HttpStatusCode.NotFound, chunk.StatusCode);
            Assert.Equal("RESOURCE_DOES_NOT_EXIST", chunk.ErrorCode);
        }

        [Fact]
        public async Task CloseInDirect_AnswersClosedWithTheWholeResult()
        {
            var spec = new DatasetSpec { Rows = 50, Seed = 42 };
            using RestApiClient client = fixture.NewRestClient();

            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(spec, "mode=inline, close_in_direct=true") with { SessionId = await client.CreateSessionAsync() });
            RestOutcome outcome = await RestSteps.NewReader(client).ReadAsync(executed);
            RestStatement after = await client.GetStatementAsync(executed.StatementId);

            Assert.Equal("CLOSED", executed.State);
            Assert.Equal(1, executed.Manifest!.TotalChunkCount);
            Assert.Equal(50, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            Assert.Equal("CLOSED", after.State);
        }

        [Fact]
        public async Task AStatementTheGrammarRejects_IsFailed_WithTheSqlState()
        {
            using RestApiClient client = fixture.NewRestClient();

            RestStatement executed = await client.ExecuteAsync(new RestExecuteRequest { Statement = "SELEKT nonsense", SessionId = await client.CreateSessionAsync() });

            Assert.Equal("FAILED", executed.State);
            Assert.Equal("42601", executed.Status!.Error!.SqlState);
            Assert.StartsWith("[PARSE_SYNTAX_ERROR]", executed.Status.Error.Message);
            Assert.Null(executed.Manifest);
        }

        [Theory]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"format\":\"CSV\"}", "NOT_IMPLEMENTED")]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"format\":\"JSON_ARRAY\",\"disposition\":\"EXTERNAL_LINKS\"}", "NOT_IMPLEMENTED")]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"format\":\"PARQUET\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"disposition\":\"ATTACHED\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"wait_timeout\":\"3s\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"wait_timeout\":\"51s\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"on_wait_timeout\":\"WAIT\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"warehouse_id\":\"mock\",\"statement\":\"SELECT 1\",\"result_compression\":\"GZIP\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"statement\":\"SELECT 1\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"warehouse_id\":\"mock\"}", "INVALID_PARAMETER_VALUE")]
        [InlineData("{\"warehouse_id\":", "MALFORMED_REQUEST")]
        public async Task ARequestTheApiRefuses_Gets400_WithItsErrorCode(string body, string errorCode)
        {
            using RestApiClient client = fixture.NewRestClient();

            (HttpStatusCode status, string text, _) = await client.SendRawAsync(HttpMethod.Post, "/api/2.0/sql/statements", body);

            Assert.Equal(HttpStatusCode.BadRequest, status);
            Assert.Equal(errorCode, JsonDocument.Parse(text).RootElement.GetProperty("error_code").GetString());
        }

        [Fact]
        public async Task AnUnknownStatement_Is404_OnEveryCall()
        {
            using RestApiClient client = fixture.NewRestClient();
            string unknown = Guid.NewGuid().ToString("N");

            var errors = new[]
            {
                await Assert.ThrowsAsync<RestApiException>(() => client.GetStatementAsync(unknown)),
                await Assert.ThrowsAsync<RestApiException>(() => client.GetChunkAsync(unknown, 0)),
                await Assert.ThrowsAsync<RestApiException>(() => client.CancelAsync(unknown)),
                await Assert.ThrowsAsync<RestApiException>(() => client.CloseAsync(unknown)),
            };

            Assert.All(errors, e => Assert.Equal(HttpStatusCode.NotFound, e.StatusCode));
            Assert.All(errors, e => Assert.Equal("RESOURCE_DOES_NOT_EXIST", e.ErrorCode));
        }
    }
}
