using System.IO;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.ResultSets;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>
    /// /admin: journal (read, filter, reset), faults (list, add one-shot or persistent, clear), data sets (list,
    /// drop), operations (list) and a full reset. No authentication: the server binds loopback by default.
    /// </summary>
    public static class AdminEndpoints
    {
        public static void Map(IEndpointRouteBuilder app)
        {
            app.MapGet("/admin/journal", (HttpRequest request, RequestJournal journal) =>
            {
                string? Query(string name) => request.Query[name].FirstOrDefault() is { Length: > 0 } v ? v : null;
                long since = long.TryParse(Query("since"), NumberStyles.Integer, CultureInfo.InvariantCulture, out long s) ? s : 0;
                return Results.Json(new { entries = journal.Query(Query("session"), Query("operation"), Query("tag"), Query("kind"), since) });
            });
            MapClear<RequestJournal>(app, "/admin/journal", journal => journal.Clear());

            app.MapGet("/admin/faults", (AdminFaultRegistry faults) => Results.Json(new { faults = faults.Snapshot().Select(f => f.ToJson()) }));
            app.MapPost("/admin/faults", async (HttpRequest request, AdminFaultRegistry faults) =>
            {
                try
                {
                    AddFaultRequest body = await ReadFaultRequestAsync(request).ConfigureAwait(false);
                    FaultRule rule = FaultRule.Parse(body.Fault ?? throw new FormatException("'fault' is required."));
                    AdminFault added = faults.Add(rule, body.Persistent, body.Tag);
                    return Results.Json(added.ToJson(), statusCode: StatusCodes.Status201Created);
                }
                catch (Exception ex) when (ex is FormatException or JsonException)
                {
                    return Results.Json(new { error = ex.Message }, statusCode: StatusCodes.Status400BadRequest);
                }
            });
            MapClear<AdminFaultRegistry>(app, "/admin/faults", faults => faults.Clear());

            app.MapGet("/admin/datasets", (DatasetStore store) => Results.Json(new
            {
                storedBytes = store.StoredBytes,
                datasets = store.All.Select(d => new
                {
                    key = d.Key,
                    rows = d.Spec.Rows,
                    files = d.Layout.FileCount,
                    rowsPerFile = d.Layout.RowsPerFile,
                    builtFiles = d.BuiltFileCount,
                    fileBuilds = d.FileBuilds,
                    inlineBuilds = d.InlineBuilds,
                    cachedBytes = d.CachedBytes,
                    schema = ArrowValues.Describe(d.Schema),
                }),
            }));
            app.MapPost("/admin/datasets/prepare", PrepareDatasetEndpoint.HandleAsync);
            app.MapPost("/admin/datasets/values", ExpectedValuesEndpoint.HandleAsync);
            MapClear<DatasetStore>(app, "/admin/datasets", store => store.Clear());

            app.MapGet("/admin/operations", (SessionRegistry sessions) => Results.Json(new
            {
                sessions = sessions.SessionCount,
                operations = sessions.Operations.Select(o => new
                {
                    id = o.Id,
                    session = o.Session,
                    tag = o.Tag,
                    state = o.State.ToString(),
                    statement = o.Statement,
                    cloudFetch = o.CloudFetch,
                    lz4 = o.Lz4,
                    columnBased = o.ColumnBased,
                    dataset = o.Dataset?.Key,
                    files = o.Dataset?.Layout.FileCount ?? 0,
                }),
            }));

            app.MapPost("/admin/reset", (RequestJournal journal, AdminFaultRegistry faults, SessionRegistry sessions) =>
            {
                journal.Clear();
                faults.Clear();
                sessions.Clear();
                return Results.NoContent();
            });
        }

        /// <summary>DELETE on a collection of the server's state empties it: 204 No Content.</summary>
        private static void MapClear<TState>(IEndpointRouteBuilder app, string pattern, Action<TState> clear)
            where TState : notnull =>
            app.MapDelete(pattern, (TState state) =>
            {
                clear(state);
                return Results.NoContent();
            });

        /// <summary>Accepts JSON {"fault": "...", "persistent": false, "tag": null} or the fault text as the plain body (one-shot).</summary>
        private static async Task<AddFaultRequest> ReadFaultRequestAsync(HttpRequest request)
        {
            using var reader = new StreamReader(request.Body);
            string text = (await reader.ReadToEndAsync().ConfigureAwait(false)).Trim();
            if (text.StartsWith('{'))
            {
                return JsonSerializer.Deserialize<AddFaultRequest>(text, new JsonSerializerOptions(JsonSerializerDefaults.Web)) ?? new AddFaultRequest();
            }

            return new AddFaultRequest
            {
                Fault = text,
                Persistent = string.Equals(request.Query["persistent"], "true", StringComparison.OrdinalIgnoreCase),
                Tag = request.Query["tag"].FirstOrDefault(),
            };
        }

        private sealed class AddFaultRequest
        {
            public string? Fault { get; set; }

            public bool Persistent { get; set; }

            public string? Tag { get; set; }
        }
    }
}
