namespace MockDatabricks.Testing
{
    /// <summary>
    /// One mock server (a child process, a container, or MOCK_DATABRICKS_URL: see MockServerLauncher) and its admin
    /// client, for a whole test collection. InitializeAsync and DisposeAsync have xunit's IAsyncLifetime signatures,
    /// so a fixture derives from this and names the interface (this project does not reference xunit).
    /// </summary>
    public abstract class SharedMockServer
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
    }
}
