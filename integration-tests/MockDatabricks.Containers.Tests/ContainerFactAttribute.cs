using System;
using System.Threading;
using System.Threading.Tasks;
using Docker.DotNet;
using Xunit;

namespace MockDatabricks.Containers.Tests;

/// <summary>
/// A fact that needs a Docker-compatible engine and the mock image. xunit 2 has no runtime skip, so the
/// prerequisites are checked when tests are discovered and a missing one becomes the Skip reason, shown
/// in the test report. With MOCK_DATABRICKS_CONTAINER_REQUIRED=1 (CI after setting the engine up) nothing
/// is skipped: a missing prerequisite then fails the test loudly instead of hiding behind a skip.
/// </summary>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class ContainerFactAttribute : FactAttribute
{
    private static readonly Lazy<string?> MissingPrerequisite = new(FindMissingPrerequisite, LazyThreadSafetyMode.ExecutionAndPublication);

    public ContainerFactAttribute()
    {
        if (!IsRequired && MissingPrerequisite.Value is string reason)
        {
            Skip = reason;
        }
    }

    internal static bool IsRequired =>
        Environment.GetEnvironmentVariable("MOCK_DATABRICKS_CONTAINER_REQUIRED") is "1" or "true" or "TRUE" or "True";

    private static string? FindMissingPrerequisite()
    {
        string image = MockServerContainers.ResolveImage(null);
        try
        {
            return Task.Run(async () =>
            {
                using DockerClient engine = EngineClient.Create();
                await engine.System.PingAsync().ConfigureAwait(false);
                try
                {
                    await engine.Images.InspectImageAsync(image).ConfigureAwait(false);
                    return (string?)null;
                }
                catch (DockerImageNotFoundException)
                {
                    return $"image '{image}' not found in the container engine: build it with scripts/build-images.sh";
                }
            }).GetAwaiter().GetResult();
        }
        catch (Exception e)
        {
            return $"no container engine: {e.Message}";
        }
    }
}
