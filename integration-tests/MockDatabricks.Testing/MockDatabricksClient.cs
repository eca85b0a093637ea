using System.Net.Http.Headers;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;

namespace MockDatabricks.Testing
{
    /// <summary>A non-2xx reply to a Thrift POST (what the driver's transport would turn into a TTransportException).</summary>
    public sealed class ThriftHttpException : Exception
    {
        public ThriftHttpException(HttpStatusCode status, string? serverMessage, string body)
            : base($"Thrift call failed with HTTP {(int)status}: {serverMessage ?? body}")
        {
            StatusCode = status;
            ServerMessage = serverMessage;
        }

        public HttpStatusCode StatusCode { get; }

        public string? ServerMessage { get; }
    }

    /// <summary>Options of an ExecuteStatement call, defaulting to what the driver sends.</summary>
    public sealed record ExecuteOptions
    {
        public bool DirectResults { get; init; } = true;

        public long DirectMaxRows { get; init; } = 500_000;

        public long DirectMaxBytes { get; init; } = 10 * 1024 * 1024;

        public bool CanDownloadResult { get; init; } = true;

        public bool CanDecompressLz4 { get; init; } = true;

        public long MaxBytesPerFile { get; init; } = 20 * 1024 * 1024;

        public bool CanReadArrowResult { get; init; } = true;

        /// <summary>useArrowNativeTypes; null leaves the field out.</summary>
        public TSparkArrowTypes? ArrowNativeTypes { get; init; } = new TSparkArrowTypes { TimestampAsArrow = true, DecimalAsArrow = true, ComplexTypesAsArrow = false, IntervalTypesAsArrow = false };
    }

    /// <summary>
    /// A TCLIService client over HTTP built on the shared protocol code: one Thrift binary message per POST with a
    /// bearer token, plus a separate unauthenticated HttpClient for CloudFetch downloads, like the driver.
    /// </summary>
    public sealed class MockDatabricksClient : IDisposable
    {
        private readonly HttpClient _rpc;
        private readonly HttpClient _downloads;
        private readonly Uri _endpoint;
        private int _sequenceId;

        /// <param name="trustedCertificatePath">The PEM of an https mock's generated certificate (null: http, or system trust).</param>
        public MockDatabricksClient(Uri warehouseUrl, string token, string? trustedCertificatePath = null)
        {
            _endpoint = warehouseUrl;
            _rpc = new HttpClient(TrustedCertificate.Handler(trustedCertificatePath)) { Timeout = TimeSpan.FromMinutes(5) };
            _rpc.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", token);
            _downloads = new HttpClient(TrustedCertificate.Handler(trustedCertificatePath)) { Timeout = TimeSpan.FromMinutes(5) };
        }

        public static MockDatabricksClient For(MockServerHandle server, string? token = null) =>
            new MockDatabricksClient(server.WarehouseUrl(), token ?? server.Token, server.TrustedCertificatePath);

        public async Task<T> CallAsync<T>(string method, TBase request, CancellationToken cancellationToken = default)
            where T : class, TBase, new()
        {
            byte[] body = await ThriftMessages.EncodeCallAsync(method, Interlocked.Increment(ref _sequenceId), request, cancellationToken).ConfigureAwait(false);
            byte[] reply = await PostRawAsync(body, cancellationToken).ConfigureAwait(false);
            return await ThriftMessages.DecodeReplyAsync<T>(reply, method, cancellationToken).ConfigureAwait(false);
        }

        /// <summary>Posts arbitrary bytes to the Thrift endpoint (for malformed-request tests); throws <see cref="ThriftHttpException"/> on non-2xx.</summary>
        public async Task<byte[]> PostRawAsync(byte[] body, CancellationToken cancellationToken = default)
        {
            using var content = new ByteArrayContent(body);
            content.Headers.ContentType = new MediaTypeHeaderValue("application/x-thrift");
            using HttpResponseMessage response = await _rpc.PostAsync(_endpoint, content, cancellationToken).ConfigureAwait(false);
            byte[] reply = await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
            if (!response.IsSuccessStatusCode)
            {
                string? message = response.Headers.TryGetValues("x-thriftserver-error-message", out var values) ? values.FirstOrDefault() : null;
                throw new ThriftHttpException(response.StatusCode, message, System.Text.Encoding.UTF8.GetString(reply));
            }

            return reply;
        }

        public Task<TOpenSessionResp> OpenSessionAsync(CancellationToken cancellationToken = default) =>
            CallAsync<TOpenSessionResp>("OpenSession", new TOpenSessionReq
            {
                ClientProtocol = TProtocolVersion.SparkV7,
                ClientProtocolI64 = TProtocolVersion.SparkV7,
                CanUseMultipleCatalogs = true,
                InitialNamespace = new TNamespace { SchemaName = "default" },
                Configuration = new() { ["spark.thriftserver.arrowBasedRowSet.timestampAsString"] = "false" },
            }, cancellationToken);

        public Task<TExecuteStatementResp> ExecuteStatementAsync(TSessionHandle session, string statement, ExecuteOptions? options = null, CancellationToken cancellationToken = default)
        {
            options ??= new ExecuteOptions();
            var request = new TExecuteStatementReq
            {
                SessionHandle = session,
                Statement = statement,
                RunAsync = true,
                QueryTimeout = 10800,
                CanReadArrowResult = options.CanReadArrowResult,
                CanDownloadResult = options.CanDownloadResult,
                CanDecompressLZ4Result = options.CanDecompressLz4,
            };
            if (options.ArrowNativeTypes != null)
            {
                request.UseArrowNativeTypes = options.ArrowNativeTypes;
            }

            if (options.DirectResults)
            {
                request.GetDirectResults = new TSparkGetDirectResults(options.DirectMaxRows);
                if (options.DirectMaxBytes is long maxBytes)
                {
                    request.GetDirectResults.MaxBytes = maxBytes;
                }
            }

            if (options.MaxBytesPerFile is long perFile)
            {
                request.MaxBytesPerFile = perFile;
            }

            return CallAsync<TExecuteStatementResp>("ExecuteStatement", request, cancellationToken);
        }

        public Task<TGetOperationStatusResp> GetOperationStatusAsync(TOperationHandle operation, CancellationToken cancellationToken = default) =>
            CallAsync<TGetOperationStatusResp>("GetOperationStatus", new TGetOperationStatusReq { OperationHandle = operation }, cancellationToken);

        public Task<TGetResultSetMetadataResp> GetResultSetMetadataAsync(TOperationHandle operation, CancellationToken cancellationToken = default) =>
            CallAsync<TGetResultSetMetadataResp>("GetResultSetMetadata", new TGetResultSetMetadataReq { OperationHandle = operation }, cancellationToken);

        /// <param name="includeResultSetMetadata">Sets TFetchResultsReq.includeResultSetMetadata (null leaves it out, as the ADBC driver does).</param>
        public Task<TFetchResultsResp> FetchResultsAsync(TOperationHandle operation, long maxRows, long? startRowOffset = null, long? maxBytes = null, bool? includeResultSetMetadata = null, CancellationToken cancellationToken = default)
        {
            var request = new TFetchResultsReq(operation, TFetchOrientation.FetchNext, maxRows);
            if (startRowOffset is long offset)
            {
                request.StartRowOffset = offset;
            }

            if (maxBytes is long bytes)
            {
                request.MaxBytes = bytes;
            }

            if (includeResultSetMetadata is bool include)
            {
                request.IncludeResultSetMetadata = include;
            }

            return CallAsync<TFetchResultsResp>("FetchResults", request, cancellationToken);
        }

        public Task<TCloseOperationResp> CloseOperationAsync(TOperationHandle operation, CancellationToken cancellationToken = default) =>
            CallAsync<TCloseOperationResp>("CloseOperation", new TCloseOperationReq { OperationHandle = operation }, cancellationToken);

        public Task<TCancelOperationResp> CancelOperationAsync(TOperationHandle operation, CancellationToken cancellationToken = default) =>
            CallAsync<TCancelOperationResp>("CancelOperation", new TCancelOperationReq { OperationHandle = operation }, cancellationToken);

        public Task<TCloseSessionResp> CloseSessionAsync(TSessionHandle session, CancellationToken cancellationToken = default) =>
            CallAsync<TCloseSessionResp>("CloseSession", new TCloseSessionReq { SessionHandle = session }, cancellationToken);

        public Task<TGetInfoResp> GetInfoAsync(TSessionHandle session, int infoType, CancellationToken cancellationToken = default) =>
            CallAsync<TGetInfoResp>("GetInfo", new TGetInfoReq { SessionHandle = session, InfoType = infoType }, cancellationToken);

        /// <summary>A catalog RPC (GetCatalogs, GetSchemas, GetTables, GetTableTypes, GetColumns, GetPrimaryKeys, GetCrossReference) with direct results, as the driver sends it.</summary>
        public Task<TMetadataResp> MetadataAsync(string method, TBase request, CancellationToken cancellationToken = default) =>
            CallAsync<TMetadataResp>(method, request, cancellationToken);

        /// <summary>The direct-results request the driver adds to its calls (500,000 rows, 10 MB).</summary>
        public static TSparkGetDirectResults DriverDirectResults() => new TSparkGetDirectResults(500_000) { MaxBytes = 10 * 1024 * 1024 };

        /// <summary>GETs a CloudFetch link (no auth header) and returns the whole body; throws HttpRequestException (with StatusCode) or IOException.</summary>
        public async Task<byte[]> DownloadAsync(string fileLink, CancellationToken cancellationToken = default)
        {
            using HttpResponseMessage response = await _downloads.GetAsync(fileLink, HttpCompletionOption.ResponseHeadersRead, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            return await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
        }

        public void Dispose()
        {
            _rpc.Dispose();
            _downloads.Dispose();
        }
    }
}
