namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>GET /api/2.0/sql/statements/{id}/result/chunks/{n}: any chunk in any order, fresh links, expiry and refresh.</summary>
    [Collection(MockServerCollection.Name)]
    public class RestChunkTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 8_000, Seed = 51, RowsPerFile = 2_000 };

        [Fact]
        public async Task Chunks_AreServedInAnyOrder_WithTheirRowsAndNextChunk()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec) with { SessionId = await client.CreateSessionAsync(), Disposition = "EXTERNAL_LINKS" });

            RestResultData third = await client.GetChunkAsync(executed.StatementId, 3);
            RestResultData second = await client.GetChunkAsync(executed.StatementId, 1);
            RestApiException beyond = await Assert.ThrowsAsync<RestApiException>(() => client.GetChunkAsync(executed.StatementId, 4));

            Assert.Equal(3, third.ChunkIndex);
            Assert.Equal(6_000, third.RowOffset);
            Assert.Null(third.NextChunkIndex);
            Assert.Null(third.NextChunkInternalLink);
            Assert.Equal(1, second.ChunkIndex);
            Assert.Equal(2_000, second.RowOffset);
            Assert.Equal(2_000, second.RowCount);
            Assert.Equal(2, second.NextChunkIndex);
            Assert.Equal($"/api/2.0/sql/statements/{executed.StatementId}/result/chunks/2", second.NextChunkInternalLink);
            Assert.Equal(second.ByteCount, Assert.Single(second.ExternalLinks!).ByteCount);
            Assert.Equal(HttpStatusCode.BadRequest, beyond.StatusCode);
            Assert.Equal("INVALID_PARAMETER_VALUE", beyond.ErrorCode);
        }

        [Fact]
        public async Task FetchingAChunkAgain_IssuesAFreshLinkToTheSameFile()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec) with { SessionId = await client.CreateSessionAsync(), Disposition = "EXTERNAL_LINKS" });

            RestExternalLink first = Assert.Single((await client.GetChunkAsync(executed.StatementId, 2)).ExternalLinks!);
            RestExternalLink again = Assert.Single((await client.GetChunkAsync(executed.StatementId, 2)).ExternalLinks!);

            Assert.NotEqual(first.ExternalLinkUrl, again.ExternalLinkUrl);
            Assert.Equal(first.RowOffset, again.RowOffset);
            Assert.Equal(await client.DownloadAsync(first), await client.DownloadAsync(again));
        }

        [Fact]
        public async Task AnExpiredLink_Gets403_AndTheChunkEndpointRefreshesIt()
        {
            using RestApiClient client = fixture.NewRestClient();
            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(s_spec, "faults='expired files=1'") with { SessionId = await client.CreateSessionAsync(), Disposition = "EXTERNAL_LINKS" });

            RestExternalLink stale = Assert.Single((await client.GetChunkAsync(executed.StatementId, 1)).ExternalLinks!);
            HttpRequestException refused = await Assert.ThrowsAsync<HttpRequestException>(() => client.DownloadAsync(stale));
            RestExternalLink fresh = Assert.Single((await client.GetChunkAsync(executed.StatementId, 1)).ExternalLinks!);
            byte[] file = await client.DownloadAsync(fresh);

            Assert.True(ExpiresAt(stale) < DateTime.UtcNow);
            Assert.Equal(HttpStatusCode.Forbidden, refused.StatusCode);
            Assert.True(ExpiresAt(fresh) > DateTime.UtcNow.AddMinutes(30));
            Assert.Equal(fresh.ByteCount, file.Length);
        }

        [Theory]
        [InlineData("expired files=1", 1)]
        [InlineData("expired mode=soon files=0", 0)]
        public async Task TheDriversReading_RefreshesLinksThatExpire_AndGetsEveryValue(string fault, int chunk)
        {
            RestOutcome outcome = await fixture.QueryAsync(RestSteps.Select(s_spec, $"faults='{fault}'") with { Disposition = "EXTERNAL_LINKS" });

            Assert.Equal(1, outcome.Refreshes);
            RestExternalLink[] links = outcome.Links.Where(l => l.ChunkIndex == chunk).ToArray();
            Assert.Equal(2, links.Length);
            Assert.True(ExpiresAt(links[0]) < DateTime.UtcNow.AddSeconds(60));
            Assert.True(ExpiresAt(links[1]) > DateTime.UtcNow.AddMinutes(30));
            Assert.Equal(8_000, ResultVerifier.VerifyAllValues(outcome.Batches, s_spec));
            List<JournalEntry> journal = await fixture.Admin.JournalAsync(operation: outcome.Statement.StatementId);
            Assert.Equal(4, journal.Count(e => e.Kind == "download" && e.Outcome == "ok"));
            Assert.DoesNotContain(journal, e => e.Outcome == "expired-link");
        }

        private static DateTime ExpiresAt(RestExternalLink link) =>
            DateTime.Parse(link.Expiration!, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind).ToUniversalTime();
    }
}
