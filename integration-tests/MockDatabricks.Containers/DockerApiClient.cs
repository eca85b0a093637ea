using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;

namespace MockDatabricks.Containers;

/// <summary>What to create: one image, one container port published on a random host port.</summary>
internal sealed record ContainerSpec(
    string Image,
    string Name,
    IReadOnlyList<string> Environment,
    IReadOnlyDictionary<string, string> Labels,
    string ContainerPort,
    string HostIp,
    IReadOnlyList<string>? Entrypoint = null,
    IReadOnlyList<string>? Command = null);

/// <summary>The part of <c>GET /containers/{id}/json</c> the starter needs.</summary>
internal sealed record ContainerStatus(bool Running, string Status, int ExitCode, int? HostPort);

internal sealed class DockerApiException : Exception
{
    public DockerApiException(HttpStatusCode statusCode, string message)
        : base(message)
    {
        StatusCode = statusCode;
    }

    public HttpStatusCode StatusCode { get; }
}

/// <summary>
/// The few Docker Engine API calls the mock needs. Paths carry no API version, so the engine serves its
/// own current version (Docker 29 refuses versions below 1.44; podman 4.3 speaks 1.41).
/// Images are never pulled: there is no registry here, and a missing image is a build step not run.
/// </summary>
internal sealed class DockerApiClient : IDisposable
{
    private readonly HttpClient http;

    public DockerApiClient(DockerEndpoint endpoint, TimeSpan requestTimeout)
    {
        Endpoint = endpoint;
        http = endpoint.CreateHttpClient(requestTimeout);
    }

    public DockerEndpoint Endpoint { get; }

    /// <summary>
    /// Calls <c>_ping</c> and describes the engine from its headers, e.g. "Libpod/4.3.1 (linux), API 1.41"
    /// or "Docker/28.2.2 (linux), API 1.51". (Not /version: podman takes about 1.5 s to answer it.)
    /// </summary>
    public async Task<string> PingAsync(CancellationToken cancellationToken)
    {
        using HttpResponseMessage response = await http.GetAsync("_ping", cancellationToken).ConfigureAwait(false);
        await EnsureSuccessAsync(response, "_ping", cancellationToken).ConfigureAwait(false);
        string server = response.Headers.TryGetValues("Server", out IEnumerable<string>? servers) ? string.Join(" ", servers) : "engine";
        string api = response.Headers.TryGetValues("Api-Version", out IEnumerable<string>? apis) ? apis.First() : "?";
        return $"{server}, API {api}";
    }

    public async Task<bool> ImageExistsAsync(string image, CancellationToken cancellationToken)
    {
        using HttpResponseMessage response = await http.GetAsync($"images/{EscapeName(image)}/json", cancellationToken).ConfigureAwait(false);
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            return false;
        }

        await EnsureSuccessAsync(response, $"inspect image {image}", cancellationToken).ConfigureAwait(false);
        return true;
    }

    public async Task<string> CreateContainerAsync(ContainerSpec spec, CancellationToken cancellationToken)
    {
        var labels = new JsonObject();
        foreach (KeyValuePair<string, string> label in spec.Labels)
        {
            labels[label.Key] = label.Value;
        }

        var body = new JsonObject
        {
            ["Image"] = spec.Image,
            ["Env"] = new JsonArray(spec.Environment.Select(e => (JsonNode?)JsonValue.Create(e)).ToArray()),
            ["Labels"] = labels,
            ["ExposedPorts"] = new JsonObject { [spec.ContainerPort] = new JsonObject() },
            ["HostConfig"] = new JsonObject
            {
                // An empty HostPort asks the engine for a free ephemeral port.
                ["PortBindings"] = new JsonObject
                {
                    [spec.ContainerPort] = new JsonArray(new JsonObject { ["HostIp"] = spec.HostIp, ["HostPort"] = "" }),
                },
            },
        };
        if (spec.Entrypoint is not null)
        {
            body["Entrypoint"] = new JsonArray(spec.Entrypoint.Select(e => (JsonNode?)JsonValue.Create(e)).ToArray());
        }

        if (spec.Command is not null)
        {
            body["Cmd"] = new JsonArray(spec.Command.Select(e => (JsonNode?)JsonValue.Create(e)).ToArray());
        }

        using var content = new StringContent(body.ToJsonString(), Encoding.UTF8, "application/json");
        using HttpResponseMessage response = await http.PostAsync(
            $"containers/create?name={Uri.EscapeDataString(spec.Name)}", content, cancellationToken).ConfigureAwait(false);
        await EnsureSuccessAsync(response, $"create container from {spec.Image}", cancellationToken).ConfigureAwait(false);
        JsonNode created = await ReadJsonAsync(response, cancellationToken).ConfigureAwait(false);
        return created["Id"]?.GetValue<string>() is { Length: > 0 } id
            ? id
            : throw new DockerApiException(response.StatusCode, "container create answered without an Id");
    }

    public async Task StartContainerAsync(string id, CancellationToken cancellationToken)
    {
        using HttpResponseMessage response = await http.PostAsync($"containers/{id}/start", null, cancellationToken).ConfigureAwait(false);
        await EnsureSuccessAsync(response, $"start container {Short(id)}", cancellationToken).ConfigureAwait(false);
    }

    /// <returns>The container's state, or null when no such container exists.</returns>
    public async Task<ContainerStatus?> InspectContainerAsync(string id, string containerPort, CancellationToken cancellationToken)
    {
        using HttpResponseMessage response = await http.GetAsync($"containers/{id}/json", cancellationToken).ConfigureAwait(false);
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            return null;
        }

        await EnsureSuccessAsync(response, $"inspect container {Short(id)}", cancellationToken).ConfigureAwait(false);
        JsonNode container = await ReadJsonAsync(response, cancellationToken).ConfigureAwait(false);
        JsonNode? state = container["State"];
        bool running = state?["Running"]?.GetValue<bool>() ?? false;
        string status = state?["Status"]?.GetValue<string>() ?? "unknown";
        int exitCode = state?["ExitCode"]?.GetValue<int>() ?? 0;
        int? hostPort = null;
        string? hostPortText = container["NetworkSettings"]?["Ports"]?[containerPort]?.AsArray().FirstOrDefault()?["HostPort"]?.GetValue<string>();
        if (int.TryParse(hostPortText, NumberStyles.None, CultureInfo.InvariantCulture, out int parsed) && parsed > 0)
        {
            hostPort = parsed;
        }

        return new ContainerStatus(running, status, exitCode, hostPort);
    }

    public async Task<string> GetLogsAsync(string id, int tailLines, CancellationToken cancellationToken)
    {
        using HttpResponseMessage response = await http.GetAsync(
            $"containers/{id}/logs?stdout=true&stderr=true&tail={tailLines}", cancellationToken).ConfigureAwait(false);
        await EnsureSuccessAsync(response, $"logs of container {Short(id)}", cancellationToken).ConfigureAwait(false);
        byte[] body = await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
        return DockerLogDecoder.Decode(body);
    }

    /// <summary>Ids of all containers, running or not, that carry <paramref name="label"/> (key=value).</summary>
    public async Task<IReadOnlyList<string>> ListContainerIdsAsync(string label, CancellationToken cancellationToken)
    {
        string filters = new JsonObject { ["label"] = new JsonArray(label) }.ToJsonString();
        JsonNode list = await GetJsonAsync($"containers/json?all=true&filters={Uri.EscapeDataString(filters)}", cancellationToken)
            .ConfigureAwait(false);
        return list.AsArray().Select(c => c?["Id"]?.GetValue<string>() ?? string.Empty).Where(id => id.Length > 0).ToArray();
    }

    /// <summary>Kills and removes the container with its anonymous volumes; a container already gone is fine.</summary>
    public async Task RemoveContainerAsync(string id, CancellationToken cancellationToken)
    {
        using HttpResponseMessage response = await http.DeleteAsync($"containers/{id}?force=true&v=true", cancellationToken).ConfigureAwait(false);
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            return;
        }

        await EnsureSuccessAsync(response, $"remove container {Short(id)}", cancellationToken).ConfigureAwait(false);
    }

    public void Dispose()
    {
        http.Dispose();
    }

    internal static string Short(string id) => id.Length > 12 ? id.Substring(0, 12) : id;

    // Keeps the '/' of "localhost/name:tag" as path separators: the engines route image names with slashes.
    internal static string EscapeName(string image) => string.Join("/", image.Split('/').Select(Uri.EscapeDataString));

    private async Task<JsonNode> GetJsonAsync(string path, CancellationToken cancellationToken)
    {
        using HttpResponseMessage response = await http.GetAsync(path, cancellationToken).ConfigureAwait(false);
        await EnsureSuccessAsync(response, path, cancellationToken).ConfigureAwait(false);
        return await ReadJsonAsync(response, cancellationToken).ConfigureAwait(false);
    }

    private static async Task<JsonNode> ReadJsonAsync(HttpResponseMessage response, CancellationToken cancellationToken)
    {
        string text = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
        return JsonNode.Parse(text) ?? throw new DockerApiException(response.StatusCode, "engine answered an empty JSON body");
    }

    // The engine's error body is {"message": "..."}; that message is what a person needs to see.
    private static async Task EnsureSuccessAsync(HttpResponseMessage response, string what, CancellationToken cancellationToken)
    {
        if (response.IsSuccessStatusCode)
        {
            return;
        }

        string body = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
        string message = body;
        try
        {
            message = JsonNode.Parse(body)?["message"]?.GetValue<string>() ?? body;
        }
        catch (JsonException)
        {
            // Not JSON: keep the raw body.
        }

        throw new DockerApiException(response.StatusCode, $"{what}: HTTP {(int)response.StatusCode} {message.Trim()}");
    }
}
