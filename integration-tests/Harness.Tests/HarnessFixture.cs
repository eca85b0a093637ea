using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using Apache.Arrow.Adbc;
using Harness.Support;
using MockDatabricks.Testing;
using Xunit;

namespace Harness.Tests
{
    /// <summary>
    /// One mock server for the whole suite (a child process, a container, or MOCK_DATABRICKS_URL: see
    /// MockServerLauncher), and the way every test opens the driver under test against it: the public ADBC API only.
    /// </summary>
    public sealed class HarnessFixture : IAsyncLifetime
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

        /// <summary>The driver's properties for this server; <paramref name="token"/> overrides the server's token.</summary>
        public Dictionary<string, string> Properties(IReadOnlyDictionary<string, string>? extra = null, string? token = null) =>
            MockConnectionProperties.For(Server.BaseUrl, token ?? Server.Token, extra, Server.TrustedCertificatePath);

        /// <summary>What an application does: <c>new DatabricksDriver().Open(properties)</c>.</summary>
        public AdbcDatabase OpenDatabase(IReadOnlyDictionary<string, string>? extra = null, string? token = null) =>
            new DatabricksDriver().Open(Properties(extra, token));
    }

    [CollectionDefinition(Name)]
    public sealed class HarnessCollection : ICollectionFixture<HarnessFixture>
    {
        public const string Name = "driver harness";
    }
}
