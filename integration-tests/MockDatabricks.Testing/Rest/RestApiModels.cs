using System.Text.Json.Serialization;

namespace MockDatabricks.Testing.Rest
{
    // The Statement Execution API's JSON as a client reads it, written from the ADBC driver's own models
    // (csharp/v1.1.7 src/StatementExecution/StatementExecutionModels.cs), not from the server's: a field the server
    // misnames is missing here, as it would be for the driver.

    /// <summary>POST /api/2.0/sql/statements, with the defaults the driver sends (direct results: no wait_timeout).</summary>
    public sealed record RestExecuteRequest
    {
        [JsonPropertyName("warehouse_id")]
        public string? WarehouseId { get; init; } = "mock";

        [JsonPropertyName("session_id")]
        public string? SessionId { get; init; }

        [JsonPropertyName("statement")]
        public required string Statement { get; init; }

        [JsonPropertyName("catalog")]
        public string? Catalog { get; init; }

        [JsonPropertyName("schema")]
        public string? Schema { get; init; }

        [JsonPropertyName("disposition")]
        public string? Disposition { get; init; } = "INLINE_OR_EXTERNAL_LINKS";

        [JsonPropertyName("format")]
        public string? Format { get; init; } = "ARROW_STREAM";

        [JsonPropertyName("result_compression")]
        public string? ResultCompression { get; init; } = "LZ4_FRAME";

        [JsonPropertyName("wait_timeout")]
        public string? WaitTimeout { get; init; }

        [JsonPropertyName("on_wait_timeout")]
        public string? OnWaitTimeout { get; init; } = "CONTINUE";

        [JsonPropertyName("row_limit")]
        public long? RowLimit { get; init; }

        [JsonPropertyName("byte_limit")]
        public long? ByteLimit { get; init; }
    }

    public sealed class RestStatement
    {
        [JsonPropertyName("statement_id")]
        public string StatementId { get; set; } = string.Empty;

        [JsonPropertyName("status")]
        public RestStatus? Status { get; set; }

        [JsonPropertyName("manifest")]
        public RestManifest? Manifest { get; set; }

        [JsonPropertyName("result")]
        public RestResultData? Result { get; set; }

        public string? State => Status?.State;
    }

    public sealed class RestStatus
    {
        [JsonPropertyName("state")]
        public string State { get; set; } = string.Empty;

        [JsonPropertyName("error")]
        public RestError? Error { get; set; }
    }

    public sealed class RestError
    {
        [JsonPropertyName("error_code")]
        public string? ErrorCode { get; set; }

        [JsonPropertyName("message")]
        public string? Message { get; set; }

        [JsonPropertyName("sql_state")]
        public string? SqlState { get; set; }
    }

    public sealed class RestManifest
    {
        [JsonPropertyName("format")]
        public string Format { get; set; } = string.Empty;

        [JsonPropertyName("schema")]
        public RestSchema? Schema { get; set; }

        [JsonPropertyName("total_chunk_count")]
        public int TotalChunkCount { get; set; }

        [JsonPropertyName("chunks")]
        public List<RestChunk>? Chunks { get; set; }

        [JsonPropertyName("total_row_count")]
        public long TotalRowCount { get; set; }

        [JsonPropertyName("total_byte_count")]
        public long? TotalByteCount { get; set; }

        [JsonPropertyName("result_compression")]
        public string? ResultCompression { get; set; }

        [JsonPropertyName("truncated")]
        public bool? Truncated { get; set; }
    }

    public sealed class RestSchema
    {
        [JsonPropertyName("column_count")]
        public long? ColumnCount { get; set; }

        [JsonPropertyName("columns")]
        public List<RestColumn>? Columns { get; set; }
    }

    public sealed class RestColumn
    {
        [JsonPropertyName("name")]
        public string? Name { get; set; }

        [JsonPropertyName("position")]
        public long? Position { get; set; }

        [JsonPropertyName("type_name")]
        public string? TypeName { get; set; }

        [JsonPropertyName("type_text")]
        public string? TypeText { get; set; }

        [JsonPropertyName("type_precision")]
        public long? TypePrecision { get; set; }

        [JsonPropertyName("type_scale")]
        public long? TypeScale { get; set; }
    }

    public sealed class RestChunk
    {
        [JsonPropertyName("chunk_index")]
        public int ChunkIndex { get; set; }

        [JsonPropertyName("row_count")]
        public long RowCount { get; set; }

        [JsonPropertyName("row_offset")]
        public long RowOffset { get; set; }

        [JsonPropertyName("byte_count")]
        public long? ByteCount { get; set; }
    }

    public sealed class RestResultData
    {
        [JsonPropertyName("byte_count")]
        public long? ByteCount { get; set; }

        [JsonPropertyName("chunk_index")]
        public long? ChunkIndex { get; set; }

        [JsonPropertyName("data_array")]
        public List<List<string?>>? DataArray { get; set; }

        [JsonPropertyName("external_links")]
        public List<RestExternalLink>? ExternalLinks { get; set; }

        [JsonPropertyName("next_chunk_index")]
        public long? NextChunkIndex { get; set; }

        [JsonPropertyName("next_chunk_internal_link")]
        public string? NextChunkInternalLink { get; set; }

        [JsonPropertyName("row_count")]
        public long? RowCount { get; set; }

        [JsonPropertyName("row_offset")]
        public long? RowOffset { get; set; }

        [JsonPropertyName("attachment")]
        public byte[]? Attachment { get; set; }
    }

    public sealed class RestExternalLink
    {
        [JsonPropertyName("external_link")]
        public string ExternalLinkUrl { get; set; } = string.Empty;

        [JsonPropertyName("expiration")]
        public string? Expiration { get; set; }

        [JsonPropertyName("chunk_index")]
        public long ChunkIndex { get; set; }

        [JsonPropertyName("row_count")]
        public long RowCount { get; set; }

        [JsonPropertyName("row_offset")]
        public long RowOffset { get; set; }

        [JsonPropertyName("byte_count")]
        public long ByteCount { get; set; }

        [JsonPropertyName("http_headers")]
        public Dictionary<string, string>? HttpHeaders { get; set; }

        [JsonPropertyName("next_chunk_index")]
        public long? NextChunkIndex { get; set; }

        [JsonPropertyName("next_chunk_internal_link")]
        public string? NextChunkInternalLink { get; set; }
    }
}
