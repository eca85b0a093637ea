namespace Harness.Tests
{
    /// <summary>
    /// One mock server for the whole suite (a child process, a container, or MOCK_DATABRICKS_URL: see
    /// MockServerLauncher), and the way every test opens the driver under test against it: the public ADBC API only.
    /// </summary>
    public sealed class HarnessFixture : SharedMockServer, IAsyncLifetime
    {
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
