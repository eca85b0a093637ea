using Lz4Reference;

namespace MockDatabricks.Tests.Server
{
    /// <summary>One mock server for the whole collection: a child process, a container, or MOCK_DATABRICKS_URL.</summary>
    public sealed class MockServerFixture : SharedMockServer, IAsyncLifetime
    {
        public MockDatabricksClient NewClient(string? token = null) => MockDatabricksClient.For(Server, token);

        public static DriverLikeReader NewReader(MockDatabricksClient client) =>
            new DriverLikeReader(client, bytes => NativeLz4.DecompressFrame(bytes));

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
