using Lz4Reference;

namespace MockDatabricks.Tests.Server
{
    /// <summary>One mock server for the whole collection: a child process, a container, or MOCK_DATABRICKS_URL.</summary>
    public sealed class MockServerFixture : SharedMockServer, IAsyncLifetime
    {
        public MockDatabricksClient NewClient(string? token = null) => MockDatabricksClient.For(Server, token);

        /// <summary>One query on a client and session of its own, read the way the driver reads results.</summary>
        public Task<QueryOutcome> QueryAsync(DatasetSpec spec, string settings, ExecuteOptions? options = null) =>
            QueryAsync(Server, spec, settings, options);

        /// <summary>The same against another server (one a test starts for itself).</summary>
        public static async Task<QueryOutcome> QueryAsync(MockServerHandle server, DatasetSpec spec, string settings, ExecuteOptions? options = null)
        {
            using MockDatabricksClient client = MockDatabricksClient.For(server);
            TSessionHandle session = await OpenSessionAsync(client);
            return await NewReader(client).RunAsync(session, MockSql.Select(spec, settings), options);
        }

        public static DriverLikeReader NewReader(MockDatabricksClient client) =>
            new DriverLikeReader(client, bytes => NativeLz4.DecompressFrame(bytes));

        /// <summary>One statement, executed in a session opened for it.</summary>
        public static async Task<TExecuteStatementResp> ExecuteInNewSessionAsync(MockDatabricksClient client, string statement, ExecuteOptions? options = null) =>
            await client.ExecuteStatementAsync(await OpenSessionAsync(client), statement, options);

        /// <summary>
        /// The data set executed by CloudFetch with <paramref name="faults"/> under a tag of its own (so the journal's
        /// downloads of its links are this execution's alone), not read: the test fetches the links itself.
        /// </summary>
        public static async Task<(string Tag, List<TSparkArrowResultLink> Links)> ExecuteTaggedAsync(MockDatabricksClient client, DatasetSpec spec, string tagPrefix, string faults)
        {
            string tag = tagPrefix + "-" + Guid.NewGuid().ToString("N");
            TExecuteStatementResp executed = await ExecuteInNewSessionAsync(client, MockSql.Select(spec, $"mode=cloudfetch, tag={tag}, faults='{faults}'"));
            return (tag, DirectResultLinks(executed));
        }

        /// <summary>The CloudFetch links an execution's direct results carry (the first batch of them).</summary>
        public static List<TSparkArrowResultLink> DirectResultLinks(TExecuteStatementResp executed) =>
            executed.DirectResults!.ResultSet!.Results!.ResultLinks!;

        public static async Task<TSessionHandle> OpenSessionAsync(MockDatabricksClient client)
        {
            TOpenSessionResp response = await client.OpenSessionAsync();
            Assert.Equal(TStatusCode.Success, response.Status.StatusCode);
            return response.SessionHandle ?? throw new InvalidOperationException("no session handle");
        }
    }

    [CollectionDefinition(Name)]
    public sealed class MockServerCollection : ICollectionFixture<MockServerFixture>
    {
        public const string Name = "mock server";
    }
}
