using System.Net.Http.Json;

namespace MockDatabricks.Tests.Server
{
    /// <summary>POST /admin/datasets/values: the generator's values for clients in other languages.</summary>
    [Collection(MockServerCollection.Name)]
    public class ExpectedValuesTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 5_000, Seed = 9 };

        [Fact]
        public async Task Values_AreTheGeneratorsInClientNeutralJson()
        {
            long[] rows = { 0, 1, 2, 3, 4, 5, 6, 7, 4_999 };
            using HttpClient http = NewHttp();

            using HttpResponseMessage response = await http.PostAsJsonAsync("/admin/datasets/values", new { statement = MockSql.Select(s_spec), rows });
            using JsonDocument body = JsonDocument.Parse(await response.Content.ReadAsStringAsync());

            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            var generator = new DatasetGenerator(s_spec);
            Assert.Equal(generator.Schema.FieldsList.Select(f => f.Name), body.RootElement.GetProperty("columns").EnumerateArray().Select(c => c.GetString()));
            JsonElement[] values = body.RootElement.GetProperty("rows").EnumerateArray().ToArray();
            Assert.Equal(rows.Length, values.Length);
            for (int i = 0; i < rows.Length; i++)
            {
                JsonElement[] row = values[i].EnumerateArray().ToArray();
                for (int column = 0; column < row.Length; column++)
                {
                    object? expected = generator.GetValue(rows[i], column);
                    object? actual = expected switch
                    {
                        null => row[column].ValueKind == JsonValueKind.Null ? null : "not null",
                        long => row[column].GetInt64(),
                        int => row[column].GetInt32(),
                        double => row[column].GetDouble(),
                        decimal => row[column].GetDecimal(),
                        bool => row[column].GetBoolean(),
                        string => row[column].GetString(),
                        DateTimeOffset => DateTimeOffset.UnixEpoch.AddTicks(row[column].GetInt64() * 10),
                        DateOnly => DateOnly.FromDateTime(DateTime.UnixEpoch).AddDays(row[column].GetInt32()),
                        _ => throw new InvalidOperationException(expected.GetType().Name),
                    };
                    Assert.Equal(expected, actual);
                }
            }
        }

        [Theory]
        [InlineData("{\"statement\": \"SELECT * FROM mock.data WITH (rows=10)\", \"rows\": [10]}")]
        [InlineData("{\"statement\": \"SELECT 1\", \"rows\": [1]}")]
        [InlineData("{\"statement\": \"USE default\", \"rows\": [0]}")]
        [InlineData("{\"statement\": \"SELECT * FROM mock.data\"}")]
        public async Task BadRequests_Get400WithTheReason(string json)
        {
            using HttpClient http = NewHttp();

            using HttpResponseMessage response = await http.PostAsync("/admin/datasets/values", new StringContent(json));

            Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
            Assert.False(string.IsNullOrEmpty(JsonDocument.Parse(await response.Content.ReadAsStringAsync()).RootElement.GetProperty("error").GetString()));
        }

        private HttpClient NewHttp() =>
            new HttpClient(TrustedCertificate.Handler(fixture.Server.TrustedCertificatePath)) { BaseAddress = fixture.Server.BaseUrl };
    }
}
