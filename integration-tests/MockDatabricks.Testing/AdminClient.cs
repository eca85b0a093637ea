using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Net.Http.Json;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Admin;

namespace MockDatabricks.Testing
{
    /// <summary>Client of the server's /admin API.</summary>
    public sealed class AdminClient : IDisposable
    {
        private static readonly JsonSerializerOptions s_json = new JsonSerializerOptions(JsonSerializerDefaults.Web);
        private readonly HttpClient _http;

        // Preparing a result of a few GB takes minutes on a busy 2-core machine; everything else answers at once.
        private readonly HttpClient _prepareHttp;

        /// <param name="trustedCertificatePath">The PEM of an https mock's generated certificate (null: http, or system trust).</param>
        public AdminClient(Uri baseUrl, string? trustedCertificatePath = null)
        {
            _http = new HttpClient(TrustedCertificate.Handler(trustedCertificatePath)) { BaseAddress = baseUrl, Timeout = TimeSpan.FromSeconds(30) };
            _prepareHttp = new HttpClient(TrustedCertificate.Handler(trustedCertificatePath)) { BaseAddress = baseUrl, Timeout = TimeSpan.FromMinutes(15) };
        }

        public async Task<List<JournalEntry>> JournalAsync(string? session = null, string? operation = null, string? tag = null, string? kind = null, CancellationToken cancellationToken = default)
        {
            var query = new List<string>();
            void Add(string name, string? value)
            {
                if (value != null)
                {
                    query.Add($"{name}={Uri.EscapeDataString(value)}");
                }
            }

            Add("session", session);
            Add("operation", operation);
            Add("tag", tag);
            Add("kind", kind);
            JournalPage? page = await _http.GetFromJsonAsync<JournalPage>("/admin/journal?" + string.Join("&", query), s_json, cancellationToken).ConfigureAwait(false);
            return page?.Entries ?? new List<JournalEntry>();
        }

        public async Task ClearJournalAsync(CancellationToken cancellationToken = default) =>
            (await _http.DeleteAsync("/admin/journal", cancellationToken).ConfigureAwait(false)).EnsureSuccessStatusCode();

        public async Task<HttpResponseMessage> AddFaultAsync(string fault, bool persistent = false, string? tag = null, CancellationToken cancellationToken = default) =>
            await _http.PostAsJsonAsync("/admin/faults", new { fault, persistent, tag }, s_json, cancellationToken).ConfigureAwait(false);

        public async Task ClearFaultsAsync(CancellationToken cancellationToken = default) =>
            (await _http.DeleteAsync("/admin/faults", cancellationToken).ConfigureAwait(false)).EnsureSuccessStatusCode();

        /// <summary>POST /admin/datasets/prepare: returns once every file or inline batch of the statement's result is cached.</summary>
        public async Task<HttpResponseMessage> PrepareAsync(string statement, CancellationToken cancellationToken = default) =>
            await _prepareHttp.PostAsJsonAsync("/admin/datasets/prepare", new { statement }, s_json, cancellationToken).ConfigureAwait(false);

        public async Task<JsonDocument> GetJsonAsync(string path, CancellationToken cancellationToken = default) =>
            JsonDocument.Parse(await _http.GetStringAsync(path, cancellationToken).ConfigureAwait(false));

        public void Dispose()
        {
            _http.Dispose();
            _prepareHttp.Dispose();
        }

        private sealed record JournalPage(List<JournalEntry> Entries);
    }
}
