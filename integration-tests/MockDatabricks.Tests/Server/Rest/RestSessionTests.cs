namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>POST/DELETE /api/2.0/sql/sessions, statements without a session, and the bearer token.</summary>
    [Collection(MockServerCollection.Name)]
    public class RestSessionTests(MockServerFixture fixture)
    {
        [Fact]
        public async Task ASession_IsCreated_Used_AndDeleted_OnceOnly()
        {
            using RestApiClient client = fixture.NewRestClient();

            string session = await client.CreateSessionAsync();
            RestStatement executed = await client.ExecuteAsync(new RestExecuteRequest { Statement = "SELECT 1", SessionId = session });
            await client.DeleteSessionAsync(session);
            RestApiException again = await Assert.ThrowsAsync<RestApiException>(() => client.DeleteSessionAsync(session));
            RestApiException useAfterDelete = await Assert.ThrowsAsync<RestApiException>(() => client.ExecuteAsync(new RestExecuteRequest { Statement = "SELECT 1", SessionId = session }));
            RestStatement statementAfterDelete = await client.GetStatementAsync(executed.StatementId);

            Assert.Matches("^[0-9a-f]{32}$", session);
            Assert.Equal("SUCCEEDED", executed.State);
            Assert.Equal(HttpStatusCode.NotFound, again.StatusCode);
            Assert.Equal(HttpStatusCode.NotFound, useAfterDelete.StatusCode);
            Assert.Equal("CLOSED", statementAfterDelete.State);
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(session: session, kind: "rest");
            Assert.Equal(new[] { "CreateSession:ok", "ExecuteStatement:ok", "DeleteSession:ok", "DeleteSession:not-found", "ExecuteStatement:not-found", "GetStatement:ok" },
                journal.OrderBy(e => e.Seq).Select(e => $"{e.Method}:{e.Outcome}"));
        }

        [Fact]
        public async Task ASessionWithoutWarehouseId_Gets400()
        {
            using RestApiClient client = fixture.NewRestClient();

            (HttpStatusCode status, string body, _) = await client.SendRawAsync(HttpMethod.Post, "/api/2.0/sql/sessions", "{\"catalog\":\"main\"}");

            Assert.Equal(HttpStatusCode.BadRequest, status);
            Assert.Equal("INVALID_PARAMETER_VALUE", JsonDocument.Parse(body).RootElement.GetProperty("error_code").GetString());
        }

        [Fact]
        public async Task AStatementWithoutSession_RunsInTheRequestsCatalog()
        {
            using RestApiClient client = fixture.NewRestClient();

            RestStatement executed = await client.ExecuteAsync(new RestExecuteRequest
            {
                Statement = "SELECT current_catalog(), current_schema()",
                Catalog = "hive_metastore",
                Schema = "default",
                Format = "JSON_ARRAY",
                Disposition = "INLINE",
            });

            Assert.Equal("SUCCEEDED", executed.State);
            Assert.Equal(new string?[] { "hive_metastore", "default" }, Assert.Single(executed.Result!.DataArray!));
        }

        [Theory]
        [InlineData(null)]
        [InlineData("not-the-token")]
        public async Task EveryCallNeedsTheBearerToken(string? token)
        {
            using var client = new RestApiClient(fixture.Server.BaseUrl, token, fixture.Server.TrustedCertificatePath);

            RestApiException error = await Assert.ThrowsAsync<RestApiException>(() => client.CreateSessionAsync());

            Assert.Equal(HttpStatusCode.Unauthorized, error.StatusCode);
            Assert.Equal("UNAUTHENTICATED", error.ErrorCode);
            Assert.Equal("Bearer", Assert.Single(error.Headers!.WwwAuthenticate).Scheme);
        }
    }
}
