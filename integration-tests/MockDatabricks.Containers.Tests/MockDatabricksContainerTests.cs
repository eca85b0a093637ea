using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Threading;
using System.Threading.Tasks;
using Docker.DotNet;
using Docker.DotNet.Models;
using Xunit;

namespace MockDatabricks.Containers.Tests;

// One class: xunit runs its tests one after another, so the label-based "nothing left behind" checks
// are not disturbed by a container another test has running.
public sealed class MockDatabricksContainerTests
{
    private static readonly TimeSpan TestTimeout = TimeSpan.FromMinutes(2);

    [ContainerFact]
    public async Task StartedContainerAnswersHealthOnLoopbackOnly_AndDisposeRemovesIt()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        MockDatabricksContainer container = await MockServerContainers.StartAsync(string.Empty, timeout.Token);
        string id = container.Id;
        using DockerClient engine = EngineClient.Create();
        try
        {
            Assert.Equal("127.0.0.1", container.BaseUrl.Host);
            Assert.Equal(new Uri(container.BaseUrl, "sql/1.0/warehouses/mock"), container.WarehouseUrl);

            using var http = new HttpClient(new SocketsHttpHandler { UseProxy = false });
            using HttpResponseMessage response = await http.GetAsync(new Uri(container.BaseUrl, "health"), timeout.Token);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);

            ContainerInspectResponse running = await engine.Containers.InspectContainerAsync(id, timeout.Token);
            Assert.True(running.State!.Running);
            PortBinding published = Assert.Single(running.HostConfig!.PortBindings!["8080/tcp"]);
            Assert.Equal("127.0.0.1", published.HostIP);
            Assert.Equal("true", running.Config!.Labels![MockDatabricksBuilder.MockLabel]);
        }
        finally
        {
            await container.DisposeAsync();
        }

        await Assert.ThrowsAsync<DockerContainerNotFoundException>(() => engine.Containers.InspectContainerAsync(id, timeout.Token));
    }

    [ContainerFact]
    public async Task TokenGivenToTheBuilderIsTheOneTheServerRequires()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        await using MockDatabricksContainer container = await MockServerContainers.StartAsync(
            new MockDatabricksBuilder(MockServerContainers.ResolveImage(null)).WithToken("container-test-token"), timeout.Token);
        using var http = new HttpClient(new SocketsHttpHandler { UseProxy = false });

        Assert.Equal("container-test-token", container.Token);
        // Not a Thrift message: 400 once the token is accepted, 401 before the body is even looked at.
        Assert.Equal(HttpStatusCode.BadRequest, await PostGarbageAsync(http, container.WarehouseUrl, "container-test-token", timeout.Token));
        Assert.Equal(HttpStatusCode.Unauthorized, await PostGarbageAsync(http, container.WarehouseUrl, MockDatabricksBuilder.DefaultToken, timeout.Token));
    }

    [ContainerFact]
    public async Task MissingImageFailsWithTheBuildCommandAndIsNeverPulled()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        const string image = "adbc-databricks-mock:no-such-tag";

        InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => MockServerContainers.StartAsync(image, timeout.Token));

        Assert.Contains(image, error.Message, StringComparison.Ordinal);
        Assert.Contains("never pulled", error.Message, StringComparison.Ordinal);
        Assert.Contains("scripts/build-images.sh", error.Message, StringComparison.Ordinal);
        using DockerClient engine = EngineClient.Create();
        await Assert.ThrowsAsync<DockerImageNotFoundException>(() => engine.Images.InspectImageAsync(image, timeout.Token));
        await AssertNoMockContainerLeftAsync(engine, timeout.Token);
    }

    [ContainerFact]
    public async Task ContainerThatExitsEarlyFailsWithItsLogsAndIsRemoved()
    {
        using var timeout = new CancellationTokenSource(TestTimeout);
        MockDatabricksBuilder builder = new MockDatabricksBuilder(MockServerContainers.ResolveImage(null))
            .WithEntrypoint("/bin/sh", "-c", "echo early-exit-marker; exit 3");

        InvalidOperationException error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => MockServerContainers.StartAsync(builder, timeout.Token));

        Assert.StartsWith("mock server container did not start: ", error.Message, StringComparison.Ordinal);
        Assert.Contains("early-exit-marker", error.Message, StringComparison.Ordinal);
        Assert.EndsWith("--- end of logs; container removed ---", error.Message, StringComparison.Ordinal);
        using DockerClient engine = EngineClient.Create();
        await AssertNoMockContainerLeftAsync(engine, timeout.Token);
    }

    [Fact]
    public void ExplicitImageWinsOverTheEnvironmentAndTheDefault()
    {
        Assert.Equal("example/mock:1", MockServerContainers.ResolveImage(" example/mock:1 "));
        string expectedDefault = Environment.GetEnvironmentVariable(MockServerContainers.ImageEnvironmentVariable) is { Length: > 0 } fromEnv
            ? fromEnv.Trim()
            : MockDatabricksBuilder.DefaultImage;
        Assert.Equal(expectedDefault, MockServerContainers.ResolveImage(""));
    }

    private static async Task<HttpStatusCode> PostGarbageAsync(HttpClient http, Uri warehouse, string token, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, warehouse) { Content = new ByteArrayContent(new byte[] { 1, 2, 3 }) };
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        using HttpResponseMessage response = await http.SendAsync(request, cancellationToken);
        return response.StatusCode;
    }

    private static async Task AssertNoMockContainerLeftAsync(DockerClient engine, CancellationToken cancellationToken)
    {
        IList<ContainerListResponse> left = await engine.Containers.ListContainersAsync(new ContainersListParameters
        {
            All = true,
            Filters = new Dictionary<string, IDictionary<string, bool>> { ["label"] = new Dictionary<string, bool> { [MockDatabricksBuilder.MockLabel + "=true"] = true } },
        }, cancellationToken);
        Assert.Empty(left.Select(container => container.ID));
    }
}
