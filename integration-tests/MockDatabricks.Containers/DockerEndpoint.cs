using System;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;

namespace MockDatabricks.Containers;

/// <summary>
/// Where the Docker Engine API answers, resolved the way the docker CLI does: DOCKER_HOST
/// (<c>unix://</c> or <c>tcp://</c>), else the standard Docker socket, else rootful podman's socket.
/// Also decides on which host name published ports are reached.
/// </summary>
internal sealed class DockerEndpoint
{
    internal const string DockerSocketPath = "/var/run/docker.sock";
    internal const string PodmanSocketPath = "/run/podman/podman.sock";

    // A unix-socket request still needs a URI; the host part is ignored by the engine.
    private static readonly Uri UnixBaseAddress = new("http://docker/");

    private DockerEndpoint(string description, string? socketPath, Uri baseAddress, string publishedPortHost)
    {
        Description = description;
        SocketPath = socketPath;
        BaseAddress = baseAddress;
        PublishedPortHost = publishedPortHost;
    }

    /// <summary>The endpoint as DOCKER_HOST would spell it, for messages.</summary>
    public string Description { get; }

    /// <summary>The unix socket path, or null for a TCP endpoint.</summary>
    public string? SocketPath { get; }

    public Uri BaseAddress { get; }

    /// <summary>
    /// Host name at which ports published by this engine are reached: TESTCONTAINERS_HOST_OVERRIDE
    /// (the variable Testcontainers users already set), else the TCP engine's host, else 127.0.0.1.
    /// Never derived from /.dockerenv (which exists on these machines and would mislead).
    /// </summary>
    public string PublishedPortHost { get; }

    /// <summary>True when published ports can be bound to loopback only (the engine is on this machine).</summary>
    public bool PublishesOnLoopback => IsLoopbackHost(PublishedPortHost);

    public static DockerEndpoint FromEnvironment()
    {
        return Resolve(Environment.GetEnvironmentVariable, System.IO.File.Exists);
    }

    /// <param name="getEnvironmentVariable">Environment lookup, injectable for tests.</param>
    /// <param name="socketExists">Whether a socket file exists, injectable for tests.</param>
    public static DockerEndpoint Resolve(Func<string, string?> getEnvironmentVariable, Func<string, bool> socketExists)
    {
        string? hostOverride = getEnvironmentVariable("TESTCONTAINERS_HOST_OVERRIDE");
        string? dockerHost = getEnvironmentVariable("DOCKER_HOST");
        if (!string.IsNullOrWhiteSpace(dockerHost))
        {
            return Parse(dockerHost.Trim(), hostOverride);
        }

        string socket = socketExists(DockerSocketPath) ? DockerSocketPath
            : socketExists(PodmanSocketPath) ? PodmanSocketPath
            : DockerSocketPath; // Reported as unreachable later, under the name users expect.
        return FromSocket(socket, hostOverride);
    }

    public static DockerEndpoint Parse(string dockerHost, string? hostOverride)
    {
        if (dockerHost.StartsWith("unix://", StringComparison.OrdinalIgnoreCase))
        {
            string path = dockerHost.Substring("unix://".Length);
            if (path.Length == 0 || path[0] != '/')
            {
                throw new ArgumentException($"DOCKER_HOST '{dockerHost}' must name an absolute socket path (unix:///path).");
            }

            return FromSocket(path, hostOverride);
        }

        if (dockerHost.StartsWith("tcp://", StringComparison.OrdinalIgnoreCase))
        {
            // TLS (DOCKER_TLS_VERIFY / port 2376) is out of scope: the engines this project starts are local.
            var uri = new Uri("http://" + dockerHost.Substring("tcp://".Length).TrimEnd('/') + "/");
            string host = string.IsNullOrWhiteSpace(hostOverride) ? uri.Host : hostOverride.Trim();
            return new DockerEndpoint(dockerHost, null, uri, host);
        }

        throw new ArgumentException($"DOCKER_HOST '{dockerHost}' is not supported: use unix:///path or tcp://host:port.");
    }

    private static DockerEndpoint FromSocket(string path, string? hostOverride)
    {
        string host = string.IsNullOrWhiteSpace(hostOverride) ? "127.0.0.1" : hostOverride.Trim();
        return new DockerEndpoint("unix://" + path, path, UnixBaseAddress, host);
    }

    public HttpClient CreateHttpClient(TimeSpan timeout)
    {
        var handler = new SocketsHttpHandler
        {
            // The engine is local or named explicitly; an HTTP(S)_PROXY from the environment must not capture it.
            UseProxy = false,
            ConnectTimeout = TimeSpan.FromSeconds(5),
        };
        string? socketPath = SocketPath;
        if (socketPath is not null)
        {
            handler.ConnectCallback = async (context, cancellationToken) =>
            {
                var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
                try
                {
                    await socket.ConnectAsync(new UnixDomainSocketEndPoint(socketPath), cancellationToken).ConfigureAwait(false);
                    return new NetworkStream(socket, ownsSocket: true);
                }
                catch
                {
                    socket.Dispose();
                    throw;
                }
            };
        }

        return new HttpClient(handler) { BaseAddress = BaseAddress, Timeout = timeout };
    }

    internal static bool IsLoopbackHost(string host)
    {
        if (string.Equals(host, "localhost", StringComparison.OrdinalIgnoreCase))
        {
            return true;
        }

        return IPAddress.TryParse(host.Trim('[', ']'), out IPAddress? address) && IPAddress.IsLoopback(address);
    }
}
