using System;
using System.Collections.Generic;
using Xunit;

namespace MockDatabricks.Containers.Tests;

public sealed class DockerEndpointTests
{
    [Fact]
    public void UnixDockerHostSelectsThatSocketAndLoopbackPorts()
    {
        DockerEndpoint endpoint = Resolve(new() { ["DOCKER_HOST"] = "unix:///run/example-engine/podman.sock" }, noSockets: true);

        Assert.Equal("/run/example-engine/podman.sock", endpoint.SocketPath);
        Assert.Equal("unix:///run/example-engine/podman.sock", endpoint.Description);
        Assert.Equal("127.0.0.1", endpoint.PublishedPortHost);
        Assert.True(endpoint.PublishesOnLoopback);
    }

    [Fact]
    public void TcpDockerHostTalksHttpToThatHostAndReachesPortsThere()
    {
        DockerEndpoint endpoint = Resolve(new() { ["DOCKER_HOST"] = "tcp://127.0.0.2:2375" }, noSockets: true);

        Assert.Null(endpoint.SocketPath);
        Assert.Equal(new Uri("http://127.0.0.2:2375/"), endpoint.BaseAddress);
        Assert.Equal("127.0.0.2", endpoint.PublishedPortHost);
        Assert.True(endpoint.PublishesOnLoopback);
    }

    [Fact]
    public void RemoteTcpEngineDoesNotBindPortsToLoopback()
    {
        DockerEndpoint endpoint = Resolve(new() { ["DOCKER_HOST"] = "tcp://docker-host.example:2375" }, noSockets: true);

        Assert.Equal("docker-host.example", endpoint.PublishedPortHost);
        Assert.False(endpoint.PublishesOnLoopback);
    }

    [Fact]
    public void HostOverrideWinsForPublishedPorts()
    {
        DockerEndpoint endpoint = Resolve(
            new() { ["DOCKER_HOST"] = "unix:///var/run/docker.sock", ["TESTCONTAINERS_HOST_OVERRIDE"] = "localhost" },
            noSockets: true);

        Assert.Equal("localhost", endpoint.PublishedPortHost);
        Assert.True(endpoint.PublishesOnLoopback);
    }

    [Fact]
    public void WithoutDockerHostTheDockerSocketComesBeforePodmans()
    {
        DockerEndpoint both = DockerEndpoint.Resolve(_ => null, _ => true);
        DockerEndpoint podmanOnly = DockerEndpoint.Resolve(_ => null, path => path == DockerEndpoint.PodmanSocketPath);
        DockerEndpoint none = DockerEndpoint.Resolve(_ => null, _ => false);

        Assert.Equal(DockerEndpoint.DockerSocketPath, both.SocketPath);
        Assert.Equal(DockerEndpoint.PodmanSocketPath, podmanOnly.SocketPath);
        Assert.Equal(DockerEndpoint.DockerSocketPath, none.SocketPath);
    }

    [Theory]
    [InlineData("ssh://user@host")]
    [InlineData("npipe:////./pipe/docker_engine")]
    [InlineData("unix://relative.sock")]
    public void UnsupportedDockerHostIsRejectedWithItsValue(string dockerHost)
    {
        ArgumentException error = Assert.Throws<ArgumentException>(() => DockerEndpoint.Parse(dockerHost, null));

        Assert.Contains(dockerHost, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("127.0.0.1", true)]
    [InlineData("::1", true)]
    [InlineData("[::1]", true)]
    [InlineData("localhost", true)]
    [InlineData("10.0.0.5", false)]
    [InlineData("docker-host.example", false)]
    public void LoopbackHostsAreRecognised(string host, bool expected)
    {
        Assert.Equal(expected, DockerEndpoint.IsLoopbackHost(host));
    }

    [Fact]
    public void ImageNamesKeepTheirSlashesWhenEscaped()
    {
        Assert.Equal("localhost/adbc-databricks-mock%3Alocal", DockerApiClient.EscapeName("localhost/adbc-databricks-mock:local"));
    }

    private static DockerEndpoint Resolve(Dictionary<string, string> environment, bool noSockets)
    {
        return DockerEndpoint.Resolve(
            name => environment.TryGetValue(name, out string? value) ? value : null,
            _ => !noSockets);
    }
}
