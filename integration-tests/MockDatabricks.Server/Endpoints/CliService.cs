using System;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Types;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Protocol.Data;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.Query.Sql;
using MockDatabricks.Server.ResultSets;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>The TCLIService methods. Each returns the response struct; protocol errors are thrown to the endpoint.</summary>
    public sealed class CliService(SessionRegistry sessions, DatasetStore datasets, ResultBuilder results)
    {
        public TOpenSessionResp OpenSession(TOpenSessionReq request)
        {
            var handle = new TSessionHandle { SessionId = THandleIdentifier.CreateRandom() };

            // The session starts in the namespace the client asked for (a warehouse with canUseMultipleCatalogs=false
            // ignores the catalog: the legacy metastore), with the client's configuration, which a bare SET lists.
            // A client that does not say (the Node.js driver) gets multiple catalogs, as before this field was read.
            bool multipleCatalogs = !request.__isset.canUseMultipleCatalogs || request.CanUseMultipleCatalogs;
            string? catalog = multipleCatalogs ? request.InitialNamespace?.CatalogName : null;
            var context = new SessionContext(catalog, request.InitialNamespace?.SchemaName, request.Configuration, multipleCatalogs);
            sessions.OpenSession(handle.SessionId.ToHex(), context);
            return new TOpenSessionResp
            {
                Status = TStatus.Ok(),
                ServerProtocolVersion = TProtocolVersion.SparkV7,
                SessionHandle = handle,

                // The namespace the session is in (the client's, or the default catalog and schema), as a warehouse answers:
                // its presence stops the driver from running "USE default" after connecting, and the driver takes the
                // statement's catalog from it. Without multiple catalogs a warehouse names no catalog.
                InitialNamespace = new TNamespace { CatalogName = multipleCatalogs ? context.Catalog : null, SchemaName = context.Schema },
                CanUseMultipleCatalogs = multipleCatalogs,
            };
        }

        public async Task<(TExecuteStatementResp Response, MockOperation? Operation)> ExecuteStatementAsync(TExecuteStatementReq request, string baseUrl)
        {
            string session = request.SessionHandle.SessionId.ToHex();
            if (!sessions.IsOpen(session))
            {
                return (new TExecuteStatementResp { Status = TStatus.Failure($"Invalid SessionHandle {session}: not open on this server.", "HY000", 0, TStatusCode.InvalidHandle) }, null);
            }

            QuerySpec query;
            try
            {
                var context = new StatementContext(sessions.Context(session)!, request.__isset.maxBytesPerFile ? request.MaxBytesPerFile : null);
                query = StatementPlanner.Plan(request.Statement, context);
            }
            catch (SqlError ex)
            {
                return (new TExecuteStatementResp { Status = TStatus.Failure(ex.Message, ex.SqlState, 0) }, null);
            }
            catch (Exception ex) when (ex is FormatException or ArgumentException)
            {
                return (new TExecuteStatementResp { Status = TStatus.Failure("[PARSE_SYNTAX_ERROR] " + ex.Message, "42601", 1064) }, null);
            }

            // A client that cannot read Arrow gets column-based rows, inline and uncompressed, whatever else it allows.
            bool columnBased = request.CanReadArrowResult != true;
            bool lz4 = !columnBased && query.Lz4Allowed && (query.Lz4Always || request.CanDecompressLZ4Result == true);
            MockOperation operation = CreateOperation(request, session, query, lz4, columnBased);
            sessions.AddOperation(operation);

            var response = new TExecuteStatementResp { Status = TStatus.Ok(), OperationHandle = operation.Handle };
            if (request.GetDirectResults is not TSparkGetDirectResults direct || !query.DirectResults || query.RunningFor > TimeSpan.Zero)
            {
                // A statement still running has no results to send with the reply: the client polls.
                return (response, operation);
            }

            // Direct results: the statement is finished, metadata and the first chunk come with the reply.
            operation.RunningPollsLeft = 0;
            operation.State = TOperationState.Finished;
            TFetchResultsResp first = await results.FetchAsync(operation, baseUrl, null, direct.MaxRows, direct.__isset.maxBytes ? direct.MaxBytes : null).ConfigureAwait(false);
            response.DirectResults = new TSparkDirectResults
            {
                OperationStatus = new TGetOperationStatusResp { Status = TStatus.Ok(), OperationState = TOperationState.Finished, HasResultSet = true },
                ResultSetMetadata = ResultBuilder.Metadata(operation),
                ResultSet = first,
            };
            if (query.CloseInDirectResults && first.HasMoreRows == false)
            {
                operation.State = TOperationState.Closed;
                response.DirectResults.CloseOperation = new TCloseOperationResp { Status = TStatus.Ok() };
            }

            return (response, operation);
        }

        /// <summary>
        /// A catalog RPC (GetCatalogs, GetSchemas, GetTables, GetTableTypes, GetColumns, GetPrimaryKeys, GetCrossReference):
        /// an operation whose result is the catalog's answer, column-based as a warehouse sends metadata, finished at once
        /// and returned in direct results when the client asked for them (the driver reads only those).
        /// </summary>
        public async Task<(TMetadataResp Response, MockOperation? Operation)> MetadataAsync(TSessionHandle sessionHandle, TOperationType type, TSparkGetDirectResults? direct, Func<SessionContext, QuerySpec> answer, string baseUrl)
        {
            string session = sessionHandle.SessionId.ToHex();
            if (sessions.Context(session) is not SessionContext context)
            {
                return (new TMetadataResp { Status = TStatus.Failure($"Invalid SessionHandle {session}: not open on this server.", "HY000", 0, TStatusCode.InvalidHandle) }, null);
            }

            QuerySpec query = answer(context) with { DirectResults = direct != null };
            var handle = new TOperationHandle { OperationId = THandleIdentifier.CreateRandom(), OperationType = type, HasResultSet = true };
            StoredDataset dataset = DatasetStore.Uncached(query.Dataset, lz4: false, query.Framing, ResultTypes.Native);
            var operation = new MockOperation(handle, session, type.ToString(), query, dataset, cloudFetch: false, lz4: false, columnBased: true);
            // A catalog lookup is finished when the call returns: the first poll already says FINISHED.
            operation.RunningPollsLeft = 0;
            operation.State = TOperationState.Finished;
            sessions.AddOperation(operation);
            var response = new TMetadataResp { Status = TStatus.Ok(), OperationHandle = handle };
            if (direct == null)
            {
                return (response, operation);
            }

            TFetchResultsResp first = await results.FetchAsync(operation, baseUrl, null, direct.MaxRows, direct.__isset.maxBytes ? direct.MaxBytes : null).ConfigureAwait(false);
            response.DirectResults = new TSparkDirectResults
            {
                OperationStatus = new TGetOperationStatusResp { Status = TStatus.Ok(), OperationState = TOperationState.Finished, HasResultSet = true },
                ResultSetMetadata = ResultBuilder.Metadata(operation),
                ResultSet = first,
            };
            return (response, operation);
        }

        public TGetOperationStatusResp GetOperationStatus(MockOperation operation)
        {
            lock (operation.Lock)
            {
                if (operation.State == TOperationState.Running && operation.RunningPollsLeft-- <= 0 && DateTimeOffset.UtcNow >= operation.RunningUntil)
                {
                    operation.State = operation.Query.FailsWith == null ? TOperationState.Finished : TOperationState.Error;
                }

                var response = new TGetOperationStatusResp
                {
                    Status = TStatus.Ok(),
                    OperationState = operation.State == TOperationState.Closed ? TOperationState.Finished : operation.State,
                    HasResultSet = true,
                };
                if (operation.State == TOperationState.Error && operation.Query.FailsWith is SqlError error)
                {
                    // A statement that ran and failed: ERROR_STATE with the error, as a warehouse reports a failed query.
                    response.ErrorMessage = error.Message;
                    response.SqlState = error.SqlState;
                    response.DisplayMessage = error.Message;
                }

                return response;
            }
        }

        public TGetResultSetMetadataResp GetResultSetMetadata(MockOperation operation) => ResultBuilder.Metadata(operation);

        public async Task<TFetchResultsResp> FetchResultsAsync(MockOperation operation, TFetchResultsReq request, string baseUrl)
        {
            if (operation.State is TOperationState.Running or TOperationState.Canceled or TOperationState.Error)
            {
                return new TFetchResultsResp
                {
                    Status = TStatus.Failure($"Operation {operation.Id} is {operation.State}; poll GetOperationStatus until FINISHED before fetching.", "HY010", 0),
                    HasMoreRows = false,
                    Results = new TRowSet { StartRowOffset = request.StartRowOffset, ArrowBatches = new() },
                };
            }

            TFetchResultsResp response = await results.FetchAsync(operation, baseUrl, request.__isset.startRowOffset ? request.StartRowOffset : null, request.MaxRows, request.__isset.maxBytes ? request.MaxBytes : null).ConfigureAwait(false);

            // The Python connector (and the Go and JDBC drivers) ask for the metadata with every page and read the row set's
            // format from it (resultSetMetadata.resultFormat) instead of remembering it; a warehouse sends it when asked.
            if (request.__isset.includeResultSetMetadata && request.IncludeResultSetMetadata)
            {
                response.ResultSetMetadata = ResultBuilder.Metadata(operation);
            }

            return response;
        }

        public TCloseOperationResp CloseOperation(MockOperation operation)
        {
            lock (operation.Lock)
            {
                operation.State = TOperationState.Closed;
            }

            return new TCloseOperationResp { Status = TStatus.Ok() };
        }

        public TCancelOperationResp CancelOperation(MockOperation operation)
        {
            lock (operation.Lock)
            {
                if (operation.State != TOperationState.Closed)
                {
                    operation.State = TOperationState.Canceled;
                }
            }

            return new TCancelOperationResp { Status = TStatus.Ok() };
        }

        public TCloseSessionResp CloseSession(TCloseSessionReq request)
        {
            string session = request.SessionHandle.SessionId.ToHex();
            return sessions.CloseSession(session)
                ? new TCloseSessionResp { Status = TStatus.Ok() }
                : new TCloseSessionResp { Status = TStatus.Failure($"Invalid SessionHandle {session}: not open.", "HY000", 0, TStatusCode.InvalidHandle) };
        }

        public TGetInfoResp GetInfo(TGetInfoReq request)
        {
            string? value = request.InfoType switch
            {
                TGetInfoType.DbmsName => "Spark SQL",
                TGetInfoType.DbmsVersion => "3.5.0 (MockDatabricks)",
                _ => null,
            };
            return value == null
                ? new TGetInfoResp { Status = TStatus.Failure($"GetInfo type {request.InfoType} is not supported by the mock.", "HYC00", 0), InfoValue = new TGetInfoValue { StringValue = string.Empty } }
                : new TGetInfoResp { Status = TStatus.Ok(), InfoValue = new TGetInfoValue { StringValue = value } };
        }

        private MockOperation CreateOperation(TExecuteStatementReq request, string session, QuerySpec query, bool lz4, bool columnBased)
        {
            var handle = new TOperationHandle
            {
                OperationId = THandleIdentifier.CreateRandom(),
                OperationType = TOperationType.ExecuteStatement,
                HasResultSet = true,
            };

            if (query.Kind != StatementKind.Dataset)
            {
                // USE: an empty string column, no rows.
                var schema = new Schema(new[] { new Field("result", StringType.Default, nullable: true) }, metadata: null);
                IArrowArray column = new StringArray.Builder().Build();
                return new MockOperation(handle, session, request.Statement, query, null, cloudFetch: false, lz4, columnBased)
                {
                    StaticBatch = new RecordBatch(schema, new[] { column }, column.Length),
                };
            }

            bool cloudFetch = !columnBased && query.UsesCloudFetch(request.CanDownloadResult == true);

            // Inline batches are framed with the data set's frame options too; files and batches share one cache entry.
            // Column-based rows are built from the native batches, so their data set is the native one.
            ResultTypes types = columnBased ? ResultTypes.Native : TypesOf(request.UseArrowNativeTypes);
            StoredDataset dataset = query.Cacheable
                ? datasets.Get(query.Dataset, lz4, query.Framing, types)
                : DatasetStore.Uncached(query.Dataset, lz4, query.Framing, types);
            return new MockOperation(handle, session, request.Statement, query, dataset, cloudFetch, lz4, columnBased);
        }

        /// <summary>Native Arrow types only where the client asked for them (absent = strings, as a warehouse answers).</summary>
        private static ResultTypes TypesOf(TSparkArrowTypes? requested) =>
            new ResultTypes(
                requested?.__isset.timestampAsArrow == true && requested.TimestampAsArrow,
                requested?.__isset.decimalAsArrow == true && requested.DecimalAsArrow,
                requested?.__isset.complexTypesAsArrow == true && requested.ComplexTypesAsArrow,
                requested?.__isset.intervalTypesAsArrow == true && requested.IntervalTypesAsArrow);
    }
}
