using System;
using System.Threading.Tasks;
using Lz4Reference;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Testing;
using Xunit;

namespace MockDatabricks.Tests.Server
{
    /// <summary>One mock server for the whole collection: a child process, a container, or MOCK_DATABRICKS_URL.</summary>
    public sealed class MockServerFixture : IAsyncLifetime
    {
        private MockServerHandle? _server;

        public MockServerHandle Server => _server ?? throw new InvalidOperationException("Server not started.");

        public AdminClient Admin { get; private set; } = null!;

        public async Task InitializeAsync()
        {
            _server = await MockServerLauncher.StartAsync();
            Admin = new AdminClient(_server.BaseUrl, _server.TrustedCertificatePath);
        }

        public async Task DisposeAsync()
        {
            Admin?.Dispose();
            if (_server != null)
            {
                await _server.DisposeAsync();
            }
        }

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
