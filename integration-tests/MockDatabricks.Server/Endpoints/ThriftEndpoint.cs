using System.IO;
using Microsoft.AspNetCore.Http;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Protocol.Thrift;
using MockDatabricks.Server.Catalog;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.State;
using Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;
using Thrift.Transport;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>
    /// POST /sql/1.0/warehouses/{id}: one Thrift binary message in, one out, HTTP 200. Missing or wrong bearer
    /// token: HTTP 401. Unparsable message header: HTTP 400 with x-thriftserver-error-message. Unknown method or
    /// malformed arguments: a Thrift EXCEPTION message (TApplicationException). Unknown handles: TStatus errors.
    /// </summary>
    public sealed class ThriftEndpoint
    {
        private const int MaxRequestBytes = 16 * 1024 * 1024;
        private readonly CliService _service;
        private readonly SessionRegistry _sessions;
        private readonly RequestJournal _journal;
        private readonly AdminFaultRegistry _adminFaults;
        private readonly ServerOptions _options;

        public ThriftEndpoint(CliService service, SessionRegistry sessions, RequestJournal journal, AdminFaultRegistry adminFaults, ServerOptions options)
        {
            _service = service;
            _sessions = sessions;
            _journal = journal;
            _adminFaults = adminFaults;
            _options = options;
        }

        public async Task HandleAsync(HttpContext context)
        {
            string? authorization = context.Request.Headers.Authorization;
            if (authorization != "Bearer " + _options.Token)
            {
                _journal.Add("http", "POST", StatusCodes.Status401Unauthorized, "unauthorized", detail: authorization == null ? "no Authorization header" : "wrong token");
                context.Response.StatusCode = StatusCodes.Status401Unauthorized;
                context.Response.Headers.WWWAuthenticate = "Bearer";
                await context.Response.WriteAsync("Unauthorized: invalid access token.").ConfigureAwait(false);
                return;
            }

            byte[] body;
            try
            {
                body = await ReadBodyAsync(context).ConfigureAwait(false);
            }
            catch (InvalidDataException ex)
            {
                await BadRequestAsync(context, "?", ex.Message).ConfigureAwait(false);
                return;
            }

            using TProtocol reader = ThriftMessages.OpenReader(body);
            TMessage header;
            try
            {
                header = await ThriftMessages.ReadCallHeaderAsync(reader, context.RequestAborted).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is TProtocolException or TTransportException)
            {
                await BadRequestAsync(context, "?", "Not a Thrift binary protocol CALL message: " + ex.Message).ConfigureAwait(false);
                return;
            }

            var call = new RpcCall(header, context, BaseUrl(context));
            Answer answer;
            try
            {
                answer = await DispatchAsync(call, reader).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is TProtocolException or TTransportException)
            {
                // Truncated arguments surface as a transport END_OF_FILE, bad values as protocol errors: both are the client's fault.
                // The generated structs throw INVALID_DATA without a message when a required field is missing.
                string reason = ex.Message.Length > 0 ? ex.Message : "a required field is not set";
                answer = Exception(call, TApplicationException.ExceptionType.ProtocolError, $"{header.Name}: malformed arguments: {reason}");
            }
            catch (Exception ex) when (ex is not OperationCanceledException)
            {
                answer = Exception(call, TApplicationException.ExceptionType.InternalError, $"{header.Name}: mock server error: {ex.GetType().Name}: {ex.Message}");
            }

            if (call.Status != StatusCodes.Status200OK)
            {
                context.Response.StatusCode = call.Status;
                context.Response.Headers["x-thriftserver-error-message"] = call.Detail ?? "injected HTTP error";
                Journal(call);
                return;
            }

            Journal(call);
            if (call.ReplyDelayMs > 0)
            {
                // rpc_slow: journaled first, so what the client does meanwhile comes after this call in the journal.
                await Task.Delay(call.ReplyDelayMs, context.RequestAborted).ConfigureAwait(false);
            }

            byte[] reply = answer.Response != null
                ? await ThriftMessages.EncodeReplyAsync(header.Name, header.SeqID, answer.Response, context.RequestAborted).ConfigureAwait(false)
                : await ThriftMessages.EncodeExceptionAsync(header.Name, header.SeqID, answer.Error!, context.RequestAborted).ConfigureAwait(false);
            context.Response.ContentType = "application/x-thrift";
            context.Response.ContentLength = reply.Length;
            await context.Response.Body.WriteAsync(reply, context.RequestAborted).ConfigureAwait(false);
        }

        private async Task<Answer> DispatchAsync(RpcCall call, TProtocol reader)
        {
            switch (call.Header.Name)
            {
                case "OpenSession":
                    {
                        TOpenSessionReq request = await ReadArgumentsAsync<TOpenSessionReq>(call, reader).ConfigureAwait(false);
                        if (InjectFault(call, null) is Answer faulted)
                        {
                            return faulted;
                        }

                        TOpenSessionResp response = _service.OpenSession(request);
                        call.Session = response.SessionHandle!.SessionId.ToHex();
                        return Reply(call, response, response.Status);
                    }

                case "ExecuteStatement":
                    {
                        TExecuteStatementReq request = await ReadArgumentsAsync<TExecuteStatementReq>(call, reader).ConfigureAwait(false);
                        call.Session = request.SessionHandle.SessionId.ToHex();
                        call.Detail = request.Statement.Length <= 300 ? request.Statement : request.Statement.Substring(0, 300) + "...";
                        call.MaxRows = request.GetDirectResults?.MaxRows;
                        call.MaxBytes = request.GetDirectResults?.__isset.maxBytes == true ? request.GetDirectResults.MaxBytes : null;
                        (TExecuteStatementResp response, MockOperation? operation) = await _service.ExecuteStatementAsync(request, call.BaseUrl).ConfigureAwait(false);
                        if (operation != null)
                        {
                            call.Operation = operation.Id;
                            call.Tag = operation.Tag;
                            if (InjectFault(call, operation) is Answer faulted)
                            {
                                return faulted;
                            }
                        }

                        return Reply(call, response, response.Status);
                    }

                case "GetOperationStatus":
                    {
                        TGetOperationStatusReq request = await ReadArgumentsAsync<TGetOperationStatusReq>(call, reader).ConfigureAwait(false);
                        return WithOperation(call, request.OperationHandle, operation =>
                        {
                            TGetOperationStatusResp response = _service.GetOperationStatus(operation);
                            call.Detail = response.OperationState.ToString();
                            return response;
                        }, response => response.Status, status => new TGetOperationStatusResp { Status = status, OperationState = TOperationState.Error, ErrorMessage = status.ErrorMessage });
                    }

                case "GetResultSetMetadata":
                    {
                        TGetResultSetMetadataReq request = await ReadArgumentsAsync<TGetResultSetMetadataReq>(call, reader).ConfigureAwait(false);
                        return WithOperation(call, request.OperationHandle, _service.GetResultSetMetadata, response => response.Status, status => new TGetResultSetMetadataResp { Status = status });
                    }

                case "FetchResults":
                    {
                        TFetchResultsReq request = await ReadArgumentsAsync<TFetchResultsReq>(call, reader).ConfigureAwait(false);
                        call.StartRowOffset = request.__isset.startRowOffset ? request.StartRowOffset : null;
                        call.MaxRows = request.MaxRows;
                        call.MaxBytes = request.__isset.maxBytes ? request.MaxBytes : null;
                        MockOperation? operation = Find(call, request.OperationHandle);
                        if (operation == null)
                        {
                            TStatus missing = UnknownOperation(call);
                            return Reply(call, new TFetchResultsResp { Status = missing, HasMoreRows = false, Results = new TRowSet { ArrowBatches = new() } }, missing);
                        }

                        if (InjectFault(call, operation) is Answer faulted)
                        {
                            return faulted;
                        }

                        TFetchResultsResp response = await _service.FetchResultsAsync(operation, request, call.BaseUrl).ConfigureAwait(false);
                        call.Detail = response.Results?.ResultLinks is { } links
                            ? $"links={links.Count} hasMoreRows={response.HasMoreRows}"
                            : $"batches={response.Results?.ArrowBatches?.Count ?? 0} hasMoreRows={response.HasMoreRows}";
                        return Reply(call, response, response.Status);
                    }

                case "CloseOperation":
                    {
                        TCloseOperationReq request = await ReadArgumentsAsync<TCloseOperationReq>(call, reader).ConfigureAwait(false);
                        return WithOperation(call, request.OperationHandle, _service.CloseOperation, response => response.Status, status => new TCloseOperationResp { Status = status });
                    }

                case "CancelOperation":
                    {
                        TCancelOperationReq request = await ReadArgumentsAsync<TCancelOperationReq>(call, reader).ConfigureAwait(false);
                        return WithOperation(call, request.OperationHandle, _service.CancelOperation, response => response.Status, status => new TCancelOperationResp { Status = status });
                    }

                case "CloseSession":
                    {
                        TCloseSessionReq request = await ReadArgumentsAsync<TCloseSessionReq>(call, reader).ConfigureAwait(false);
                        return WithSession(call, request.SessionHandle, () => _service.CloseSession(request), response => response.Status);
                    }

                case "GetInfo":
                    {
                        TGetInfoReq request = await ReadArgumentsAsync<TGetInfoReq>(call, reader).ConfigureAwait(false);
                        call.Detail = "infoType=" + request.InfoType;
                        return WithSession(call, request.SessionHandle, () => _service.GetInfo(request), response => response.Status);
                    }

                case "GetCatalogs":
                    {
                        TGetCatalogsReq request = await ReadArgumentsAsync<TGetCatalogsReq>(call, reader).ConfigureAwait(false);
                        return await MetadataAsync(call, request.SessionHandle, TOperationType.GetCatalogs, request.GetDirectResults, "all", MetadataResults.Catalogs).ConfigureAwait(false);
                    }

                case "GetSchemas":
                    {
                        TGetSchemasReq request = await ReadArgumentsAsync<TGetSchemasReq>(call, reader).ConfigureAwait(false);
                        return await MetadataAsync(call, request.SessionHandle, TOperationType.GetSchemas, request.GetDirectResults,
                            $"catalog={request.CatalogName} schema={request.SchemaName}", session => MetadataResults.Schemas(session, request.CatalogName, request.SchemaName)).ConfigureAwait(false);
                    }

                case "GetTables":
                    {
                        TGetTablesReq request = await ReadArgumentsAsync<TGetTablesReq>(call, reader).ConfigureAwait(false);
                        return await MetadataAsync(call, request.SessionHandle, TOperationType.GetTables, request.GetDirectResults,
                            $"catalog={request.CatalogName} schema={request.SchemaName} table={request.TableName} types={string.Join(",", request.TableTypes ?? new())}",
                            session => MetadataResults.Tables(session, request.CatalogName, request.SchemaName, request.TableName, request.TableTypes)).ConfigureAwait(false);
                    }

                case "GetTableTypes":
                    {
                        TGetTableTypesReq request = await ReadArgumentsAsync<TGetTableTypesReq>(call, reader).ConfigureAwait(false);
                        return await MetadataAsync(call, request.SessionHandle, TOperationType.GetTableTypes, request.GetDirectResults, "all", _ => MetadataResults.TableTypeList()).ConfigureAwait(false);
                    }

                case "GetColumns":
                    {
                        TGetColumnsReq request = await ReadArgumentsAsync<TGetColumnsReq>(call, reader).ConfigureAwait(false);
                        return await MetadataAsync(call, request.SessionHandle, TOperationType.GetColumns, request.GetDirectResults,
                            $"catalog={request.CatalogName} schema={request.SchemaName} table={request.TableName} column={request.ColumnName}",
                            session => MetadataResults.Columns(session, request.CatalogName, request.SchemaName, request.TableName, request.ColumnName)).ConfigureAwait(false);
                    }

                case "GetPrimaryKeys":
                    {
                        TGetPrimaryKeysReq request = await ReadArgumentsAsync<TGetPrimaryKeysReq>(call, reader).ConfigureAwait(false);
                        return await MetadataAsync(call, request.SessionHandle, TOperationType.Unknown, request.GetDirectResults,
                            $"catalog={request.CatalogName} schema={request.SchemaName} table={request.TableName}",
                            session => MetadataResults.PrimaryKeys(session, request.CatalogName, request.SchemaName, request.TableName)).ConfigureAwait(false);
                    }

                case "GetCrossReference":
                    {
                        TGetCrossReferenceReq request = await ReadArgumentsAsync<TGetCrossReferenceReq>(call, reader).ConfigureAwait(false);
                        return await MetadataAsync(call, request.SessionHandle, TOperationType.Unknown, request.GetDirectResults,
                            $"parent={request.ParentCatalogName}.{request.ParentSchemaName}.{request.ParentTableName} foreign={request.ForeignCatalogName}.{request.ForeignSchemaName}.{request.ForeignTableName}",
                            session => MetadataResults.CrossReference(session, request.ParentCatalogName, request.ParentSchemaName, request.ParentTableName, request.ForeignCatalogName, request.ForeignSchemaName, request.ForeignTableName)).ConfigureAwait(false);
                    }

                default:
                    return Exception(call, TApplicationException.ExceptionType.UnknownMethod, $"Invalid method name: '{call.Header.Name}' (the mock implements OpenSession, ExecuteStatement, GetOperationStatus, GetResultSetMetadata, FetchResults, CloseOperation, CancelOperation, CloseSession, GetInfo, GetCatalogs, GetSchemas, GetTables, GetTableTypes, GetColumns, GetPrimaryKeys, GetCrossReference).");
            }
        }

        private static Task<T> ReadArgumentsAsync<T>(RpcCall call, TProtocol reader)
            where T : class, TBase, new() =>
            ThriftMessages.ReadCallArgumentsAsync<T>(reader, call.Header.Name, call.Context.RequestAborted);

        /// <summary>A catalog RPC: an operation answered from the catalog, faults by method name as for any call.</summary>
        private async Task<Answer> MetadataAsync(RpcCall call, TSessionHandle session, TOperationType type, TSparkGetDirectResults? direct, string detail, Func<SessionContext, QuerySpec> answer)
        {
            call.Session = session.SessionId.ToHex();
            call.Detail = detail;
            call.MaxRows = direct?.MaxRows;
            if (InjectFault(call, null) is Answer faulted)
            {
                return faulted;
            }

            (TMetadataResp response, MockOperation? operation) = await _service.MetadataAsync(session, type, direct, answer, call.BaseUrl).ConfigureAwait(false);
            call.Operation = operation?.Id;
            return Reply(call, response, response.Status);
        }

        /// <summary>
        /// An RPC on one operation, answered by <paramref name="serve"/> unless a fault is injected; an unknown handle
        /// gets <paramref name="onMissing"/>. <paramref name="statusOf"/> reads the status each reply struct carries.
        /// </summary>
        private Answer WithOperation<TResponse>(RpcCall call, TOperationHandle handle, Func<MockOperation, TResponse> serve, Func<TResponse, TStatus> statusOf, Func<TStatus, TResponse> onMissing)
            where TResponse : TBase
        {
            MockOperation? operation = Find(call, handle);
            if (operation == null)
            {
                TStatus status = UnknownOperation(call);
                return Reply(call, onMissing(status), status);
            }

            if (InjectFault(call, operation) is Answer faulted)
            {
                return faulted;
            }

            TResponse response = serve(operation);
            return Reply(call, response, statusOf(response));
        }

        /// <summary>An RPC on a session, answered by <paramref name="serve"/> unless a fault is injected; <paramref name="serve"/> answers a handle it does not know.</summary>
        private Answer WithSession<TResponse>(RpcCall call, TSessionHandle session, Func<TResponse> serve, Func<TResponse, TStatus> statusOf)
            where TResponse : TBase
        {
            call.Session = session.SessionId.ToHex();
            if (InjectFault(call, null) is Answer faulted)
            {
                return faulted;
            }

            TResponse response = serve();
            return Reply(call, response, statusOf(response));
        }

        private MockOperation? Find(RpcCall call, TOperationHandle handle)
        {
            call.Operation = handle.OperationId.ToHex();
            MockOperation? operation = _sessions.FindOperation(call.Operation);
            if (operation != null)
            {
                call.Session = operation.Session;
                call.Tag = operation.Tag;
            }

            return operation;
        }

        private static TStatus UnknownOperation(RpcCall call) =>
            TStatus.Failure($"Invalid OperationHandle {call.Operation}: unknown to this server.", "HY000", 0, TStatusCode.InvalidHandle);

        /// <summary>Applies a statement or admin RPC fault: TStatus ERROR reply, or an HTTP error status.</summary>
        private Answer? InjectFault(RpcCall call, MockOperation? operation)
        {
            FaultRule? rule = operation?.TakeRpcFault(call.Header.Name) ?? _adminFaults.TakeRpcFault(call.Header.Name, operation?.Tag);
            if (rule == null)
            {
                return null;
            }

            if (rule.Kind == FaultKind.RpcSlow)
            {
                call.ReplyDelayMs = rule.DelayMs;
                call.Outcome = "slow";
                return null;
            }

            if (rule.Kind == FaultKind.RpcHttp)
            {
                call.Status = rule.StatusCode;
                call.Outcome = "http" + rule.StatusCode;
                call.Detail = rule.Message;
                return new Answer(null, null);
            }

            TStatus status = TStatus.Failure(rule.Message, "HY000", 500);
            TBase response = call.Header.Name switch
            {
                "OpenSession" => new TOpenSessionResp { Status = status },
                "ExecuteStatement" => new TExecuteStatementResp { Status = status },
                "GetOperationStatus" => new TGetOperationStatusResp { Status = status, OperationState = TOperationState.Error, ErrorMessage = rule.Message, SqlState = "HY000" },
                "GetResultSetMetadata" => new TGetResultSetMetadataResp { Status = status },
                "FetchResults" => new TFetchResultsResp { Status = status, HasMoreRows = false, Results = new TRowSet { ArrowBatches = new() } },
                "CloseOperation" => new TCloseOperationResp { Status = status },
                "CancelOperation" => new TCancelOperationResp { Status = status },
                "CloseSession" => new TCloseSessionResp { Status = status },
                "GetInfo" => new TGetInfoResp { Status = status },
                _ => new TMetadataResp { Status = status },
            };
            call.Outcome = "injected-error";
            return new Answer(response, null);
        }

        private static Answer Reply(RpcCall call, TBase response, TStatus status)
        {
            if (call.Outcome == "ok" && status.StatusCode is not (TStatusCode.Success or TStatusCode.SuccessWithInfo))
            {
                call.Outcome = "error-status";
                call.Detail = status.ErrorMessage;
            }

            return new Answer(response, null);
        }

        private static Answer Exception(RpcCall call, TApplicationException.ExceptionType type, string message)
        {
            call.Outcome = "exception";
            call.Detail = message;
            return new Answer(null, new TApplicationException(type, message));
        }

        private void Journal(RpcCall call) => call.AddTo(_journal, "rpc", call.Header.Name);

        private async Task BadRequestAsync(HttpContext context, string method, string message)
        {
            _journal.Add("rpc", method, StatusCodes.Status400BadRequest, "bad-request", detail: message);
            context.Response.StatusCode = StatusCodes.Status400BadRequest;
            context.Response.Headers["x-thriftserver-error-message"] = message.ReplaceLineEndings(" ");
            await context.Response.WriteAsync(message).ConfigureAwait(false);
        }

        private static async Task<byte[]> ReadBodyAsync(HttpContext context)
        {
            if (context.Request.ContentLength > MaxRequestBytes)
            {
                throw new InvalidDataException($"Request body larger than {MaxRequestBytes} bytes.");
            }

            using var buffer = new MemoryStream();
            byte[] chunk = new byte[81920];
            int read;
            while ((read = await context.Request.Body.ReadAsync(chunk, context.RequestAborted).ConfigureAwait(false)) > 0)
            {
                buffer.Write(chunk, 0, read);
                if (buffer.Length > MaxRequestBytes)
                {
                    throw new InvalidDataException($"Request body larger than {MaxRequestBytes} bytes.");
                }
            }

            return buffer.ToArray();
        }

        /// <summary>
        /// The base URL clients reach this server at, for CloudFetch links: --public-url if given, otherwise
        /// X-Forwarded-Proto/Host/Prefix or the request's own scheme and Host header (so a Docker port mapping works).
        /// </summary>
        internal string BaseUrl(HttpContext context)
        {
            if (_options.PublicUrl != null)
            {
                return _options.PublicUrl.TrimEnd('/');
            }

            string scheme = FirstValue(context.Request.Headers["X-Forwarded-Proto"]) ?? context.Request.Scheme;
            string host = FirstValue(context.Request.Headers["X-Forwarded-Host"]) ?? context.Request.Host.Value ?? "127.0.0.1";
            string prefix = FirstValue(context.Request.Headers["X-Forwarded-Prefix"])?.TrimEnd('/') ?? string.Empty;
            return $"{scheme}://{host}{prefix}";
        }

        private static string? FirstValue(Microsoft.Extensions.Primitives.StringValues values)
        {
            string? value = values.Count > 0 ? values[0] : null;
            return string.IsNullOrWhiteSpace(value) ? null : value.Split(',')[0].Trim();
        }

        /// <summary>What a call answers: a reply struct or an EXCEPTION message (neither when an HTTP error status is sent instead).</summary>
        private sealed record Answer(TBase? Response, TApplicationException? Error);

        private sealed class RpcCall(TMessage header, HttpContext context, string baseUrl) : JournaledCall(context, baseUrl)
        {
            public TMessage Header { get; } = header;
        }
    }
}
