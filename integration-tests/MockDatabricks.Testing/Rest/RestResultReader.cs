using System.Globalization;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;

namespace MockDatabricks.Testing.Rest
{
    /// <summary>A statement that ended FAILED or CANCELED (the driver throws then too).</summary>
    public sealed class RestStatementFailedException(RestStatement statement)
        : Exception($"Statement {statement.StatementId} ended {statement.State}: {statement.Status?.Error?.ErrorCode}: {statement.Status?.Error?.Message}")
    {
        public RestStatement Statement { get; } = statement;
    }

    /// <summary>Everything a REST query produced, for assertions.</summary>
    public sealed class RestOutcome
    {
        /// <summary>The reply that carried the result (the execute reply, or the GET that saw SUCCEEDED).</summary>
        public required RestStatement Statement { get; init; }

        public RestManifest Manifest => Statement.Manifest ?? throw new InvalidOperationException("No manifest.");

        /// <summary>Every record batch, as Apache.Arrow's stream reader decoded it (ARROW_STREAM).</summary>
        public List<RecordBatch> Batches { get; } = new List<RecordBatch>();

        /// <summary>JSON_ARRAY rows, in order.</summary>
        public List<List<string?>> Rows { get; } = new List<List<string?>>();

        /// <summary>Every link received, in order (refreshed links included).</summary>
        public List<RestExternalLink> Links { get; } = new List<RestExternalLink>();

        /// <summary>GET .../result/chunks/{n} calls, refreshes included.</summary>
        public int ChunkRequests { get; set; }

        public int Refreshes { get; set; }

        public int Polls { get; set; }

        public int DownloadAttempts { get; set; }

        public long RowCount => Batches.Sum(b => (long)b.Length) + Rows.Count;
    }

    /// <summary>
    /// Reads a result the way the ADBC driver's REST path (csharp/v1.1.7 StatementExecutionStatement,
    /// StatementExecutionResultFetcher, CloudFetchDownloader) does: poll GET while PENDING/RUNNING; external links from
    /// the first reply, then GET chunks/{next_chunk_index} until total_chunk_count; a link within 60 s of its expiration
    /// is refreshed first by GET chunks/{its chunk}, and a 401/403 download is refreshed and retried (up to 3 attempts);
    /// LZ4 decoded when manifest.result_compression is LZ4_FRAME; inline attachments of every chunk decoded one by one
    /// and read as one Arrow stream. Sequential and without polling delays: order and retries are what tests check.
    /// </summary>
    public sealed class RestResultReader(RestApiClient client, Func<byte[], byte[]> lz4FrameDecoder)
    {
        private static readonly TimeSpan s_expiryBuffer = TimeSpan.FromSeconds(60);

        public int MaxDownloadAttempts { get; init; } = 3;

        public async Task<RestOutcome> RunAsync(RestExecuteRequest request, CancellationToken cancellationToken = default)
        {
            RestStatement statement = await client.ExecuteAsync(request, cancellationToken: cancellationToken).ConfigureAwait(false);
            int polls = 0;
            while (statement.State is "PENDING" or "RUNNING")
            {
                polls++;
                statement = await client.GetStatementAsync(statement.StatementId, cancellationToken).ConfigureAwait(false);
            }

            if (statement.State is not ("SUCCEEDED" or "CLOSED"))
            {
                throw new RestStatementFailedException(statement);
            }

            RestOutcome outcome = await ReadAsync(statement, cancellationToken).ConfigureAwait(false);
            outcome.Polls = polls;
            return outcome;
        }

        public async Task<RestOutcome> ReadAsync(RestStatement statement, CancellationToken cancellationToken = default)
        {
            var outcome = new RestOutcome { Statement = statement };
            RestManifest? manifest = statement.Manifest;
            RestResultData? first = statement.Result;
            if (manifest == null || first == null)
            {
                return outcome;
            }

            bool lz4 = string.Equals(manifest.ResultCompression, "LZ4_FRAME", StringComparison.OrdinalIgnoreCase);
            if (first.ExternalLinks is { Count: > 0 })
            {
                await ReadLinksAsync(statement.StatementId, manifest, first, lz4, outcome, cancellationToken).ConfigureAwait(false);
            }
            else if (first.Attachment is { Length: > 0 })
            {
                var stream = new MemoryStream();
                stream.Write(lz4 ? lz4FrameDecoder(first.Attachment) : first.Attachment);
                for (int chunk = 1; chunk < manifest.TotalChunkCount; chunk++)
                {
                    outcome.ChunkRequests++;
                    RestResultData data = await client.GetChunkAsync(statement.StatementId, chunk, cancellationToken).ConfigureAwait(false);
                    byte[] attachment = data.Attachment ?? throw new InvalidDataException($"Chunk {chunk} has no attachment.");
                    stream.Write(lz4 ? lz4FrameDecoder(attachment) : attachment);
                }

                stream.Position = 0;
                await ReadStreamAsync(stream, outcome, cancellationToken).ConfigureAwait(false);
            }
            else if (first.DataArray != null)
            {
                outcome.Rows.AddRange(first.DataArray);
                for (long? next = first.NextChunkIndex; next != null;)
                {
                    outcome.ChunkRequests++;
                    RestResultData data = await client.GetChunkAsync(statement.StatementId, next.Value, cancellationToken).ConfigureAwait(false);
                    outcome.Rows.AddRange(data.DataArray ?? throw new InvalidDataException($"Chunk {next} has no data_array."));
                    next = data.NextChunkIndex;
                }
            }

            return outcome;
        }

        private async Task ReadLinksAsync(string statementId, RestManifest manifest, RestResultData first, bool lz4, RestOutcome outcome, CancellationToken cancellationToken)
        {
            var pending = new Queue<RestExternalLink>(first.ExternalLinks!);
            long next = first.ExternalLinks![^1].NextChunkIndex ?? manifest.TotalChunkCount;
            outcome.Links.AddRange(first.ExternalLinks);
            while (pending.Count > 0 || next < manifest.TotalChunkCount)
            {
                if (pending.Count == 0)
                {
                    outcome.ChunkRequests++;
                    RestResultData data = await client.GetChunkAsync(statementId, next, cancellationToken).ConfigureAwait(false);
                    List<RestExternalLink> links = data.ExternalLinks ?? throw new InvalidDataException($"Chunk {next} has no external_links.");
                    outcome.Links.AddRange(links);
                    links.ForEach(pending.Enqueue);
                    next = links.Count > 0 ? links[^1].NextChunkIndex ?? manifest.TotalChunkCount : manifest.TotalChunkCount;
                    continue;
                }

                RestExternalLink link = pending.Dequeue();
                if (ExpiresSoon(link))
                {
                    link = await RefreshAsync(statementId, link, outcome, cancellationToken).ConfigureAwait(false);
                }

                byte[] file = await DownloadAsync(statementId, link, outcome, cancellationToken).ConfigureAwait(false);
                await ReadStreamAsync(new MemoryStream(lz4 ? lz4FrameDecoder(file) : file), outcome, cancellationToken).ConfigureAwait(false);
            }
        }

        private async Task<byte[]> DownloadAsync(string statementId, RestExternalLink link, RestOutcome outcome, CancellationToken cancellationToken)
        {
            for (int attempt = 1; ; attempt++)
            {
                outcome.DownloadAttempts++;
                try
                {
                    return await client.DownloadAsync(link, cancellationToken).ConfigureAwait(false);
                }
                catch (HttpRequestException ex) when (ex.StatusCode is HttpStatusCode.Forbidden or HttpStatusCode.Unauthorized && attempt < MaxDownloadAttempts)
                {
                    link = await RefreshAsync(statementId, link, outcome, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception ex) when (ex is HttpRequestException or IOException && attempt < MaxDownloadAttempts)
                {
                    // 5xx, 404, a broken body: the same link again.
                }
            }
        }

        private async Task<RestExternalLink> RefreshAsync(string statementId, RestExternalLink link, RestOutcome outcome, CancellationToken cancellationToken)
        {
            outcome.Refreshes++;
            outcome.ChunkRequests++;
            RestResultData data = await client.GetChunkAsync(statementId, link.ChunkIndex, cancellationToken).ConfigureAwait(false);
            RestExternalLink fresh = data.ExternalLinks?.FirstOrDefault(l => l.RowOffset == link.RowOffset)
                ?? throw new InvalidDataException($"The refresh of chunk {link.ChunkIndex} has no link at row {link.RowOffset}.");
            outcome.Links.Add(fresh);
            return fresh;
        }

        private static bool ExpiresSoon(RestExternalLink link) =>
            link.Expiration != null
            && DateTime.Parse(link.Expiration, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind).ToUniversalTime() - DateTime.UtcNow < s_expiryBuffer;

        private static async Task ReadStreamAsync(Stream stream, RestOutcome outcome, CancellationToken cancellationToken)
        {
            using var reader = new ArrowStreamReader(stream);
            while (await reader.ReadNextRecordBatchAsync(cancellationToken).ConfigureAwait(false) is RecordBatch batch)
            {
                outcome.Batches.Add(batch);
            }
        }
    }
}
