using MockDatabricks.Protocol.Cli;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.Query.Sql;
using MockDatabricks.Server.ResultSets;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>The TCLIService methods. Each returns the response struct; protocol errors are thrown to the endpoint.</summary>
    public sealed class CliService(SessionRegistry sessions, StatementExecutor executor, ResultBuilder results)
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

            MockOperation operation;
            try
            {
                // A client that cannot read Arrow gets column-based rows, inline and uncompressed, whatever else it allows.
                var client = new ResultRequest(
                    ArrowResults: request.CanReadArrowResult == true,
                    CanDownload: request.CanDownloadResult == true,
                    LinksForEveryResult: false,
                    Lz4: request.CanDecompressLZ4Result == true,
                    Types: TypesOf(request.UseArrowNativeTypes),
                    MaxBytesPerFile: request.__isset.maxBytesPerFile ? request.MaxBytesPerFile : null);
                operation = executor.Execute(session, request.Statement, client);
            }
            catch (StatementRefusedException refused)
            {
                return (new TExecuteStatementResp { Status = TStatus.Failure(refused.Message, refused.SqlState, refused.ErrorCode) }, null);
            }

            QuerySpec query = operation.Query;
            var response = new TExecuteStatementResp { Status = TStatus.Ok(), OperationHandle = operation.Handle };
            if (request.GetDirectResults is not TSparkGetDirectResults direct || !query.DirectResults || query.RunningFor > TimeSpan.Zero)
            {
                // A statement still running has no results to send with the reply: the client polls.
                return (response, operation);
            }

            // Direct results: the statement is finished, metadata and the first chunk come with the reply.
            operation.RunningPollsLeft = 0;
            operation.State = TOperationState.Finished;
            response.DirectResults = await DirectResultsAsync(operation, direct, baseUrl).ConfigureAwait(false);
            if (query.CloseInDirectResults && response.DirectResults.ResultSet.HasMoreRows == false)
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

            MockOperation operation = executor.Answer(session, type, answer(context) with { DirectResults = direct != null });
            var response = new TMetadataResp { Status = TStatus.Ok(), OperationHandle = operation.Handle };
            if (direct == null)
            {
                return (response, operation);
            }

            response.DirectResults = await DirectResultsAsync(operation, direct, baseUrl).ConfigureAwait(false);
            return (response, operation);
        }

        /// <summary>A finished operation's status, metadata and first chunk, sent with the reply that started it.</summary>
        private async Task<TSparkDirectResults> DirectResultsAsync(MockOperation operation, TSparkGetDirectResults direct, string baseUrl)
        {
            TFetchResultsResp first = await results.FetchAsync(operation, baseUrl, null, direct.MaxRows, direct.__isset.maxBytes ? direct.MaxBytes : null).ConfigureAwait(false);
            return new TSparkDirectResults
            {
                OperationStatus = new TGetOperationStatusResp { Status = TStatus.Ok(), OperationState = TOperationState.Finished, HasResultSet = true },
                ResultSetMetadata = ResultBuilder.Metadata(operation),
                ResultSet = first,
            };
        }

        public TGetOperationStatusResp GetOperationStatus(MockOperation operation)
        {
            TOperationState state = operation.Poll();
            var response = new TGetOperationStatusResp
            {
                Status = TStatus.Ok(),

                // Thrift has no CLOSED state to report: a closed operation reads as finished.
                OperationState = state == TOperationState.Closed ? TOperationState.Finished : state,
                HasResultSet = true,
            };
            if (state == TOperationState.Error && operation.Query.FailsWith is SqlError error)
            {
                // A statement that ran and failed: ERROR_STATE with the error, as a warehouse reports a failed query.
                response.ErrorMessage = error.Message;
                response.SqlState = error.SqlState;
                response.DisplayMessage = error.Message;
            }

            return response;
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
            operation.Close();
            return new TCloseOperationResp { Status = TStatus.Ok() };
        }

        public TCancelOperationResp CancelOperation(MockOperation operation)
        {
            operation.Cancel();
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

        /// <summary>Native Arrow types only where the client asked for them (absent = strings, as a warehouse answers).</summary>
        private static ResultTypes TypesOf(TSparkArrowTypes? requested) =>
            new ResultTypes(
                requested?.__isset.timestampAsArrow == true && requested.TimestampAsArrow,
                requested?.__isset.decimalAsArrow == true && requested.DecimalAsArrow,
                requested?.__isset.complexTypesAsArrow == true && requested.ComplexTypesAsArrow,
                requested?.__isset.intervalTypesAsArrow == true && requested.IntervalTypesAsArrow);
    }
}
