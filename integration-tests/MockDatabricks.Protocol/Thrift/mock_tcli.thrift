// The subset of TCLIService the mock Databricks server speaks, written for the mock: only the structs, fields
// and enum values it reads or writes, with the field ids and wire types the driver expects (reference note
// sections 4.x), including the Databricks extension fields (ids 1281+). Enum member names are the mock's own;
// only their values travel on the wire. Fields the mock never uses are left out: readers skip them.
namespace netstd MockDatabricks.Protocol.Cli

enum TStatusCode { Success = 0, SuccessWithInfo = 1, StillExecuting = 2, Error = 3, InvalidHandle = 4 }

enum TOperationState {
  Initialized = 0, Running = 1, Finished = 2, Canceled = 3, Closed = 4, Error = 5, Unknown = 6, Pending = 7,
  TimedOut = 8
}

enum TOperationType {
  ExecuteStatement = 0, GetTypeInfo = 1, GetCatalogs = 2, GetSchemas = 3, GetTables = 4, GetTableTypes = 5,
  GetColumns = 6, GetFunctions = 7, Unknown = 8, ProceduralSql = 9
}

enum TSparkRowSetType { ArrowBasedSet = 0, ColumnBasedSet = 1, RowBasedSet = 2, UrlBasedSet = 3 }

enum TFetchOrientation {
  FetchNext = 0, FetchPrior = 1, FetchRelative = 2, FetchAbsolute = 3, FetchFirst = 4, FetchLast = 5
}

enum TTypeId {
  Boolean = 0, TinyInt = 1, SmallInt = 2, Int = 3, BigInt = 4, Float = 5, Double = 6, String = 7, Timestamp = 8,
  Binary = 9, Array = 10, Map = 11, Struct = 12, Union = 13, UserDefined = 14, Decimal = 15, Null = 16, Date = 17,
  Varchar = 18, Char = 19, IntervalYearMonth = 20, IntervalDayTime = 21, TimestampLocalTz = 22
}

struct THandleIdentifier { 1: required binary guid, 2: required binary secret }

struct TSessionHandle { 1: required THandleIdentifier sessionId }

struct TOperationHandle {
  1: required THandleIdentifier operationId
  2: required TOperationType operationType
  3: required bool hasResultSet
  4: optional double modifiedRowCount
}

struct TStatus {
  1: required TStatusCode statusCode
  2: optional list<string> infoMessages
  3: optional string sqlState
  4: optional i32 errorCode
  5: optional string errorMessage
  6: optional string displayMessage
  1281: optional string errorDetailsJson
}

struct TNamespace { 1: optional string catalogName, 2: optional string schemaName }

struct TOpenSessionReq {
  1: optional i32 clientProtocol
  2: optional string username
  3: optional string password
  4: optional map<string, string> configuration
  1282: optional i64 clientProtocolI64
  1284: optional TNamespace initialNamespace
  1285: optional bool canUseMultipleCatalogs
}

struct TOpenSessionResp {
  1: required TStatus status
  2: required i32 serverProtocolVersion
  3: optional TSessionHandle sessionHandle
  4: optional map<string, string> configuration
  1284: optional TNamespace initialNamespace
  1285: optional bool canUseMultipleCatalogs
}

struct TCloseSessionReq { 1: required TSessionHandle sessionHandle }
struct TCloseSessionResp { 1: required TStatus status }

struct TGetInfoReq { 1: required TSessionHandle sessionHandle, 2: required i32 infoType }
union TGetInfoValue { 1: string stringValue, 4: i32 integerValue }
struct TGetInfoResp { 1: required TStatus status, 2: required TGetInfoValue infoValue }

struct TSparkGetDirectResults { 1: required i64 maxRows, 2: optional i64 maxBytes }

struct TSparkArrowTypes {
  1: optional bool timestampAsArrow
  2: optional bool decimalAsArrow
  3: optional bool complexTypesAsArrow
  4: optional bool intervalTypesAsArrow
  5: optional bool nullTypeAsArrow
}

struct TExecuteStatementReq {
  1: required TSessionHandle sessionHandle
  2: required string statement
  3: optional map<string, string> confOverlay
  4: optional bool runAsync
  5: optional i64 queryTimeout
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool canReadArrowResult
  1283: optional bool canDownloadResult
  1284: optional bool canDecompressLZ4Result
  1285: optional i64 maxBytesPerFile
  1286: optional TSparkArrowTypes useArrowNativeTypes
  1287: optional i64 resultRowLimit
}

struct TGetOperationStatusReq { 1: required TOperationHandle operationHandle, 2: optional bool getProgressUpdate }

struct TGetOperationStatusResp {
  1: required TStatus status
  2: optional TOperationState operationState
  3: optional string sqlState
  4: optional i32 errorCode
  5: optional string errorMessage
  9: optional bool hasResultSet
  11: optional i64 numModifiedRows
  1281: optional string displayMessage
}

// DECIMAL columns carry precision and scale here (a warehouse always sends them; the Python connector refuses a
// DECIMAL column without them).
union TTypeQualifierValue { 1: i32 i32Value, 2: string stringValue }
struct TTypeQualifiers { 1: required map<string, TTypeQualifierValue> qualifiers }
struct TPrimitiveTypeEntry { 1: required TTypeId type, 2: optional TTypeQualifiers typeQualifiers }
union TTypeEntry { 1: TPrimitiveTypeEntry primitiveEntry }
struct TTypeDesc { 1: required list<TTypeEntry> types }

struct TColumnDesc {
  1: required string columnName
  2: required TTypeDesc typeDesc
  3: required i32 position
  4: optional string comment
}

struct TTableSchema { 1: required list<TColumnDesc> columns }

struct TGetResultSetMetadataReq { 1: required TOperationHandle operationHandle }

struct TGetResultSetMetadataResp {
  1: required TStatus status
  2: optional TTableSchema schema
  1281: optional TSparkRowSetType resultFormat
  1282: optional bool lz4Compressed
  1283: optional binary arrowSchema
  1285: optional i64 uncompressedBytes
  1286: optional i64 compressedBytes
}

struct TFetchResultsReq {
  1: required TOperationHandle operationHandle
  2: required TFetchOrientation orientation = TFetchOrientation.FetchNext
  3: required i64 maxRows
  4: optional i16 fetchType
  1281: optional i64 maxBytes
  1282: optional i64 startRowOffset
  1283: optional bool includeResultSetMetadata
}

// Row-based rows are never sent (always an empty list); the struct exists for the required field's type.
struct TRow { }

// Column-based results (COLUMN_BASED_SET), for a client that cannot read Arrow: one TColumn per result column,
// values in the column's own Thrift type, and a null bitmap (bit i set = row i is null, least significant bit first).
// TINYINT travels in byteVal, SMALLINT in i16Val, BINARY in binaryVal (metadata results have TINYINT and SMALLINT columns).
struct TBoolColumn { 1: required list<bool> values, 2: required binary nulls }
struct TByteColumn { 1: required list<i8> values, 2: required binary nulls }
struct TI16Column { 1: required list<i16> values, 2: required binary nulls }
struct TI32Column { 1: required list<i32> values, 2: required binary nulls }
struct TI64Column { 1: required list<i64> values, 2: required binary nulls }
struct TDoubleColumn { 1: required list<double> values, 2: required binary nulls }
struct TStringColumn { 1: required list<string> values, 2: required binary nulls }
struct TBinaryColumn { 1: required list<binary> values, 2: required binary nulls }
union TColumn {
  1: TBoolColumn boolVal
  2: TByteColumn byteVal
  3: TI16Column i16Val
  4: TI32Column i32Val
  5: TI64Column i64Val
  6: TDoubleColumn doubleVal
  7: TStringColumn stringVal
  8: TBinaryColumn binaryVal
}

struct TSparkArrowBatch { 1: required binary batch, 2: required i64 rowCount }

struct TSparkArrowResultLink {
  1: required string fileLink
  2: required i64 expiryTime
  3: required i64 startRowOffset
  4: required i64 rowCount
  5: required i64 bytesNum
  6: optional map<string, string> httpHeaders
}

struct TRowSet {
  1: required i64 startRowOffset
  2: required list<TRow> rows = []
  3: optional list<TColumn> columns
  1281: optional list<TSparkArrowBatch> arrowBatches
  1282: optional list<TSparkArrowResultLink> resultLinks
}

// resultSetMetadata comes back only when the request set includeResultSetMetadata (the Python connector, the Go and the
// JDBC drivers do; the ADBC driver does not), as a warehouse answers.
struct TFetchResultsResp {
  1: required TStatus status
  2: optional bool hasMoreRows
  3: optional TRowSet results
  1281: optional TGetResultSetMetadataResp resultSetMetadata
}

struct TSparkDirectResults {
  1: optional TGetOperationStatusResp operationStatus
  2: optional TGetResultSetMetadataResp resultSetMetadata
  3: optional TFetchResultsResp resultSet
  4: optional TCloseOperationResp closeOperation
}

struct TExecuteStatementResp {
  1: required TStatus status
  2: optional TOperationHandle operationHandle
  1281: optional TSparkDirectResults directResults
}

struct TCancelOperationReq { 1: required TOperationHandle operationHandle }
struct TCancelOperationResp { 1: required TStatus status }
struct TCloseOperationReq { 1: required TOperationHandle operationHandle }
struct TCloseOperationResp { 1: required TStatus status }

// Metadata RPCs (what the driver calls for GetObjects, GetTableTypes, GetTableSchema and its statement-level metadata
// commands). Each request carries the session and its own filters, plus the Databricks extensions getDirectResults and
// runAsync; names are patterns (% and _) except in GetPrimaryKeys and GetCrossReference, which take exact names.
struct TGetCatalogsReq {
  1: required TSessionHandle sessionHandle
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool runAsync
}

struct TGetSchemasReq {
  1: required TSessionHandle sessionHandle
  2: optional string catalogName
  3: optional string schemaName
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool runAsync
}

struct TGetTablesReq {
  1: required TSessionHandle sessionHandle
  2: optional string catalogName
  3: optional string schemaName
  4: optional string tableName
  5: optional list<string> tableTypes
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool runAsync
}

struct TGetTableTypesReq {
  1: required TSessionHandle sessionHandle
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool runAsync
}

struct TGetColumnsReq {
  1: required TSessionHandle sessionHandle
  2: optional string catalogName
  3: optional string schemaName
  4: optional string tableName
  5: optional string columnName
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool runAsync
}

struct TGetPrimaryKeysReq {
  1: required TSessionHandle sessionHandle
  2: optional string catalogName
  3: optional string schemaName
  4: optional string tableName
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool runAsync
}

struct TGetCrossReferenceReq {
  1: required TSessionHandle sessionHandle
  2: optional string parentCatalogName
  3: optional string parentSchemaName
  4: optional string parentTableName
  5: optional string foreignCatalogName
  6: optional string foreignSchemaName
  7: optional string foreignTableName
  1281: optional TSparkGetDirectResults getDirectResults
  1282: optional bool runAsync
}

// TGetCatalogsResp, TGetSchemasResp, TGetTablesResp, TGetTableTypesResp, TGetColumnsResp, TGetPrimaryKeysResp and
// TGetCrossReferenceResp are the same three fields on the wire (struct names do not travel): one struct serves them all.
struct TMetadataResp {
  1: required TStatus status
  2: optional TOperationHandle operationHandle
  1281: optional TSparkDirectResults directResults
}
