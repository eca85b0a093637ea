using System;
using System.Linq;
using Docker.DotNet.Models;
using DotNet.Testcontainers.Builders;
using DotNet.Testcontainers.Configurations;
using DotNet.Testcontainers.Images;

namespace MockDatabricks.Containers;

/// <summary>
/// Builds a <see cref="MockDatabricksContainer"/> in the style of the testcontainers-dotnet modules:
/// <c>await using var mock = new MockDatabricksBuilder(MockDatabricksBuilder.DefaultImage).Build(); await mock.StartAsync();</c>.
/// The image is never pulled (it is built locally by scripts/build-images.sh), the server's port 8080 is
/// published on a random port of 127.0.0.1 only, and the container counts as started once <c>GET /health</c>
/// answers 200.
/// </summary>
public sealed class MockDatabricksBuilder : ContainerBuilder<MockDatabricksBuilder, MockDatabricksContainer, ContainerConfiguration>
{
    /// <summary>What scripts/build-images.sh tags.</summary>
    public const string DefaultImage = "adbc-databricks-mock:local";

    /// <summary>The port the image's entry point listens on (docker/mock-server.Dockerfile).</summary>
    public const ushort ServerPort = 8080;

    public const string DefaultToken = "mock-databricks-token";

    /// <summary>Label on every mock container, for finding leftovers by hand (<c>podman ps -a --filter label=...</c>).</summary>
    public const string MockLabel = "org.adbc-databricks.mock";

    /// <summary>The image is always named (testcontainers-dotnet's convention: no parameterless builder), e.g. <see cref="DefaultImage"/>.</summary>
    public MockDatabricksBuilder(string image)
        : this(new ContainerConfiguration())
    {
        DockerResourceConfiguration = Init().WithImage(image).DockerResourceConfiguration;
    }

    private MockDatabricksBuilder(ContainerConfiguration resourceConfiguration)
        : base(resourceConfiguration)
    {
        DockerResourceConfiguration = resourceConfiguration;
    }

    protected override ContainerConfiguration DockerResourceConfiguration { get; }

    /// <summary>The bearer token the server requires on Thrift calls (MOCK_DATABRICKS_TOKEN inside the container).</summary>
    public MockDatabricksBuilder WithToken(string token) => WithEnvironment("MOCK_DATABRICKS_TOKEN", token);

    /// <summary>Stored file bytes the server keeps in memory (MOCK_DATABRICKS_CACHE_MB).</summary>
    public MockDatabricksBuilder WithCacheMegabytes(int megabytes) => WithEnvironment("MOCK_DATABRICKS_CACHE_MB", megabytes.ToString(System.Globalization.CultureInfo.InvariantCulture));

    public override MockDatabricksContainer Build()
    {
        Validate();
        return new MockDatabricksContainer(DockerResourceConfiguration);
    }

    protected override MockDatabricksBuilder Init() =>
        base.Init()
            .WithImagePullPolicy(PullPolicy.Never)
            .WithPortBinding(ServerPort, assignRandomHostPort: true)
            .WithLabel(MockLabel, "true")
            // Testcontainers publishes on every host address; the mock has no auth on /admin, so loopback only.
            .WithCreateParameterModifier(PublishOnLoopbackOnly)
            .WithWaitStrategy(Wait.ForUnixContainer().UntilHttpRequestIsSucceeded(request => request.ForPort(ServerPort).ForPath("/health")));

    protected override MockDatabricksBuilder Clone(IResourceConfiguration<CreateContainerParameters> resourceConfiguration) =>
        Merge(DockerResourceConfiguration, new ContainerConfiguration(resourceConfiguration));

    protected override MockDatabricksBuilder Clone(IContainerConfiguration resourceConfiguration) =>
        Merge(DockerResourceConfiguration, new ContainerConfiguration(resourceConfiguration));

    protected override MockDatabricksBuilder Merge(ContainerConfiguration oldValue, ContainerConfiguration newValue) =>
        new MockDatabricksBuilder(new ContainerConfiguration(oldValue, newValue));

    private static void PublishOnLoopbackOnly(CreateContainerParameters parameters)
    {
        foreach (PortBinding binding in parameters.HostConfig?.PortBindings?.Values.SelectMany(bindings => bindings) ?? Enumerable.Empty<PortBinding>())
        {
            binding.HostIP = "127.0.0.1";
        }
    }
}
