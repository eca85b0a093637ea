using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Net;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace MockDatabricks.Containers;

/// <summary>
/// The mock Databricks server running in a container, reachable at <see cref="BaseUrl"/> on a random
/// loopback port; disposing it kills and removes the container. Works against Docker or podman's
/// Docker-compatible API (scripts/container-engine.sh), with images built locally
/// (scripts/build-images.sh): nothing is ever pulled, and there is no reaper container (Ryuk), so
/// dispose it. Containers carry the label <c>org.adbc-databricks.mock=true</c> for manual cleanup.
/// </summary>
public sealed class MockServerContainer : IAsyncDisposable
{
    internal const string DefaultImage = "adbc-databricks-mock:local";
    internal const string ImageEnvironmentVariable = "MOCK_DATABRICKS_IMAGE";
    internal const string ContainerPort = "8080/tcp";
    internal const string MockLabel = "org.adbc-databricks.mock";

    private static readonly TimeSpan EngineRequestTimeout = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan DefaultHealthTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan PingTimeout = TimeSpan.FromSeconds(3);

    private readonly DockerApiClient engine;
    private int disposed;

    private MockServerContainer(DockerApiClient engine, string containerId, Uri baseUrl)
    {
        this.engine = engine;
        ContainerId = containerId;
        BaseUrl = baseUrl;
    }

    /// <summary>Where the server answers from this process, e.g. http://127.0.0.1:41234/.</summary>
    public Uri BaseUrl { get; }

    public string ContainerId { get; }

    /// <summary>
    /// Whether a Docker-compatible engine answers <c>_ping</c> at DOCKER_HOST (or the default sockets).
    /// <paramref name="reason"/> names the endpoint and either the engine or why it did not answer, so a
    /// skipped test can say exactly what is missing.
    /// </summary>
    public static bool IsEngineReachable(out string reason)
    {
        (bool reachable, string message) = Task.Run(() => ProbeEngineAsync()).GetAwaiter().GetResult();
        reason = message;
        return reachable;
    }

    /// <summary>
    /// Creates and starts a container from <paramref name="image"/> (empty: MOCK_DATABRICKS_IMAGE, else
    /// adbc-databricks-mock:local), publishes its port 8080 on a random port and waits until
    /// <c>GET /health</c> answers 200. On failure the container is removed and the exception carries its logs.
    /// </summary>
    public static Task<MockServerContainer> StartAsync(string image, CancellationToken cancellationToken)
    {
        var options = new MockContainerOptions(ResolveImage(image))
        {
            Environment = ForwardedEnvironment(System.Environment.GetEnvironmentVariable),
        };
        return StartAsync(options, cancellationToken);
    }

    /// <summary>
    /// The server settings a test process may override through its own environment, passed on to the
    /// container so that container mode behaves like a child process started from the same environment
    /// (the test's client uses MOCK_DATABRICKS_TOKEN too). Bind address and port are not forwarded: the
    /// image's command line fixes them to 0.0.0.0:8080.
    /// </summary>
    internal static IReadOnlyList<string> ForwardedEnvironment(Func<string, string?> getEnvironmentVariable)
    {
        var forwarded = new List<string>();
        foreach (string name in ForwardedVariables)
        {
            if (getEnvironmentVariable(name) is { Length: > 0 } value)
            {
                forwarded.Add($"{name}={value}");
            }
        }

        return forwarded;
    }

    internal static readonly string[] ForwardedVariables = { "MOCK_DATABRICKS_TOKEN", "MOCK_DATABRICKS_CACHE_MB" };

    internal static string ResolveImage(string? image)
    {
        if (!string.IsNullOrWhiteSpace(image))
        {
            return image.Trim();
        }

        string? fromEnvironment = Environment.GetEnvironmentVariable(ImageEnvironmentVariable);
        return string.IsNullOrWhiteSpace(fromEnvironment) ? DefaultImage : fromEnvironment.Trim();
    }

    internal static Task<(bool Reachable, string Reason)> ProbeEngineAsync()
    {
        DockerEndpoint endpoint;
        try
        {
            endpoint = DockerEndpoint.FromEnvironment();
        }
        catch (ArgumentException e)
        {
            return Task.FromResult((false, e.Message));
        }

        return ProbeEngineAsync(endpoint);
    }

    internal static async Task<(bool Reachable, string Reason)> ProbeEngineAsync(DockerEndpoint endpoint)
    {
        if (endpoint.SocketPath is not null && !System.IO.File.Exists(endpoint.SocketPath))
        {
            return (false, $"no container engine: socket {endpoint.Description} does not exist " +
                "(set DOCKER_HOST, or run: eval \"$(scripts/container-engine.sh start)\")");
        }

        using var client = new DockerApiClient(endpoint, PingTimeout);
        try
        {
            string engineName = await client.PingAsync(CancellationToken.None).ConfigureAwait(false);
            return (true, $"{engineName} at {endpoint.Description}");
        }
        catch (Exception e) when (e is HttpRequestException or DockerApiException or TaskCanceledException or System.Text.Json.JsonException)
        {
            return (false, $"no container engine answered _ping at {endpoint.Description}: {e.Message}");
        }
    }

    internal static async Task<MockServerContainer> StartAsync(MockContainerOptions options, CancellationToken cancellationToken)
    {
        DockerEndpoint endpoint = DockerEndpoint.FromEnvironment();
        var engine = new DockerApiClient(endpoint, EngineRequestTimeout);
        string? containerId = null;
        try
        {
            if (!await engine.ImageExistsAsync(options.Image, cancellationToken).ConfigureAwait(false))
            {
                throw new InvalidOperationException(
                    $"image '{options.Image}' is not in the engine at {endpoint.Description}; it is never pulled. " +
                    "Build it with scripts/build-images.sh (or set MOCK_DATABRICKS_IMAGE).");
            }

            var spec = new ContainerSpec(
                options.Image,
                "adbc-dbx-mock-" + Guid.NewGuid().ToString("N").Substring(0, 12),
                options.Environment,
                new Dictionary<string, string> { [MockLabel] = "true" },
                ContainerPort,
                // Loopback when the engine is on this machine; a remote engine's ports must be reachable from here.
                endpoint.PublishesOnLoopback ? "127.0.0.1" : "",
                options.Entrypoint,
                options.Command);
            containerId = await engine.CreateContainerAsync(spec, cancellationToken).ConfigureAwait(false);
            await engine.StartContainerAsync(containerId, cancellationToken).ConfigureAwait(false);
            Uri baseUrl = await WaitUntilHealthyAsync(engine, containerId, options.HealthTimeout ?? DefaultHealthTimeout, cancellationToken)
                .ConfigureAwait(false);
            return new MockServerContainer(engine, containerId, baseUrl);
        }
        catch (Exception startFailure)
        {
            string message = startFailure.Message;
            if (containerId is not null)
            {
                message += Environment.NewLine + await DescribeAndRemoveAsync(engine, containerId).ConfigureAwait(false);
            }

            engine.Dispose();
            if (startFailure is OperationCanceledException && cancellationToken.IsCancellationRequested)
            {
                throw;
            }

            throw new InvalidOperationException($"mock server container did not start: {message}", startFailure);
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref disposed, 1) != 0)
        {
            return;
        }

        try
        {
            await engine.RemoveContainerAsync(ContainerId, CancellationToken.None).ConfigureAwait(false);
        }
        finally
        {
            engine.Dispose();
        }
    }

    private static async Task<Uri> WaitUntilHealthyAsync(DockerApiClient engine, string containerId, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        using var http = new HttpClient(new SocketsHttpHandler { UseProxy = false }) { Timeout = TimeSpan.FromSeconds(2) };
        Uri? baseUrl = null;
        string lastProblem = "no attempt made";
        // Bounded twice over: by the deadline and by an attempt count, whichever comes first.
        int maxAttempts = (int)(timeout.TotalMilliseconds / 100) + 1;
        for (int attempt = 0; attempt < maxAttempts && clock.Elapsed < timeout; attempt++)
        {
            ContainerStatus status = await engine.InspectContainerAsync(containerId, ContainerPort, cancellationToken).ConfigureAwait(false)
                ?? throw new InvalidOperationException($"container {DockerApiClient.Short(containerId)} disappeared while starting");
            if (!status.Running)
            {
                throw new InvalidOperationException(
                    $"container {DockerApiClient.Short(containerId)} stopped before /health answered (status {status.Status}, exit code {status.ExitCode})");
            }

            if (baseUrl is null && status.HostPort is int port)
            {
                baseUrl = new Uri($"http://{FormatHost(engine.Endpoint.PublishedPortHost)}:{port}/");
            }

            if (baseUrl is not null)
            {
                try
                {
                    using HttpResponseMessage response = await http.GetAsync(new Uri(baseUrl, "health"), cancellationToken).ConfigureAwait(false);
                    if (response.StatusCode == HttpStatusCode.OK)
                    {
                        return baseUrl;
                    }

                    lastProblem = $"GET {baseUrl}health answered {(int)response.StatusCode}";
                }
                catch (Exception e) when (e is HttpRequestException || (e is TaskCanceledException && !cancellationToken.IsCancellationRequested))
                {
                    lastProblem = $"GET {baseUrl}health failed: {e.Message}";
                }
            }
            else
            {
                lastProblem = $"the engine reports no host port for {ContainerPort}";
            }

            await Task.Delay(TimeSpan.FromMilliseconds(250), cancellationToken).ConfigureAwait(false);
        }

        throw new TimeoutException($"/health did not answer 200 within {timeout.TotalSeconds:0} s; last: {lastProblem}");
    }

    // Logs first (they say why), then removal, so a failed start leaves nothing behind.
    private static async Task<string> DescribeAndRemoveAsync(DockerApiClient engine, string containerId)
    {
        string logs;
        try
        {
            logs = await engine.GetLogsAsync(containerId, 200, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            logs = $"(logs unavailable: {e.Message})";
        }

        string removal = "container removed";
        try
        {
            await engine.RemoveContainerAsync(containerId, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            removal = $"container {DockerApiClient.Short(containerId)} could not be removed: {e.Message}";
        }

        return $"--- container {DockerApiClient.Short(containerId)} logs (last 200 lines) ---{Environment.NewLine}" +
            $"{logs.TrimEnd()}{Environment.NewLine}--- end of logs; {removal} ---";
    }

    private static string FormatHost(string host) =>
        host.Contains(':', StringComparison.Ordinal) && !host.StartsWith('[') ? $"[{host}]" : host;
}

/// <summary>Knobs the public API does not need; tests use them to exercise the failure paths quickly.</summary>
internal sealed record MockContainerOptions(string Image)
{
    public IReadOnlyList<string> Environment { get; init; } = Array.Empty<string>();

    public IReadOnlyList<string>? Entrypoint { get; init; }

    public IReadOnlyList<string>? Command { get; init; }

    public TimeSpan? HealthTimeout { get; init; }
}
