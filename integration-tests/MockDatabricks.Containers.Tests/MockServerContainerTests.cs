using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;
using Xunit;

namespace MockDatabricks.Containers.Tests;

// One class: xunit runs its tests one after another, so the label-based "nothing left behind" checks
// are not disturbed by a container another test has running.
public sealed class MockServerContainerTests
{
    private static readonly TimeSpan TestTimeout = TimeSpan.FromMinutes(2);

    [ContainerFact]
    public async Task StartedContainerAnswersHealthOnLoopbackAndIsGoneAfterDispose()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        MockServerContainer container = await MockServerContainer.StartAsync(string.Empty, timeout.Token);
        string id = container.ContainerId;
        try
        {
            Assert.Equal("127.0.0.1", container.BaseUrl.Host);
            Assert.InRange(container.BaseUrl.Port, 1, 65535);
            Assert.Matches("^[0-9a-f]{64}$", id);

            using var http = new HttpClient(new SocketsHttpHandler { UseProxy = false });
            using HttpResponseMessage response = await http.GetAsync(new Uri(container.BaseUrl, "health"), timeout.Token);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);

            using DockerApiClient engine = CreateEngine();
            ContainerStatus? running = await engine.InspectContainerAsync(id, MockServerContainer.ContainerPort, timeout.Token);
            Assert.NotNull(running);
            Assert.True(running.Running);
            Assert.Equal(container.BaseUrl.Port, running.HostPort);
        }
        finally
        {
            await container.DisposeAsync();
        }

        using (DockerApiClient engine = CreateEngine())
        {
            Assert.Null(await engine.InspectContainerAsync(id, MockServerContainer.ContainerPort, timeout.Token));
        }

        // A second dispose is a no-op, not an engine error for a container that no longer exists.
        await container.DisposeAsync();
    }

    [ContainerFact]
    public async Task MissingImageFailsWithTheBuildCommandAndIsNeverPulled()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        const string image = "adbc-databricks-mock:no-such-tag";

        InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => MockServerContainer.StartAsync(image, timeout.Token));

        Assert.Contains(image, error.Message, StringComparison.Ordinal);
        Assert.Contains("never pulled", error.Message, StringComparison.Ordinal);
        Assert.Contains("scripts/build-images.sh", error.Message, StringComparison.Ordinal);
        using DockerApiClient engine = CreateEngine();
        Assert.False(await engine.ImageExistsAsync(image, timeout.Token));
    }

    [ContainerFact]
    public async Task ContainerThatExitsEarlyReportsExitCodeAndLogsAndIsRemoved()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        var options = new MockContainerOptions(MockServerContainer.ResolveImage(null))
        {
            Entrypoint = new[] { "/bin/sh", "-c", "echo early-exit-marker; exit 3" },
        };

        InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => MockServerContainer.StartAsync(options, timeout.Token));

        Assert.Contains("exit code 3", error.Message, StringComparison.Ordinal);
        Assert.Contains("early-exit-marker", error.Message, StringComparison.Ordinal);
        Assert.Contains("container removed", error.Message, StringComparison.Ordinal);
        await AssertNoMockContainerLeftAsync(timeout.Token);
    }

    [ContainerFact]
    public async Task ServerThatNeverAnswersTimesOutWithLogsAndIsRemoved()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        var options = new MockContainerOptions(MockServerContainer.ResolveImage(null))
        {
            Entrypoint = new[] { "/bin/sh", "-c", "echo never-listening-marker; sleep 60" },
            HealthTimeout = TimeSpan.FromSeconds(2),
        };

        InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => MockServerContainer.StartAsync(options, timeout.Token));

        Assert.IsType<TimeoutException>(error.InnerException);
        Assert.Contains("/health did not answer 200 within 2 s", error.Message, StringComparison.Ordinal);
        Assert.Contains("never-listening-marker", error.Message, StringComparison.Ordinal);
        await AssertNoMockContainerLeftAsync(timeout.Token);
    }

    [Fact]
    public async Task EngineWithoutSocketIsUnreachableAndSaysWhere()
    {
        string path = Path.Combine(Path.GetTempPath(), $"no-engine-{Guid.NewGuid():N}.sock");

        (bool reachable, string reason) = await MockServerContainer.ProbeEngineAsync(DockerEndpoint.Parse("unix://" + path, null));

        Assert.False(reachable);
        Assert.Contains(path, reason, StringComparison.Ordinal);
        Assert.Contains("container-engine.sh", reason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SocketThatNobodyServesIsUnreachableWithTheConnectError()
    {
        string path = Path.Combine(Path.GetTempPath(), $"dead-engine-{Guid.NewGuid():N}.sock");
        // Bound but never listening: the file exists, connecting is refused.
        using var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Bind(new UnixDomainSocketEndPoint(path));
        try
        {
            (bool reachable, string reason) = await MockServerContainer.ProbeEngineAsync(DockerEndpoint.Parse("unix://" + path, null));

            Assert.False(reachable);
            Assert.Contains("no container engine answered _ping at unix://" + path, reason, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void ExplicitImageWinsOverTheDefault()
    {
        Assert.Equal("example/mock:1", MockServerContainer.ResolveImage(" example/mock:1 "));
        string expectedDefault = Environment.GetEnvironmentVariable(MockServerContainer.ImageEnvironmentVariable) is { Length: > 0 } fromEnv
            ? fromEnv.Trim()
            : MockServerContainer.DefaultImage;
        Assert.Equal(expectedDefault, MockServerContainer.ResolveImage(""));
    }

    [Fact]
    public void TokenAndCacheSettingsAreForwardedButNotBindOrPort()
    {
        var environment = new Dictionary<string, string>
        {
            ["MOCK_DATABRICKS_TOKEN"] = "secret-token",
            ["MOCK_DATABRICKS_CACHE_MB"] = "256",
            ["MOCK_DATABRICKS_BIND"] = "127.0.0.1",
            ["MOCK_DATABRICKS_PORT"] = "9999",
        };

        IReadOnlyList<string> forwarded = MockServerContainer.ForwardedEnvironment(
            name => environment.TryGetValue(name, out string? value) ? value : null);

        Assert.Equal(new[] { "MOCK_DATABRICKS_TOKEN=secret-token", "MOCK_DATABRICKS_CACHE_MB=256" }, forwarded);
        Assert.Empty(MockServerContainer.ForwardedEnvironment(_ => null));
    }

    private static DockerApiClient CreateEngine() => new(DockerEndpoint.FromEnvironment(), TimeSpan.FromSeconds(30));

    private static async Task AssertNoMockContainerLeftAsync(CancellationToken cancellationToken)
    {
        using DockerApiClient engine = CreateEngine();
        IReadOnlyList<string> left = await engine.ListContainerIdsAsync(MockServerContainer.MockLabel + "=true", cancellationToken);
        Assert.Empty(left.Select(DockerApiClient.Short));
    }
}
