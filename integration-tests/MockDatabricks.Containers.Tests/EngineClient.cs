using System;
using Docker.DotNet;
using DotNet.Testcontainers.Configurations;

namespace MockDatabricks.Containers.Tests;

/// <summary>A Docker API client for the engine Testcontainers resolved (DOCKER_HOST etc.), to check what the fixture did.</summary>
internal static class EngineClient
{
    /// <summary>The engine Testcontainers would use; <see cref="DotNet.Testcontainers.Builders.DockerUnavailableException"/> or null when there is none.</summary>
    public static DockerClient Create()
    {
        IDockerEndpointAuthenticationConfiguration endpoint = TestcontainersSettings.OS.DockerEndpointAuthConfig
            ?? throw new InvalidOperationException("Testcontainers found no container engine (set DOCKER_HOST, or run: eval \"$(scripts/container-engine.sh start)\")");
        return endpoint.GetDockerClientBuilder(Guid.Empty).Build();
    }
}
