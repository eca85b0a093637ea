using System.Text.Json;
using System.Text.Json.Serialization;

namespace MockDatabricks.Server.Rest
{
    // The Statement Execution API's JSON (snake_case), the fields the ADBC driver's REST client sends and reads
    // (csharp/v1.1.7 src/StatementExecution/StatementExecutionModels.cs). Null members are left out of replies.

    /// <summary>POST /api/2.0/sql/sessions.</summary>
    public sealed class CreateSessionRequest
    {
        [JsonPropertyName("warehouse_id")]
        public string? WarehouseId { get; set; }

        [JsonPropertyName("catalog")]
        public string? Catalog { get; set; }

        [JsonPropertyName("schema")]
        public string? Schema { get; set; }

        [JsonPropertyName("session_confs")]
        public Dictionary<string, string>? SessionConfs { get; set; }
    }

    public sealed record CreateSessionResponse([property: JsonPropertyName("session_id")] string SessionId);

    /// <summary>POST /api/2.0/sql/statements.</summary>
    public sealed class ExecuteStatementRequest
    {
        [JsonPropertyName("warehouse_id")]
        public string? WarehouseId { get; set; }

        [JsonPropertyName("session_id")]
        public string? SessionId { get; set; }

        [JsonPropertyName("statement")]
        public string? Statement { get; set; }

        [JsonPropertyName("catalog")]
        public string? Catalog { get; set; }

        [JsonPropertyName("schema")]
        public string? Schema { get; set; }

        [JsonPropertyName("disposition")]
        public string? Disposition { get; set; }

        [JsonPropertyName("format")]
        public string? Format { get; set; }

        [JsonPropertyName("result_compression")]
        public string? ResultCompression { get; set; }

        [JsonPropertyName("wait_timeout")]
        public string? WaitTimeout { get; set; }

        [JsonPropertyName("on_wait_timeout")]
        public string? OnWaitTimeout { get; set; }

        [JsonPropertyName("row_limit")]
        public long? RowLimit { get; set; }

        [JsonPropertyName("byte_limit")]
        public long? ByteLimit { get; set; }

        /// <summary>Accepted and ignored, as on the Thrift path (the mock has no parameter markers).</summary>
        [JsonPropertyName("parameters")]
        public JsonElement? Parameters { get; set; }

        [JsonPropertyName("query_tags")]
        public JsonElement? QueryTags { get; set; }
    }

    /// <summary>The reply of execute and GET /statements/{id}: status, and with SUCCEEDED (or a direct CLOSED) the manifest and the first chunk.</summary>
    public sealed class StatementResponse
    {
        [JsonPropertyName("statement_id")]
        public required string StatementId { get; init; }

        [JsonPropertyName("status")]
        public required StatementStatus Status { get; init; }

        [JsonPropertyName("manifest")]
        public ResultManifest? Manifest { get; set; }

        [JsonPropertyName("result")]
        public ResultData? Result { get; set; }
    }

    public sealed record StatementStatus(
        [property: JsonPropertyName("state")] string State,
        [property: JsonPropertyName("error")] ServiceError? Error = null);

    /// <summary>An error: the body of every non-2xx reply, and status.error of a FAILED statement.</summary>
    public sealed record ServiceError(
        [property: JsonPropertyName("error_code")] string ErrorCode,
        [property: JsonPropertyName("message")] string Message,
        [property: JsonPropertyName("sql_state")] string? SqlState = null);

    public sealed class ResultManifest
    {
        [JsonPropertyName("format")]
        public required string Format { get; init; }

        [JsonPropertyName("schema")]
        public required ResultSchema Schema { get; init; }

        [JsonPropertyName("total_chunk_count")]
        public int TotalChunkCount { get; init; }

        [JsonPropertyName("chunks")]
        public required List<ChunkInfo> Chunks { get; init; }

        [JsonPropertyName("total_row_count")]
        public long TotalRowCount { get; init; }

        [JsonPropertyName("total_byte_count")]
        public long? TotalByteCount { get; init; }

        [JsonPropertyName("truncated")]
        public bool Truncated { get; init; }

        /// <summary>LZ4_FRAME when every chunk (attachment or file) is LZ4-framed; absent otherwise.</summary>
        [JsonPropertyName("result_compression")]
        public string? ResultCompression { get; init; }
    }

    public sealed record ResultSchema(
        [property: JsonPropertyName("column_count")] int ColumnCount,
        [property: JsonPropertyName("columns")] List<ColumnInfo> Columns);

    public sealed class ColumnInfo
    {
        [JsonPropertyName("name")]
        public required string Name { get; init; }

        [JsonPropertyName("position")]
        public int Position { get; init; }

        /// <summary>The API's type enum: BOOLEAN, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, DECIMAL, STRING, BINARY, DATE, TIMESTAMP, INTERVAL, ARRAY, MAP, STRUCT, NULL.</summary>
        [JsonPropertyName("type_name")]
        public required string TypeName { get; init; }

        /// <summary>The SQL type: what the driver maps to Arrow (ArrowTypeParser) and reports.</summary>
        [JsonPropertyName("type_text")]
        public required string TypeText { get; init; }

        [JsonPropertyName("type_precision")]
        public int? TypePrecision { get; init; }

        [JsonPropertyName("type_scale")]
        public int? TypeScale { get; init; }

        [JsonPropertyName("type_interval_type")]
        public string? TypeIntervalType { get; init; }
    }

    /// <summary>One chunk as manifest.chunks lists it.</summary>
    public sealed record ChunkInfo(
        [property: JsonPropertyName("chunk_index")] int ChunkIndex,
        [property: JsonPropertyName("row_offset")] long RowOffset,
        [property: JsonPropertyName("row_count")] long RowCount,
        [property: JsonPropertyName("byte_count")] long? ByteCount);

    /// <summary>One chunk's data: result of execute/GET, or GET .../result/chunks/{n}.</summary>
    public sealed class ResultData : ChunkPlacement
    {
        [JsonPropertyName("byte_count")]
        public long? ByteCount { get; init; }

        /// <summary>INLINE + JSON_ARRAY: the rows, every value a string or null.</summary>
        [JsonPropertyName("data_array")]
        public List<string?[]>? DataArray { get; init; }

        /// <summary>INLINE + ARROW_STREAM: a piece of one Arrow IPC stream (base64 in JSON), LZ4-framed on its own when compressed.</summary>
        [JsonPropertyName("attachment")]
        public byte[]? Attachment { get; init; }

        [JsonPropertyName("external_links")]
        public List<ExternalLink>? ExternalLinks { get; init; }
    }

    public sealed class ExternalLink : ChunkPlacement
    {
        [JsonPropertyName("byte_count")]
        public long ByteCount { get; init; }

        [JsonPropertyName("external_link")]
        public required string Url { get; init; }

        /// <summary>ISO 8601, UTC ("2026-11-26T10:00:00.000Z").</summary>
        [JsonPropertyName("expiration")]
        public required string Expiration { get; init; }

        [JsonPropertyName("http_headers")]
        public Dictionary<string, string>? HttpHeaders { get; init; }
    }

    /// <summary>Where a chunk stands in the result and which chunk comes next: what ResultData and ExternalLink both carry.</summary>
    public abstract class ChunkPlacement
    {
        [JsonPropertyName("chunk_index")]
        public int ChunkIndex { get; init; }

        [JsonPropertyName("row_offset")]
        public long RowOffset { get; init; }

        [JsonPropertyName("row_count")]
        public long RowCount { get; init; }

        [JsonPropertyName("next_chunk_index")]
        public int? NextChunkIndex { get; init; }

        [JsonPropertyName("next_chunk_internal_link")]
        public string? NextChunkInternalLink { get; init; }
    }
}
