using System.Text.Json;
using System.Text.Json.Serialization;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using MockDatabricks.Server.Endpoints;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Rest
{
    /// <summary>
    /// The Statement Execution REST API, as the ADBC driver's REST client (csharp/v1.1.7
    /// src/StatementExecution/StatementExecutionClient.cs) calls it:
    /// <code>
    /// POST   /api/2.0/sql/sessions                               CreateSession   {session_id}
    /// DELETE /api/2.0/sql/sessions/{id}?warehouse_id=W           DeleteSession   {}
    /// POST   /api/2.0/sql/statements                             ExecuteStatement
    /// GET    /api/2.0/sql/statements/{id}                        GetStatement
    /// GET    /api/2.0/sql/statements/{id}/result/chunks/{n}      GetResultChunk
    /// POST   /api/2.0/sql/statements/{id}/cancel                 CancelStatement {}
    /// DELETE /api/2.0/sql/statements/{id}                        CloseStatement  {}
    /// </code>
    /// Every call needs the bearer token (401 otherwise), is journaled (kind "rest"), and can be failed by an rpc fault
    /// named by its REST or its Thrift name. Errors are the API's {error_code, message} bodies.
    /// </summary>
    public static class StatementExecutionEndpoints
    {
        private const string Api = "/api/2.0/sql";

        private static readonly JsonSerializerOptions s_json = new JsonSerializerOptions { DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull };

        public static IServiceCollection AddStatementExecutionApi(this IServiceCollection services) =>
            services.AddSingleton<RestState>().AddSingleton<RestResults>().AddSingleton<StatementExecutionService>();

        public static void Map(IEndpointRouteBuilder app)
        {
            app.MapPost(Api + "/sessions", (HttpContext context, StatementExecutionService service) =>
                HandleAsync(context, "CreateSession", "OpenSession", async call => service.CreateSession(await ReadAsync<CreateSessionRequest>(context).ConfigureAwait(false), call)));
            app.MapDelete(Api + "/sessions/{id}", (HttpContext context, string id, StatementExecutionService service) =>
                HandleAsync(context, "DeleteSession", "CloseSession", call =>
                {
                    service.DeleteSession(id, call);
                    return Task.FromResult<object>(new { });
                }));
            app.MapPost(Api + "/statements", (HttpContext context, StatementExecutionService service) =>
                HandleAsync(context, "ExecuteStatement", "ExecuteStatement", async call =>
                {
                    ExecuteStatementRequest request = await ReadAsync<ExecuteStatementRequest>(context).ConfigureAwait(false);
                    bool canRunFullySync = string.Equals(context.Request.Headers["x-databricks-sea-can-run-fully-sync"], "true", StringComparison.OrdinalIgnoreCase);
                    return await service.ExecuteAsync(request, canRunFullySync, call).ConfigureAwait(false);
                }));
            app.MapGet(Api + "/statements/{id}", (HttpContext context, string id, StatementExecutionService service) =>
                HandleAsync(context, "GetStatement", "GetOperationStatus", async call => await service.GetStatementAsync(service.Find(id, call), call).ConfigureAwait(false)));
            app.MapGet(Api + "/statements/{id}/result/chunks/{index:int}", (HttpContext context, string id, int index, StatementExecutionService service) =>
                HandleAsync(context, "GetResultChunk", "FetchResults", async call => await service.GetChunkAsync(service.Find(id, call), index, call).ConfigureAwait(false)));
            app.MapPost(Api + "/statements/{id}/cancel", (HttpContext context, string id, StatementExecutionService service) =>
                HandleAsync(context, "CancelStatement", "CancelOperation", call =>
                {
                    service.Cancel(service.Find(id, call), call);
                    return Task.FromResult<object>(new { });
                }));
            app.MapDelete(Api + "/statements/{id}", (HttpContext context, string id, StatementExecutionService service) =>
                HandleAsync(context, "CloseStatement", "CloseOperation", call =>
                {
                    service.Close(service.Find(id, call), call);
                    return Task.FromResult<object>(new { });
                }));
        }

        /// <summary>Auth, the call itself, the reply (JSON, or the API's error body), and the journal entry.</summary>
        private static async Task HandleAsync(HttpContext context, string method, string thriftMethod, Func<RestCall, Task<object>> handler)
        {
            RequestJournal journal = context.RequestServices.GetRequiredService<RequestJournal>();
            ServerOptions options = context.RequestServices.GetRequiredService<ServerOptions>();
            string baseUrl = context.RequestServices.GetRequiredService<ThriftEndpoint>().BaseUrl(context);
            var call = new RestCall(method, thriftMethod, context, baseUrl);
            string? authorization = context.Request.Headers.Authorization;
            if (authorization != "Bearer " + options.Token)
            {
                journal.Add("http", method, StatusCodes.Status401Unauthorized, "unauthorized", detail: authorization == null ? "no Authorization header" : "wrong token");
                context.Response.Headers.WWWAuthenticate = "Bearer";
                await WriteAsync(context, StatusCodes.Status401Unauthorized, new ServiceError("UNAUTHENTICATED", "Invalid access token.")).ConfigureAwait(false);
                return;
            }

            object reply;
            try
            {
                reply = await handler(call).ConfigureAwait(false);
            }
            catch (RestErrorException ex)
            {
                call.Status = ex.Status;
                call.Outcome = ex.Outcome;
                call.Detail = ex.Message;
                reply = new ServiceError(ex.ErrorCode, ex.Message);
            }
            catch (Exception ex) when (ex is not OperationCanceledException)
            {
                call.Status = StatusCodes.Status500InternalServerError;
                call.Outcome = "exception";
                call.Detail = $"mock server error: {ex.GetType().Name}: {ex.Message}";
                reply = new ServiceError("INTERNAL_ERROR", call.Detail);
            }

            call.AddTo(journal, "rest", method);
            if (call.ReplyDelayMs > 0)
            {
                // rpc_slow: journaled first, so what the client does meanwhile comes after this call in the journal.
                await Task.Delay(call.ReplyDelayMs, context.RequestAborted).ConfigureAwait(false);
            }

            await WriteAsync(context, call.Status, reply).ConfigureAwait(false);
        }

        /// <summary>The request body as JSON; a body that is not gets 400 MALFORMED_REQUEST.</summary>
        private static async Task<T> ReadAsync<T>(HttpContext context)
            where T : class
        {
            try
            {
                return await JsonSerializer.DeserializeAsync<T>(context.Request.Body, s_json, context.RequestAborted).ConfigureAwait(false)
                    ?? throw RestErrorException.BadRequest("MALFORMED_REQUEST", "The request body is empty.");
            }
            catch (JsonException ex)
            {
                throw RestErrorException.BadRequest("MALFORMED_REQUEST", "The request body is not valid JSON: " + ex.Message);
            }
        }

        private static async Task WriteAsync(HttpContext context, int status, object body)
        {
            byte[] json = JsonSerializer.SerializeToUtf8Bytes(body, body.GetType(), s_json);
            context.Response.StatusCode = status;
            context.Response.ContentType = "application/json";
            context.Response.ContentLength = json.Length;
            await context.Response.Body.WriteAsync(json, context.RequestAborted).ConfigureAwait(false);
        }
    }
}
