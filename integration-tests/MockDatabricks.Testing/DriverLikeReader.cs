using Apache.Arrow;
using Apache.Arrow.Ipc;
using MockDatabricks.Protocol.Cli;

namespace MockDatabricks.Testing
{
    /// <summary>Everything a query produced, for assertions.</summary>
    public sealed class QueryOutcome
    {
        public required TOperationHandle Operation { get; init; }

        public string OperationId => Operation.OperationId.ToHex();

        public required Schema Schema { get; init; }

        public required TGetResultSetMetadataResp Metadata { get; init; }

        public bool UsedDirectResults { get; init; }

        public bool CloudFetch { get; set; }

        /// <summary>Every record batch, as Apache.Arrow's readers decoded it (the driver's readers).</summary>
        public List<RecordBatch> Batches { get; } = new List<RecordBatch>();

        /// <summary>Every link received, in order (refreshed links included).</summary>
        public List<TSparkArrowResultLink> Links { get; } = new List<TSparkArrowResultLink>();

        public int Refreshes { get; set; }

        public int DownloadAttempts { get; set; }

        public long RowCount => Batches.Sum(b => (long)b.Length);
    }

    /// <summary>
    /// Reads a query result the way the ADBC Databricks driver (tag apache-arrow-adbc-21) does: direct results or
    /// polling + GetResultSetMetadata + FetchResults, CloudFetch links followed with startRowOffset, a refresh
    /// (FetchResults maxRows=1 at the file's offset) only for links within 60 s of expiry, up to 3 download attempts
    /// per file, LZ4 frames decoded with the given decoder. As observed with the tag-21 driver through the mock: a 401/403
    /// on a live link is retried with the same URL (the driver's fetcher answers the refresh request from its cache),
    /// and a final failure is the last HttpRequestException/IOException as it is, except after 401/403, where it is an
    /// InvalidOperationException "Failed to download file from &lt;url&gt; after N attempts". Downloads are sequential:
    /// order and retries are what the tests check, not speed.
    /// </summary>
    public sealed class DriverLikeReader
    {
        public const long BatchSize = 2_000_000;
        public const long MaxBytesPerFetch = 400L * 1024 * 1024;
        private static readonly TimeSpan s_expiryBuffer = TimeSpan.FromSeconds(60);
        private readonly MockDatabricksClient _client;
        private readonly Func<byte[], byte[]> _lz4FrameDecoder;

        public DriverLikeReader(MockDatabricksClient client, Func<byte[], byte[]> lz4FrameDecoder)
        {
            _client = client;
            _lz4FrameDecoder = lz4FrameDecoder;
        }

        public int MaxDownloadAttempts { get; init; } = 3;

        public async Task<QueryOutcome> RunAsync(TSessionHandle session, string statement, ExecuteOptions? options = null, CancellationToken cancellationToken = default)
        {
            TExecuteStatementResp executed = await _client.ExecuteStatementAsync(session, statement, options, cancellationToken).ConfigureAwait(false);
            ThrowIfError(executed.Status, "ExecuteStatement");
            TOperationHandle operation = executed.OperationHandle ?? throw new InvalidOperationException("ExecuteStatement returned no operationHandle.");

            TSparkDirectResults? direct = executed.DirectResults;
            bool finishedDirectly = direct?.OperationStatus?.OperationState == TOperationState.Finished;
            TGetResultSetMetadataResp metadata;
            TFetchResultsResp first;
            if (finishedDirectly && direct!.ResultSetMetadata != null && direct.ResultSet != null)
            {
                metadata = direct.ResultSetMetadata;
                first = direct.ResultSet;
            }
            else
            {
                await PollUntilFinishedAsync(operation, cancellationToken).ConfigureAwait(false);
                metadata = await _client.GetResultSetMetadataAsync(operation, cancellationToken).ConfigureAwait(false);
                first = await _client.FetchResultsAsync(operation, BatchSize, null, MaxBytesPerFetch, cancellationToken: cancellationToken).ConfigureAwait(false);
                ThrowIfError(first.Status, "FetchResults");
            }

            var outcome = new QueryOutcome
            {
                Operation = operation,
                Metadata = metadata,
                Schema = ReadSchema(metadata.ArrowSchema ?? throw new InvalidOperationException("Metadata without arrowSchema.")),
                UsedDirectResults = finishedDirectly,
            };
            bool lz4 = metadata.Lz4Compressed == true;
            TRowSet results = first.Results ?? throw new InvalidOperationException("Fetch response without results.");
            if (results.ResultLinks is { Count: > 0 })
            {
                outcome.CloudFetch = true;
                await ReadCloudFetchAsync(outcome, first, lz4, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                await ReadInlineAsync(outcome, first, lz4, cancellationToken).ConfigureAwait(false);
            }

            if (direct?.CloseOperation?.Status.StatusCode != TStatusCode.Success)
            {
                ThrowIfError((await _client.CloseOperationAsync(operation, cancellationToken).ConfigureAwait(false)).Status, "CloseOperation");
            }

            return outcome;
        }

        private async Task PollUntilFinishedAsync(TOperationHandle operation, CancellationToken cancellationToken)
        {
            for (int poll = 0; poll < 3000; poll++)
            {
                TGetOperationStatusResp status = await _client.GetOperationStatusAsync(operation, cancellationToken).ConfigureAwait(false);
                if (status.OperationState is TOperationState.Pending or TOperationState.Running)
                {
                    await Task.Delay(20, cancellationToken).ConfigureAwait(false);
                    continue;
                }

                if (status.OperationState != TOperationState.Finished)
                {
                    throw new InvalidOperationException($"Operation ended in {status.OperationState}: {status.ErrorMessage}");
                }

                return;
            }

            throw new TimeoutException("Operation did not finish after 3000 polls.");
        }

        private async Task ReadInlineAsync(QueryOutcome outcome, TFetchResultsResp response, bool lz4, CancellationToken cancellationToken)
        {
            for (int round = 0; round < 100_000; round++)
            {
                List<TSparkArrowBatch> batches = response.Results?.ArrowBatches ?? throw new InvalidOperationException("Inline fetch response without arrowBatches.");
                foreach (TSparkArrowBatch batch in batches)
                {
                    if (batch.Batch.Length == 0)
                    {
                        continue;
                    }

                    byte[] bytes = lz4 ? _lz4FrameDecoder(batch.Batch.ToArray()) : batch.Batch.ToArray();
                    // What the driver's DatabricksReader does with each inline batch: decode it against the metadata schema.
                    RecordBatch decoded = ArrowSerializationHelpers.DeserializeRecordBatch(outcome.Schema, bytes);
                    if (decoded.Length != batch.RowCount)
                    {
                        throw new InvalidOperationException($"Inline batch says {batch.RowCount} rows, holds {decoded.Length}.");
                    }

                    outcome.Batches.Add(decoded);
                }

                if (response.HasMoreRows != true)
                {
                    return;
                }

                response = await _client.FetchResultsAsync(outcome.Operation, BatchSize, null, MaxBytesPerFetch, cancellationToken: cancellationToken).ConfigureAwait(false);
                ThrowIfError(response.Status, "FetchResults");
            }

            throw new InvalidOperationException("Inline result did not end after 100000 fetches.");
        }

        private async Task ReadCloudFetchAsync(QueryOutcome outcome, TFetchResultsResp response, bool lz4, CancellationToken cancellationToken)
        {
            var queue = new Queue<TSparkArrowResultLink>();
            long nextOffset = 0;
            bool hasMore;
            void Enqueue(TFetchResultsResp r)
            {
                foreach (TSparkArrowResultLink link in r.Results!.ResultLinks!)
                {
                    outcome.Links.Add(link);
                    queue.Enqueue(link);
                    nextOffset = Math.Max(nextOffset, link.StartRowOffset + link.RowCount);
                }
            }

            Enqueue(response);
            hasMore = response.HasMoreRows == true;
            for (int round = 0; round < 100_000; round++)
            {
                while (queue.Count > 0)
                {
                    await DownloadFileAsync(outcome, queue.Dequeue(), lz4, cancellationToken).ConfigureAwait(false);
                }

                if (!hasMore)
                {
                    return;
                }

                response = await _client.FetchResultsAsync(outcome.Operation, BatchSize, nextOffset > 0 ? nextOffset : null, MaxBytesPerFetch, cancellationToken: cancellationToken).ConfigureAwait(false);
                if (response.Results?.ResultLinks is not { Count: > 0 })
                {
                    return; // no links ends the stream, whatever hasMoreRows says (as in the driver)
                }

                Enqueue(response);
                hasMore = response.HasMoreRows == true;
            }

            throw new InvalidOperationException("CloudFetch result did not end after 100000 fetches.");
        }

        private async Task DownloadFileAsync(QueryOutcome outcome, TSparkArrowResultLink link, bool lz4, CancellationToken cancellationToken)
        {
            if (IsNearExpiry(link))
            {
                link = await RefreshAsync(outcome, link, cancellationToken).ConfigureAwait(false) ?? link;
            }

            Exception? last = null;
            bool refused = false;
            for (int attempt = 1; attempt <= MaxDownloadAttempts; attempt++)
            {
                outcome.DownloadAttempts++;
                byte[] body;
                try
                {
                    body = await _client.DownloadAsync(link.FileLink, cancellationToken).ConfigureAwait(false);
                }
                catch (HttpRequestException ex) when (ex.StatusCode is HttpStatusCode.Unauthorized or HttpStatusCode.Forbidden)
                {
                    last = ex;
                    refused = true;
                    if (IsNearExpiry(link))
                    {
                        link = await RefreshAsync(outcome, link, cancellationToken).ConfigureAwait(false) ?? link;
                    }

                    continue;
                }
                catch (Exception ex) when (ex is HttpRequestException or System.IO.IOException && !cancellationToken.IsCancellationRequested)
                {
                    last = ex;
                    refused = false;
                    continue;
                }

                // Decoding errors are not retried: a corrupt file must fail the query, not be fetched again.
                byte[] ipc = lz4 ? _lz4FrameDecoder(body) : body;
                List<RecordBatch> batches = ReadStream(new System.IO.MemoryStream(ipc));
                long rows = batches.Sum(b => (long)b.Length);
                if (rows != link.RowCount)
                {
                    throw new InvalidOperationException($"File at row {link.StartRowOffset} says {link.RowCount} rows, holds {rows}.");
                }

                outcome.Batches.AddRange(batches);
                return;
            }

            if (refused)
            {
                throw new InvalidOperationException($"Failed to download file from {link.FileLink} after {MaxDownloadAttempts} attempts", last);
            }

            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(last!);
        }

        private static bool IsNearExpiry(TSparkArrowResultLink link) =>
            DateTimeOffset.UtcNow + s_expiryBuffer >= DateTimeOffset.FromUnixTimeMilliseconds(link.ExpiryTime);

        /// <summary>The arrowSchema metadata, read as the driver's DatabricksSchemaParser reads it.</summary>
        private static Schema ReadSchema(byte[] arrowSchema)
        {
            using var reader = new ArrowStreamReader(new System.IO.MemoryStream(arrowSchema));
            return reader.Schema;
        }

        /// <summary>A whole Arrow IPC stream (a CloudFetch file) through ArrowStreamReader(Stream), as the driver's CloudFetchReader reads it.</summary>
        public static List<RecordBatch> ReadStream(System.IO.Stream stream)
        {
            using var reader = new ArrowStreamReader(stream);
            var batches = new List<RecordBatch>();
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                batches.Add(batch);
            }

            return batches;
        }

        private async Task<TSparkArrowResultLink?> RefreshAsync(QueryOutcome outcome, TSparkArrowResultLink link, CancellationToken cancellationToken)
        {
            outcome.Refreshes++;
            TFetchResultsResp response = await _client.FetchResultsAsync(outcome.Operation, 1, link.StartRowOffset, null, cancellationToken: cancellationToken).ConfigureAwait(false);
            if (response.Status.StatusCode != TStatusCode.Success)
            {
                return null;
            }

            TSparkArrowResultLink? fresh = response.Results?.ResultLinks?.FirstOrDefault(l => l.StartRowOffset == link.StartRowOffset);
            if (fresh != null)
            {
                outcome.Links.Add(fresh);
            }

            return fresh;
        }

        private static void ThrowIfError(TStatus status, string method)
        {
            if (status.StatusCode is not (TStatusCode.Success or TStatusCode.SuccessWithInfo))
            {
                throw new ThriftStatusException(method, status);
            }
        }
    }

    /// <summary>A TStatus ERROR reply (what the driver raises as HiveServer2Exception).</summary>
    public sealed class ThriftStatusException : Exception
    {
        public ThriftStatusException(string method, TStatus status)
            : base($"{method} returned {status.StatusCode}: {status.ErrorMessage} (SQLSTATE {status.SqlState})")
        {
            Status = status;
        }

        public TStatus Status { get; }
    }
}
