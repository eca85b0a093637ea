using System.Text.Json;
using Microsoft.AspNetCore.Http;
using MockDatabricks.Server.Query;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>
    /// POST /admin/datasets/values {"statement": "...", "rows": [0, 17, 999]}: the generator's values at those rows, for
    /// a test written in another language (the Node.js conformance suite) to check what its client returned, without a
    /// port of the generator. They come from <see cref="DatasetGenerator.GetValue"/>, the (seed, row, column) formula the
    /// C# suites check against; none of the serving path (Arrow, LZ4, Thrift, column-based or string forms) is involved.
    /// Client-neutral JSON: numbers and strings as they are, DECIMAL as a number, TIMESTAMP as microseconds since the
    /// epoch (UTC; TIMESTAMP_NTZ its local time as if UTC), DATE as days since the epoch, intervals as months or microseconds,
    /// ARRAY and STRUCT as arrays, MAP as an array of [key, value] pairs, BINARY as base64, null as null.
    /// </summary>
    public static class ExpectedValuesEndpoint
    {
        private const int MaxRows = 10_000;

        public static async Task<IResult> HandleAsync(HttpRequest request)
        {
            DatasetGenerator generator;
            long[] rows;
            try
            {
                using JsonDocument body = await JsonDocument.ParseAsync(request.Body).ConfigureAwait(false);
                QuerySpec query = PrepareDatasetEndpoint.ParseStatement(body.RootElement);
                if (query.Kind == StatementKind.NoResult)
                {
                    throw new FormatException("The statement must have a result (a mock.* data set or a SELECT).");
                }

                generator = new DatasetGenerator(query.Dataset);
                rows = body.RootElement.TryGetProperty("rows", out JsonElement list) && list.ValueKind == JsonValueKind.Array
                    ? list.EnumerateArray().Select(r => r.GetInt64()).ToArray()
                    : throw new FormatException("Body must hold \"rows\": [row numbers].");
                if (rows.Length > MaxRows || rows.Any(r => r < 0 || r >= query.ResultRows))
                {
                    throw new FormatException($"At most {MaxRows} rows, each in 0..{query.ResultRows - 1}.");
                }
            }
            catch (Exception ex) when (ex is FormatException or JsonException or ArgumentException or InvalidOperationException)
            {
                return Results.Json(new { error = ex.Message }, statusCode: StatusCodes.Status400BadRequest);
            }

            int columns = generator.Schema.FieldsList.Count;
            List<object?[]> values = rows.Select(row => Enumerable.Range(0, columns).Select(c => Neutral(generator.GetValue(row, c))).ToArray()).ToList();
            return Results.Json(new { columns = generator.Schema.FieldsList.Select(f => f.Name), rows = values });
        }

        private static object? Neutral(object? value) => value switch
        {
            DateTimeOffset t => (t.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) / 10,
            DateTime t => (t.Ticks - DateTime.UnixEpoch.Ticks) / 10,
            DateOnly d => d.DayNumber - DateOnly.FromDateTime(DateTime.UnixEpoch).DayNumber,
            DecimalValue d => System.Text.Json.Nodes.JsonNode.Parse(d.ToString()),
            YearMonthInterval i => i.Months,
            DayTimeInterval i => i.Micros,
            IReadOnlyList<KeyValuePair<object?, object?>> map => map.Select(kv => new[] { Neutral(kv.Key), Neutral(kv.Value) }).ToList(),
            object?[] fields => fields.Select(Neutral).ToList(),
            IReadOnlyList<object?> items => items.Select(Neutral).ToList(),
            _ => value,
        };
    }
}
