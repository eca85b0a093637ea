using System;
using System.Threading;
using System.Threading.Tasks;
using Docker.DotNet;
using DotNet.Testcontainers.Containers;

namespace MockDatabricks.Containers;

/// <summary>
/// What the suite's fixture calls in MOCK_DATABRICKS_MODE=container: a started container configured from the
/// test process's environment, and on a failed start an exception that carries the container's logs (the
/// container is removed first, so a failure leaves nothing behind).
/// </summary>
public static class MockServerContainers
{
    public const string ImageEnvironmentVariable = "MOCK_DATABRICKS_IMAGE";

    /// <summary>
    /// Server settings a test process may override through its own environment, passed on to the container so
    /// that container mode behaves like a child process started from the same environment. Bind address and
    /// port are not forwarded: the image's command line fixes them to 0.0.0.0:8080.
    /// </summary>
    public static readonly string[] ForwardedVariables = { "MOCK_DATABRICKS_TOKEN", "MOCK_DATABRICKS_CACHE_MB" };

    public static string ResolveImage(string? image)
    {
        if (!string.IsNullOrWhiteSpace(image))
        {
            return image.Trim();
        }

        string? fromEnvironment = Environment.GetEnvironmentVariable(ImageEnvironmentVariable);
        return string.IsNullOrWhiteSpace(fromEnvironment) ? MockDatabricksBuilder.DefaultImage : fromEnvironment.Trim();
    }

    /// <summary>The builder the fixture uses: image (empty: MOCK_DATABRICKS_IMAGE, else the default) plus the forwarded variables.</summary>
    public static MockDatabricksBuilder BuilderFromEnvironment(string? image, Func<string, string?> getEnvironmentVariable)
    {
        var builder = new MockDatabricksBuilder(ResolveImage(image));
        foreach (string name in ForwardedVariables)
        {
            if (getEnvironmentVariable(name) is { Length: > 0 } value)
            {
                builder = builder.WithEnvironment(name, value);
            }
        }

        return builder;
    }

    public static Task<MockDatabricksContainer> StartAsync(string image, CancellationToken cancellationToken) =>
        StartAsync(BuilderFromEnvironment(image, Environment.GetEnvironmentVariable), cancellationToken);

    public static async Task<MockDatabricksContainer> StartAsync(MockDatabricksBuilder builder, CancellationToken cancellationToken)
    {
        MockDatabricksContainer container = builder.Build();
        try
        {
            await container.StartAsync(cancellationToken).ConfigureAwait(false);
            return container;
        }
        catch (DockerImageNotFoundException missing)
        {
            await container.DisposeAsync().ConfigureAwait(false);
            throw new InvalidOperationException(
                $"image '{container.Image.FullName}' is not in the container engine; it is never pulled. " +
                "Build it with scripts/build-images.sh (or set MOCK_DATABRICKS_IMAGE).", missing);
        }
        catch (Exception startFailure) when (!cancellationToken.IsCancellationRequested)
        {
            string logs = await LogsOfAsync(container).ConfigureAwait(false);
            await container.DisposeAsync().ConfigureAwait(false);
            throw new InvalidOperationException(
                $"mock server container did not start: {startFailure.Message}{Environment.NewLine}" +
                $"--- container logs ---{Environment.NewLine}{logs.TrimEnd()}{Environment.NewLine}--- end of logs; container removed ---",
                startFailure);
        }
    }

    private static async Task<string> LogsOfAsync(IContainer container)
    {
        try
        {
            (string stdout, string stderr) = await container.GetLogsAsync(timestampsEnabled: false).ConfigureAwait(false);
            return stdout + stderr;
        }
        catch (Exception e) when (e is DockerApiException or InvalidOperationException)
        {
            return $"(logs unavailable: {e.Message})";
        }
    }
}
