using System;
using DotNet.Testcontainers.Configurations;
using DotNet.Testcontainers.Containers;

namespace MockDatabricks.Containers;

/// <summary>A started mock Databricks server container; dispose it to stop and remove the container.</summary>
public sealed class MockDatabricksContainer : DockerContainer
{
    private readonly IContainerConfiguration _configuration;

    public MockDatabricksContainer(IContainerConfiguration configuration)
        : base(configuration)
    {
        _configuration = configuration;
    }

    /// <summary>Where the server answers from this process, e.g. http://127.0.0.1:41234/.</summary>
    public Uri BaseUrl => new UriBuilder(Uri.UriSchemeHttp, Hostname, GetMappedPublicPort(MockDatabricksBuilder.ServerPort)).Uri;

    /// <summary>The driver's <c>uri</c> property: the Thrift endpoint of a warehouse.</summary>
    public Uri WarehouseUrl => new Uri(BaseUrl, "sql/1.0/warehouses/mock");

    /// <summary>The bearer token the server was started with.</summary>
    public string Token => _configuration.Environments.TryGetValue("MOCK_DATABRICKS_TOKEN", out string? token) && token.Length > 0
        ? token
        : MockDatabricksBuilder.DefaultToken;
}
