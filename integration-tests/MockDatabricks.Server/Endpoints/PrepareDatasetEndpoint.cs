using System.Diagnostics;
using System.Text.Json;
using Microsoft.AspNetCore.Http;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.ResultSets;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>
    /// POST /admin/datasets/prepare {"statement": "..."}: generates and caches everything the statement's result is
    /// served from, and answers only when all of it is ready, so a measurement that follows times the client, not
    /// the mock generating data. Prepares the encoding the driver gets: LZ4 (unless the statement says lz4=off) and
    /// CloudFetch or inline as the statement and its size decide for a client that can download.
    /// </summary>
    public static class PrepareDatasetEndpoint
    {
        public static async Task<IResult> HandleAsync(HttpRequest request, DatasetStore store)
        {
            QuerySpec query;
            try
            {
                using JsonDocument body = await JsonDocument.ParseAsync(request.Body).ConfigureAwait(false);
                query = ParseStatement(body.RootElement);
            }
            catch (Exception ex) when (ex is FormatException or JsonException or ArgumentException)
            {
                return Results.Json(new { error = ex.Message }, statusCode: StatusCodes.Status400BadRequest);
            }

            if (query.Kind == StatementKind.NoResult)
            {
                return Results.Json(new { files = 0, bytes = 0L, seconds = 0.0 });
            }

            var clock = Stopwatch.StartNew();
            StoredDataset dataset = store.Get(query.Dataset, query.Lz4Allowed, query.Framing, ResultTypes.Native);
            bool cloudFetch = query.UsesCloudFetch(clientCanDownload: true);
            (int count, long bytes) = await dataset.PrepareAsync(cloudFetch).ConfigureAwait(false);
            if (cloudFetch && dataset.BuiltFileCount < count)
            {
                return Results.Json(
                    new { error = $"The result's {count} files ({bytes} bytes) do not all fit the cache budget (--cache-mb): {dataset.BuiltFileCount} stayed cached." },
                    statusCode: StatusCodes.Status507InsufficientStorage);
            }

            return Results.Json(new { files = count, bytes, seconds = Math.Round(clock.Elapsed.TotalSeconds, 3) });
        }

        /// <summary>
        /// The body's "statement", planned as ExecuteStatement plans it, in a fresh session; "maxBytesPerFile" (optional) is
        /// the client's file size limit, which sets the file size of a SQL result (the ADBC driver's default, 20 MB, without it).
        /// </summary>
        internal static QuerySpec ParseStatement(JsonElement body)
        {
            string statement = body.TryGetProperty("statement", out JsonElement value) && value.ValueKind == JsonValueKind.String
                ? value.GetString()!
                : throw new FormatException("Body must be {\"statement\": \"<SQL text>\"} (values: also \"rows\"; prepare: also \"maxBytesPerFile\").");
            long? maxBytesPerFile = body.TryGetProperty("maxBytesPerFile", out JsonElement bytes) && bytes.ValueKind == JsonValueKind.Number ? bytes.GetInt64() : null;
            try
            {
                return StatementPlanner.Plan(statement, new StatementContext(new SessionContext(), maxBytesPerFile));
            }
            catch (Query.Sql.SqlError ex)
            {
                throw new FormatException(ex.Message, ex);
            }
        }
    }
}
