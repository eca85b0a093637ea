namespace MockDatabricks.Testing
{
    public enum MockServerMode
    {
        /// <summary>MOCK_DATABRICKS_URL points at a server someone else runs (docker compose, a shell).</summary>
        Url,

        /// <summary>A container started through MockDatabricks.Containers (Testcontainers-style).</summary>
        Container,

        /// <summary>A child process: dotnet MockDatabricks.Server.dll --port 0.</summary>
        Process,
    }

    /// <summary>A running mock server. Disposing stops it if this handle started it.</summary>
    public sealed class MockServerHandle : IAsyncDisposable
    {
        private readonly Func<ValueTask>? _stop;

        public MockServerHandle(Uri baseUrl, string token, MockServerMode mode, Func<ValueTask>? stop)
        {
            BaseUrlText = baseUrl.GetLeftPart(UriPartial.Authority) + baseUrl.AbsolutePath.TrimEnd('/');
            BaseUrl = new Uri(BaseUrlText);
            Token = token;
            Mode = mode;
            _stop = stop;
        }

        public Uri BaseUrl { get; }

        /// <summary>e.g. http://127.0.0.1:41201 (no trailing slash, unlike Uri.ToString()).</summary>
        public string BaseUrlText { get; }

        public string Token { get; }

        public MockServerMode Mode { get; }

        /// <summary>The PEM of the certificate an https mock generated (clients trust exactly this); null over http.</summary>
        public string? TrustedCertificatePath { get; init; }

        /// <summary>The server's process id in process mode (for CPU measurements), else null.</summary>
        public int? ProcessId { get; init; }

        /// <summary>The Thrift endpoint for a warehouse id: the value of the driver's "uri" property.</summary>
        public Uri WarehouseUrl(string warehouse = "mock") => new Uri($"{BaseUrlText}/sql/1.0/warehouses/{warehouse}");

        public ValueTask DisposeAsync() => _stop?.Invoke() ?? ValueTask.CompletedTask;
    }
}
