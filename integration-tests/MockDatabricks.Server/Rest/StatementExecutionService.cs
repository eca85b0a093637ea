using System.Text.RegularExpressions;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.State;
using Microsoft.AspNetCore.Http;

namespace MockDatabricks.Server.Rest
{
    /// <summary>
    /// The Statement Execution API's semantics: a statement, metadata SQL included, is executed by the
    /// <see cref="StatementExecutor"/> Thrift's ExecuteStatement uses (the same SQL front end, catalog, data sets, LZ4
    /// decision and faults), its operation lives in the shared <see cref="SessionRegistry"/>, and its state moves as a
    /// Thrift status poll moves it (<see cref="MockOperation.Poll"/>).
    /// </summary>
    public sealed partial class StatementExecutionService(StatementExecutor executor, SessionRegistry sessions, RestState state, RestResults results, AdminFaultRegistry adminFaults)
    {
        /// <summary>The API's default wait_timeout.</summary>
        private const int DefaultWaitSeconds = 10;

        public CreateSessionResponse CreateSession(CreateSessionRequest request, RestCall call)
        {
            RequireWarehouse(request.WarehouseId);
            FailIfInjected(call, null);
            string session = THandleIdentifier.CreateRandom().ToHex();

            // The session context the statement planner keeps (USE, SET, current_catalog()), as OpenSession makes it.
            sessions.OpenSession(session, new SessionContext(request.Catalog, request.Schema, request.SessionConfs));
            call.Session = session;
            return new CreateSessionResponse(session);
        }

        public void DeleteSession(string session, RestCall call)
        {
            call.Session = session;
            FailIfInjected(call, null);
            if (!sessions.CloseSession(session))
            {
                throw RestErrorException.NotFound($"Session {session} does not exist.");
            }

            // Closing a session closes its statements, as on a warehouse.
            foreach (MockOperation operation in sessions.Operations.Where(o => o.Session == session))
            {
                operation.Close();
            }
        }

        public async Task<StatementResponse> ExecuteAsync(ExecuteStatementRequest request, bool canRunFullySync, RestCall call)
        {
            RequireWarehouse(request.WarehouseId);
            string statement = string.IsNullOrWhiteSpace(request.Statement) ? throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", "statement is required.") : request.Statement;
            call.Detail = statement.Length <= 300 ? statement : statement.Substring(0, 300) + "...";
            call.MaxRows = request.RowLimit;
            call.MaxBytes = request.ByteLimit;
            RestFormat format = FormatOf(request.Format);
            string disposition = DispositionOf(request.Disposition, format);
            bool lz4 = CompressionOf(request.ResultCompression) && format == RestFormat.ArrowStream;
            int waitSeconds = WaitSecondsOf(request.WaitTimeout);
            bool cancelOnTimeout = OnWaitTimeoutOf(request.OnWaitTimeout);

            string session = request.SessionId ?? OpenImplicitSession(request);
            call.Session = session;
            if (!sessions.IsOpen(session))
            {
                throw RestErrorException.NotFound($"Session {session} does not exist or is closed.");
            }

            MockOperation operation;
            try
            {
                // A warehouse sends Arrow-native types over REST; the driver converts what it must.
                var client = new ResultRequest(
                    ArrowResults: true,
                    CanDownload: format == RestFormat.ArrowStream && disposition != "INLINE",
                    LinksForEveryResult: disposition == "EXTERNAL_LINKS",
                    Lz4: lz4,
                    Types: new ResultTypes(TimestampAsArrow: true, DecimalAsArrow: true, ComplexTypesAsArrow: true, IntervalTypesAsArrow: true));
                operation = executor.Execute(session, statement, client);
            }
            catch (StatementRefusedException refused)
            {
                call.Outcome = "error-status";
                return new StatementResponse { StatementId = THandleIdentifier.CreateRandom().ToHex(), Status = new StatementStatus("FAILED", new ServiceError("BAD_REQUEST", refused.Message, refused.SqlState)) };
            }

            state.Attach(operation, new RestStatementInfo(format, disposition));
            call.Operation = operation.Id;
            call.Tag = operation.Tag;
            if (InjectFault(call, operation) is FaultRule injected)
            {
                return Failed(operation, injected, call);
            }

            if (waitSeconds == 0 && !canRunFullySync)
            {
                return new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("PENDING") };
            }

            if (!operation.Query.DirectResults && !canRunFullySync)
            {
                // The statement outlasts the wait (direct=false): CONTINUE leaves it running for the client to poll.
                lock (operation.Lock)
                {
                    operation.State = cancelOnTimeout ? TOperationState.Canceled : TOperationState.Running;
                }

                return new StatementResponse { StatementId = operation.Id, Status = new StatementStatus(cancelOnTimeout ? "CANCELED" : "RUNNING") };
            }

            lock (operation.Lock)
            {
                operation.RunningPollsLeft = 0;
                operation.State = TOperationState.Finished;
            }

            StatementResponse response = await SucceededAsync(operation, call).ConfigureAwait(false);
            if (operation.Query.CloseInDirectResults && response.Manifest!.TotalChunkCount <= 1)
            {
                // close_in_direct: everything is in this reply, and the statement is closed already (the driver then sends no DELETE).
                operation.Close();
                return new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("CLOSED"), Manifest = response.Manifest, Result = response.Result };
            }

            return response;
        }

        public async Task<StatementResponse> GetStatementAsync(MockOperation operation, RestCall call)
        {
            if (InjectFault(call, operation) is FaultRule injected)
            {
                return Failed(operation, injected, call);
            }

            TOperationState current = operation.Poll();
            call.Detail = current.ToString();
            return current switch
            {
                TOperationState.Finished => await SucceededAsync(operation, call).ConfigureAwait(false),
                TOperationState.Running or TOperationState.Initialized => new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("RUNNING") },
                TOperationState.Pending => new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("PENDING") },
                TOperationState.Canceled => new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("CANCELED") },
                TOperationState.Closed => new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("CLOSED") },
                _ => new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("FAILED", new ServiceError("INTERNAL_ERROR", $"Statement is in state {current}.")) },
            };
        }

        public async Task<ResultData> GetChunkAsync(MockOperation operation, int index, RestCall call)
        {
            call.File = index;
            FailIfInjected(call, operation);

            TOperationState current;
            lock (operation.Lock)
            {
                current = operation.State;
            }

            if (current == TOperationState.Closed)
            {
                throw RestErrorException.NotFound($"Statement {operation.Id} is closed; its result is no longer available.");
            }

            if (current != TOperationState.Finished)
            {
                throw RestErrorException.BadRequest("INVALID_STATE", $"Statement {operation.Id} is {current}; results are available once it SUCCEEDED.");
            }

            RestFormat format = state.InfoOf(operation)?.Format ?? RestFormat.ArrowStream;
            ResultData chunk = await results.ChunkAsync(operation, format, index, call.BaseUrl).ConfigureAwait(false)
                ?? throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", $"Chunk index {index} is out of range for statement {operation.Id}.");
            call.StartRowOffset = chunk.RowOffset;
            call.Detail = chunk.ExternalLinks is { } links ? $"links={links.Count}" : chunk.Attachment is { } bytes ? $"attachment={bytes.Length}" : $"rows={chunk.DataArray?.Count ?? 0}";
            return chunk;
        }

        public void Cancel(MockOperation operation, RestCall call)
        {
            FailIfInjected(call, operation);
            operation.Cancel();
        }

        public void Close(MockOperation operation, RestCall call)
        {
            FailIfInjected(call, operation);
            operation.Close();
        }

        /// <summary>The statement a REST call names, from the shared registry; records it on the call.</summary>
        public MockOperation Find(string statementId, RestCall call)
        {
            call.Operation = statementId;
            MockOperation operation = sessions.FindOperation(statementId) ?? throw RestErrorException.NotFound($"Statement {statementId} does not exist.");
            call.Session = operation.Session;
            call.Tag = operation.Tag;
            return operation;
        }

        private async Task<StatementResponse> SucceededAsync(MockOperation operation, RestCall call)
        {
            RestFormat format = state.InfoOf(operation)?.Format ?? RestFormat.ArrowStream;
            ResultData? first = await results.ChunkAsync(operation, format, 0, call.BaseUrl).ConfigureAwait(false);

            // After the first chunk's link is issued, so its file's size is in the manifest too.
            ResultManifest manifest = RestResults.Manifest(operation, format);
            return new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("SUCCEEDED"), Manifest = manifest, Result = first };
        }

        /// <summary>An injected rpc_error on a call that reports a statement's state: HTTP 200, state FAILED.</summary>
        private static StatementResponse Failed(MockOperation operation, FaultRule rule, RestCall call)
        {
            call.Outcome = "injected-error";
            call.Detail = rule.Message;
            return new StatementResponse { StatementId = operation.Id, Status = new StatementStatus("FAILED", new ServiceError("INTERNAL_ERROR", rule.Message, "HY000")) };
        }

        /// <summary>
        /// The statement's or an admin RPC fault for this call, under its REST name or its Thrift equivalent. rpc_http
        /// throws (an HTTP error reply); rpc_slow delays the reply; rpc_error is returned for the caller to answer
        /// (FAILED, or a 500).
        /// </summary>
        private FaultRule? InjectFault(RestCall call, MockOperation? operation)
        {
            FaultRule? rule = operation?.TakeRpcFault(call.Method)
                ?? operation?.TakeRpcFault(call.ThriftMethod)
                ?? adminFaults.TakeRpcFault(call.Method, operation?.Tag)
                ?? adminFaults.TakeRpcFault(call.ThriftMethod, operation?.Tag);
            if (rule?.Kind == FaultKind.RpcHttp)
            {
                throw new RestErrorException(rule.StatusCode, ErrorCodeOf(rule.StatusCode), rule.Message, "http" + rule.StatusCode);
            }

            if (rule?.Kind == FaultKind.RpcSlow)
            {
                // rpc_slow: answered normally, delay_ms after the call is journaled (the endpoint waits).
                call.ReplyDelayMs = rule.DelayMs;
                call.Outcome = "slow";
                return null;
            }

            return rule;
        }

        /// <summary>For calls without a state to report: an injected rpc_error is an HTTP 500 with the fault's message.</summary>
        private void FailIfInjected(RestCall call, MockOperation? operation)
        {
            if (InjectFault(call, operation) is FaultRule rule)
            {
                throw new RestErrorException(StatusCodes.Status500InternalServerError, "INTERNAL_ERROR", rule.Message, "injected-error");
            }
        }

        /// <summary>A statement sent without session_id runs in a session of its own, in the request's catalog and schema.</summary>
        private string OpenImplicitSession(ExecuteStatementRequest request)
        {
            string session = THandleIdentifier.CreateRandom().ToHex();
            sessions.OpenSession(session, new SessionContext(request.Catalog, request.Schema));
            return session;
        }

        private static void RequireWarehouse(string? warehouseId)
        {
            if (string.IsNullOrWhiteSpace(warehouseId))
            {
                throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", "warehouse_id is required.");
            }
        }

        private static RestFormat FormatOf(string? format) => (format ?? "JSON_ARRAY").ToUpperInvariant() switch
        {
            "ARROW_STREAM" => RestFormat.ArrowStream,
            "JSON_ARRAY" => RestFormat.JsonArray,
            "CSV" => throw RestErrorException.BadRequest("NOT_IMPLEMENTED", "format CSV is not implemented by the mock (ARROW_STREAM, JSON_ARRAY are)."),
            _ => throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", $"format '{format}' is not one of ARROW_STREAM, JSON_ARRAY, CSV."),
        };

        private static string DispositionOf(string? disposition, RestFormat format)
        {
            string value = (disposition ?? "INLINE").ToUpperInvariant();
            if (value is not ("INLINE" or "EXTERNAL_LINKS" or "INLINE_OR_EXTERNAL_LINKS"))
            {
                throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", $"disposition '{disposition}' is not one of INLINE, EXTERNAL_LINKS, INLINE_OR_EXTERNAL_LINKS.");
            }

            if (value == "EXTERNAL_LINKS" && format == RestFormat.JsonArray)
            {
                throw RestErrorException.BadRequest("NOT_IMPLEMENTED", "JSON_ARRAY results are served INLINE only by the mock; EXTERNAL_LINKS needs ARROW_STREAM.");
            }

            return value;
        }

        private static bool CompressionOf(string? compression) => (compression ?? "NONE").ToUpperInvariant() switch
        {
            "LZ4_FRAME" or "LZ4" => true,
            "NONE" => false,
            _ => throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", $"result_compression '{compression}' is not supported by the mock (LZ4_FRAME, NONE)."),
        };

        /// <summary>"0s" (asynchronous) or "5s".."50s", as the API allows; absent: 10 s.</summary>
        private static int WaitSecondsOf(string? waitTimeout)
        {
            if (waitTimeout == null)
            {
                return DefaultWaitSeconds;
            }

            Match match = WaitTimeoutRegex().Match(waitTimeout);
            int seconds = match.Success ? int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : -1;
            return seconds == 0 || seconds is >= 5 and <= 50
                ? seconds
                : throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", $"wait_timeout '{waitTimeout}' must be 0s or between 5s and 50s.");
        }

        private static bool OnWaitTimeoutOf(string? value) => (value ?? "CONTINUE").ToUpperInvariant() switch
        {
            "CONTINUE" => false,
            "CANCEL" => true,
            _ => throw RestErrorException.BadRequest("INVALID_PARAMETER_VALUE", $"on_wait_timeout '{value}' is not CONTINUE or CANCEL."),
        };

        private static string ErrorCodeOf(int status) => status switch
        {
            400 => "BAD_REQUEST",
            401 => "UNAUTHENTICATED",
            403 => "PERMISSION_DENIED",
            404 => "RESOURCE_DOES_NOT_EXIST",
            429 => "TOO_MANY_REQUESTS",
            503 => "TEMPORARILY_UNAVAILABLE",
            _ => "INTERNAL_ERROR",
        };

        [GeneratedRegex(@"^(\d{1,3})s$")]
        private static partial Regex WaitTimeoutRegex();
    }
}
