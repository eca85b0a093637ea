using System.Globalization;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace MockDatabricks.Testing.Rest
{
    /// <summary>A non-2xx reply of the REST API, with the error body's fields (what the driver turns into a DatabricksException).</summary>
    public sealed class RestApiException(HttpStatusCode status, string? errorCode, string? message, string body)
        : Exception($"Statement Execution API request failed with HTTP {(int)status}: {errorCode}: {message ?? body}")
    {
        public HttpStatusCode StatusCode { get; } = status;

        public string? ErrorCode { get; } = errorCode;

        public string? ServerMessage { get; } = message;

        public string Body { get; } = body;

        public HttpResponseHeaders? Headers { get; init; }
    }

    /// <summary>
    /// A Statement Execution API client that calls the URLs the ADBC driver's StatementExecutionClient calls, with a
    /// bearer token; downloads go through a second, unauthenticated HttpClient (presigned URLs), as in the driver.
    /// </summary>
    public sealed class RestApiClient : IDisposable
    {
        private static readonly JsonSerializerOptions s_json = new JsonSerializerOptions { DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull };
        private readonly HttpClient _api;
        private readonly HttpClient _downloads;

        public RestApiClient(Uri baseUrl, string? token, string? trustedCertificatePath = null)
        {
            _api = new HttpClient(TrustedCertificate.Handler(trustedCertificatePath)) { BaseAddress = baseUrl, Timeout = TimeSpan.FromMinutes(5) };
            if (token != null)
            {
                _api.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", token);
            }

            _downloads = new HttpClient(TrustedCertificate.Handler(trustedCertificatePath)) { Timeout = TimeSpan.FromMinutes(5) };
        }

        public static RestApiClient For(MockServerHandle server, string? token = null) =>
            new RestApiClient(server.BaseUrl, token ?? server.Token, server.TrustedCertificatePath);

        public async Task<string> CreateSessionAsync(string? catalog = null, string? schema = null, string warehouseId = "mock", CancellationToken cancellationToken = default)
        {
            using JsonDocument reply = await SendAsync<JsonDocument>(HttpMethod.Post, "/api/2.0/sql/sessions", new { warehouse_id = warehouseId, catalog, schema }, cancellationToken: cancellationToken).ConfigureAwait(false);
            return reply.RootElement.GetProperty("session_id").GetString()!;
        }

        public Task DeleteSessionAsync(string sessionId, string warehouseId = "mock", CancellationToken cancellationToken = default) =>
            SendAsync<JsonDocument>(HttpMethod.Delete, $"/api/2.0/sql/sessions/{sessionId}?warehouse_id={Uri.EscapeDataString(warehouseId)}", cancellationToken: cancellationToken);

        /// <param name="metadata">Send x-databricks-sea-can-run-fully-sync: true, as the driver does for its metadata SQL.</param>
        public Task<RestStatement> ExecuteAsync(RestExecuteRequest request, bool metadata = false, CancellationToken cancellationToken = default) =>
            SendAsync<RestStatement>(HttpMethod.Post, "/api/2.0/sql/statements", request, metadata, cancellationToken);

        public Task<RestStatement> GetStatementAsync(string statementId, CancellationToken cancellationToken = default) =>
            SendAsync<RestStatement>(HttpMethod.Get, $"/api/2.0/sql/statements/{statementId}", cancellationToken: cancellationToken);

        public Task<RestResultData> GetChunkAsync(string statementId, long chunkIndex, CancellationToken cancellationToken = default) =>
            SendAsync<RestResultData>(HttpMethod.Get, string.Create(CultureInfo.InvariantCulture, $"/api/2.0/sql/statements/{statementId}/result/chunks/{chunkIndex}"), cancellationToken: cancellationToken);

        public Task CancelAsync(string statementId, CancellationToken cancellationToken = default) =>
            SendAsync<JsonDocument>(HttpMethod.Post, $"/api/2.0/sql/statements/{statementId}/cancel", cancellationToken: cancellationToken);

        public Task CloseAsync(string statementId, CancellationToken cancellationToken = default) =>
            SendAsync<JsonDocument>(HttpMethod.Delete, $"/api/2.0/sql/statements/{statementId}", cancellationToken: cancellationToken);

        /// <summary>GET of a presigned link, with its http_headers, without the bearer token; throws HttpRequestException on non-2xx.</summary>
        public async Task<byte[]> DownloadAsync(RestExternalLink link, CancellationToken cancellationToken = default)
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, link.ExternalLinkUrl);
            foreach (KeyValuePair<string, string> header in link.HttpHeaders ?? new Dictionary<string, string>())
            {
                request.Headers.TryAddWithoutValidation(header.Key, header.Value);
            }

            using HttpResponseMessage response = await _downloads.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            return await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
        }

        /// <summary>Any call, the raw reply (status and body), for the tests of what the server answers to bad requests.</summary>
        public async Task<(HttpStatusCode Status, string Body, HttpResponseHeaders Headers)> SendRawAsync(HttpMethod method, string path, string? jsonBody = null, CancellationToken cancellationToken = default)
        {
            using var request = new HttpRequestMessage(method, path);
            if (jsonBody != null)
            {
                request.Content = new StringContent(jsonBody, System.Text.Encoding.UTF8, "application/json");
            }

            using HttpResponseMessage response = await _api.SendAsync(request, cancellationToken).ConfigureAwait(false);
            return (response.StatusCode, await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false), response.Headers);
        }

        public void Dispose()
        {
            _api.Dispose();
            _downloads.Dispose();
        }

        private async Task<T> SendAsync<T>(HttpMethod method, string path, object? body = null, bool metadata = false, CancellationToken cancellationToken = default)
        {
            using var request = new HttpRequestMessage(method, path);
            if (body != null)
            {
                request.Content = JsonContent.Create(body, body.GetType(), options: s_json);
            }

            if (metadata)
            {
                request.Headers.TryAddWithoutValidation("x-databricks-sea-can-run-fully-sync", "true");
            }

            using HttpResponseMessage response = await _api.SendAsync(request, cancellationToken).ConfigureAwait(false);
            string text = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
            if (!response.IsSuccessStatusCode)
            {
                RestError? error = null;
                try
                {
                    error = JsonSerializer.Deserialize<RestError>(text, s_json);
                }
                catch (JsonException)
                {
                    // Not the API's error body: the raw text is in the exception.
                }

                throw new RestApiException(response.StatusCode, error?.ErrorCode, error?.Message, text) { Headers = response.Headers };
            }

            return JsonSerializer.Deserialize<T>(text, s_json) ?? throw new InvalidOperationException($"Empty reply to {method} {path}.");
        }
    }
}
