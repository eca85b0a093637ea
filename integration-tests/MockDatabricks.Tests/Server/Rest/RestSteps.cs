using Lz4Reference;

namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>The REST tests' shared steps: clients of the collection's server, and a query in a session of its own.</summary>
    internal static class RestSteps
    {
        public static RestApiClient NewRestClient(this MockServerFixture fixture, string? token = null) => RestApiClient.For(fixture.Server, token);

        /// <summary>The driver-like reader, decoding LZ4 frames with Debian's liblz4 (the reference the mock is checked against).</summary>
        public static RestResultReader NewReader(RestApiClient client) => new RestResultReader(client, bytes => NativeLz4.DecompressFrame(bytes));

        /// <summary>Runs <paramref name="request"/> in a new session and reads its whole result; closes statement and session.</summary>
        public static async Task<RestOutcome> QueryAsync(this MockServerFixture fixture, RestExecuteRequest request)
        {
            using RestApiClient client = fixture.NewRestClient();
            string session = await client.CreateSessionAsync();
            RestOutcome outcome = await NewReader(client).RunAsync(request with { SessionId = session });
            await client.CloseAsync(outcome.Statement.StatementId);
            await client.DeleteSessionAsync(session);
            return outcome;
        }

        /// <summary>The statement request for a data set, with the driver's defaults and the given overrides.</summary>
        public static RestExecuteRequest Select(DatasetSpec spec, string? settings = null) => new RestExecuteRequest { Statement = MockSql.Select(spec, settings) };
    }
}
