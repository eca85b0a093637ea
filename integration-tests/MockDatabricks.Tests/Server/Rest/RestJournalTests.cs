namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>What /admin/journal shows of a REST query: its calls (kind "rest"), and its downloads under the statement id.</summary>
    [Collection(MockServerCollection.Name)]
    public class RestJournalTests(MockServerFixture fixture)
    {
        [Fact]
        public async Task AQuery_IsJournaledCallByCall_WithItsChunksAndDownloads()
        {
            var spec = new DatasetSpec { Rows = 6_000, Seed = 71, RowsPerFile = 2_000 };
            string tag = "rest-journal-" + Guid.NewGuid().ToString("N");
            using RestApiClient client = fixture.NewRestClient();
            string session = await client.CreateSessionAsync();

            RestOutcome outcome = await RestSteps.NewReader(client).RunAsync(RestSteps.Select(spec, $"tag={tag}") with
            {
                SessionId = session,
                Disposition = "EXTERNAL_LINKS",
                RowLimit = 777_777,
                ByteLimit = 999_999,
            });
            await client.CloseAsync(outcome.Statement.StatementId);
            await client.DeleteSessionAsync(session);

            string statement = outcome.Statement.StatementId;
            List<JournalEntry> calls = (await fixture.Admin.JournalAsync(session: session, kind: "rest")).OrderBy(e => e.Seq).ToList();
            Assert.Equal(new[] { "CreateSession", "ExecuteStatement", "GetResultChunk", "GetResultChunk", "CloseStatement", "DeleteSession" }, calls.Select(e => e.Method));
            Assert.All(calls, e => Assert.Equal(200, e.Status));
            Assert.All(calls, e => Assert.Equal("ok", e.Outcome));
            Assert.All(calls.Skip(1).Take(4), e => Assert.Equal(statement, e.Operation));
            Assert.All(calls.Skip(1).Take(4), e => Assert.Equal(tag, e.Tag));
            JournalEntry execute = calls[1];
            Assert.Equal(RestSteps.Select(spec, $"tag={tag}").Statement, execute.Detail);
            Assert.Equal(777_777, execute.MaxRows);
            Assert.Equal(999_999, execute.MaxBytes);
            Assert.Equal(new int?[] { 1, 2 }, calls.Where(e => e.Method == "GetResultChunk").Select(e => e.File));
            Assert.Equal(new long?[] { 2_000, 4_000 }, calls.Where(e => e.Method == "GetResultChunk").Select(e => e.StartRowOffset));
            List<JournalEntry> downloads = await fixture.Admin.JournalAsync(operation: statement, kind: "download");
            Assert.Equal(new int?[] { 0, 1, 2 }, downloads.Select(e => e.File));
            Assert.All(downloads, e => Assert.Equal(session, e.Session));
        }

        [Fact]
        public async Task ARefusedToken_IsJournaledAsHttp_WithTheCallsName()
        {
            using var client = new RestApiClient(fixture.Server.BaseUrl, "wrong", fixture.Server.TrustedCertificatePath);
            long before = (await fixture.Admin.JournalAsync()).Select(e => e.Seq).DefaultIfEmpty(0).Max();

            await Assert.ThrowsAsync<RestApiException>(() => client.GetStatementAsync("0123"));

            JournalEntry entry = Assert.Single(await fixture.Admin.JournalAsync(kind: "http"), e => e.Seq > before);
            Assert.Equal("GetStatement", entry.Method);
            Assert.Equal(401, entry.Status);
            Assert.Equal("unauthorized", entry.Outcome);
            Assert.Equal("wrong token", entry.Detail);
        }
    }
}
