namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>Results of the statement planner's SQL over REST: sessions share its context, JSON_ARRAY has a form for every type.</summary>
    [Collection(MockServerCollection.Name)]
    public class RestSqlResultTests(MockServerFixture fixture)
    {
        [Fact]
        public async Task UseInARestSession_MovesTheMetadataSqlAndTheNamesAlike()
        {
            using RestApiClient client = fixture.NewRestClient();
            string session = await client.CreateSessionAsync();

            await client.ExecuteAsync(new RestExecuteRequest { Statement = "USE CATALOG main", SessionId = session });
            RestStatement current = await client.ExecuteAsync(new RestExecuteRequest { Statement = "SELECT current_catalog()", SessionId = session, Format = "JSON_ARRAY", Disposition = "INLINE" });
            RestStatement table = await client.ExecuteAsync(new RestExecuteRequest { Statement = "SELECT c_int FROM adbc_testing.all_column_types", SessionId = session, Format = "JSON_ARRAY", Disposition = "INLINE" });

            Assert.Equal(new string?[] { "main" }, Assert.Single(current.Result!.DataArray!));
            Assert.Equal(FixtureTables.AllColumnTypesRows, table.Manifest!.TotalRowCount);
        }

        [Fact]
        public async Task JsonArray_WritesIntervalsAndComplexValues_AsTheirText()
        {
            using RestApiClient client = fixture.NewRestClient();

            RestStatement result = await client.ExecuteAsync(new RestExecuteRequest
            {
                Statement = "SELECT c_interval_ym, c_interval_ds, c_array, c_map, c_struct FROM main.adbc_testing.all_column_types",
                SessionId = await client.CreateSessionAsync(),
                Format = "JSON_ARRAY",
                Disposition = "INLINE",
            });

            TableDefinition table = FixtureTables.AllColumnTypes();
            int Column(string name) => table.Fields.ToList().FindIndex(f => f.Name == name);
            List<string?> first = result.Result!.DataArray![0];
            var months = (YearMonthInterval)table.Columns[Column("c_interval_ym")].Value(0)!;
            var micros = (DayTimeInterval)table.Columns[Column("c_interval_ds")].Value(0)!;
            Assert.Equal($"{months.Months / 12}-{months.Months % 12}", first[0]);
            Assert.Equal($"{micros.Micros / 86_400_000_000L} 00:00:00.000000000", first[1]);
            Assert.Equal(((IReadOnlyList<object?>)table.Columns[Column("c_array")].Value(0)!).Select(v => Convert.ToInt32(v)), JsonSerializer.Deserialize<int[]>(first[2]!));
            KeyValuePair<object?, object?> entry = Assert.Single((IReadOnlyList<KeyValuePair<object?, object?>>)table.Columns[Column("c_map")].Value(0)!);
            Assert.Equal(Convert.ToInt32(entry.Value), JsonSerializer.Deserialize<Dictionary<string, int>>(first[3]!)![(string)entry.Key!]);
            using JsonDocument structure = JsonDocument.Parse(first[4]!);
            Assert.Equal(((object?[])table.Columns[Column("c_struct")].Value(0)!)[0], structure.RootElement.GetProperty("f1").GetString());
            Assert.All(result.Result.DataArray[^1], Assert.Null);
        }
    }
}
