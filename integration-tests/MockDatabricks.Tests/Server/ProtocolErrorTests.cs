using System.Net.Http.Headers;
using MockDatabricks.Protocol.Thrift;
using MockDatabricks.Tests.Protocol;
using Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Tests.Server
{
    /// <summary>Authentication, malformed requests and unknown statements: clear errors, and the server keeps serving.</summary>
    [Collection(MockServerCollection.Name)]
    public class ProtocolErrorTests(MockServerFixture fixture)
    {
        [Theory]
        [InlineData("wrong-token")]
        [InlineData("")]
        public async Task WrongOrMissingToken_Gets401(string token)
        {
            using var client = new MockDatabricksClient(fixture.Server.WarehouseUrl(), token);

            ThriftHttpException error = await Assert.ThrowsAsync<ThriftHttpException>(() => client.OpenSessionAsync());

            Assert.Equal(HttpStatusCode.Unauthorized, error.StatusCode);
            await AssertStillServingAsync();
        }

        [Fact]
        public async Task GarbageBody_Gets400WithAReason()
        {
            using MockDatabricksClient client = fixture.NewClient();

            ThriftHttpException error = await Assert.ThrowsAsync<ThriftHttpException>(() => client.PostRawAsync(new byte[] { 1, 2, 3, 4, 5, 6, 7 }));

            Assert.Equal(HttpStatusCode.BadRequest, error.StatusCode);
            Assert.Contains("Thrift", error.ServerMessage);
            await AssertStillServingAsync();
        }

        [Fact]
        public async Task UnknownMethod_GetsTApplicationException()
        {
            using MockDatabricksClient client = fixture.NewClient();

            TApplicationException error = await Assert.ThrowsAsync<TApplicationException>(() =>
                client.CallAsync<TCloseOperationResp>("GetDelegationToken", new TCloseOperationReq()));

            Assert.Equal(TApplicationException.ExceptionType.UnknownMethod, error.Type);
            Assert.Contains("GetDelegationToken", error.Message);
            await AssertStillServingAsync();
        }

        [Fact]
        public async Task MissingRequiredField_GetsProtocolError()
        {
            using MockDatabricksClient client = fixture.NewClient();
            byte[] call = await RawThrift.EncodeAsync(async (writer, ct) =>
            {
                await writer.WriteMessageBeginAsync(new TMessage("ExecuteStatement", TMessageType.Call, 7), ct);
                await writer.WriteFieldBeginAsync(new TField("req", TType.Struct, 1), ct);
                await writer.WriteStringFieldAsync(2, "SELECT 1", ct); // statement without the required sessionHandle
                await writer.WriteFieldStopAsync(ct);
                await writer.WriteFieldStopAsync(ct);
            });

            await AssertProtocolErrorAsync<TExecuteStatementResp>(client, call, "ExecuteStatement", "ExecuteStatement: malformed arguments: a required field is not set");
            await AssertStillServingAsync();
        }

        [Fact]
        public async Task TruncatedMessage_GetsProtocolError()
        {
            using MockDatabricksClient client = fixture.NewClient();
            byte[] call = await ThriftMessages.EncodeCallAsync("OpenSession", 1, new TOpenSessionReq { ClientProtocol = TProtocolVersion.SparkV7, InitialNamespace = new TNamespace { SchemaName = "x" } });
            byte[] truncated = call.AsSpan(0, call.Length - 6).ToArray();

            // ApacheThrift's end-of-buffer error (TTransportException END_OF_FILE), passed on as the protocol error.
            await AssertProtocolErrorAsync<TOpenSessionResp>(client, truncated, "OpenSession", "OpenSession: malformed arguments: Cannot read, Remote side has closed");
            await AssertStillServingAsync();
        }

        [Theory]
        [InlineData("SELECT * FROM mock.data WITH (rows=ten)")]
        [InlineData("SELECT * FROM mock.data WITH (faults='explode')")]
        [InlineData("SELECT * FROM mock.data WITH (faults='link bps=0')")]
        [InlineData("SELECT * FROM mock.nope")]
        [InlineData("SELEC 1")]
        [InlineData("SELECT 1 +")]
        public async Task UnknownStatement_GetsErrorStatusWithTheGrammar(string statement)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp response = await MockServerFixture.ExecuteInNewSessionAsync(client, statement);

            Assert.Equal(TStatusCode.Error, response.Status.StatusCode);
            Assert.Equal("42601", response.Status.SqlState);
            Assert.False(string.IsNullOrWhiteSpace(response.Status.ErrorMessage));
            await AssertStillServingAsync();
        }

        [Fact]
        public async Task UnknownHandles_GetInvalidHandleStatus()
        {
            using MockDatabricksClient client = fixture.NewClient();
            var stranger = new TOperationHandle { OperationId = THandleIdentifier.CreateRandom() };

            TGetOperationStatusResp status = await client.GetOperationStatusAsync(stranger);
            TFetchResultsResp fetch = await client.FetchResultsAsync(stranger, 100);
            TExecuteStatementResp executed = await client.ExecuteStatementAsync(new TSessionHandle { SessionId = THandleIdentifier.CreateRandom() }, "SELECT 1");

            Assert.Equal(TStatusCode.InvalidHandle, status.Status.StatusCode);
            Assert.Equal(TStatusCode.InvalidHandle, fetch.Status.StatusCode);
            Assert.NotNull(fetch.Results);
            Assert.Equal(TStatusCode.InvalidHandle, executed.Status.StatusCode);
        }

        [Fact]
        public async Task ForwardedHost_IsUsedForCloudFetchLinks()
        {
            // Behind a port mapping the client reaches the server at another address: links must follow it.
            var spec = new DatasetSpec { Rows = 2_000, RowsPerFile = 1_000 };
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            byte[] call = await ThriftMessages.EncodeCallAsync("ExecuteStatement", 1, new TExecuteStatementReq
            {
                SessionHandle = session,
                Statement = MockSql.Select(spec, "mode=cloudfetch"),
                GetDirectResults = new TSparkGetDirectResults { MaxRows = 100_000 },
                CanReadArrowResult = true,
                CanDownloadResult = true,
            });
            using var http = new HttpClient();
            using var request = new HttpRequestMessage(HttpMethod.Post, fixture.Server.WarehouseUrl()) { Content = new ByteArrayContent(call) };
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", fixture.Server.Token);
            request.Headers.Add("X-Forwarded-Host", "warehouse.example:18080");
            request.Headers.Add("X-Forwarded-Proto", "https");

            using HttpResponseMessage response = await http.SendAsync(request);
            TExecuteStatementResp executed = await ThriftMessages.DecodeReplyAsync<TExecuteStatementResp>(await response.Content.ReadAsByteArrayAsync(), "ExecuteStatement");

            Assert.All(MockServerFixture.DirectResultLinks(executed), link => Assert.StartsWith("https://warehouse.example:18080/cloudfetch/", link.FileLink));
        }

        [Fact]
        public async Task AdminApi_ListsDatasetsAndOperations()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            await MockServerFixture.NewReader(client).RunAsync(session, "SELECT * FROM mock.many_files WITH (rows=10000)");

            using var datasets = await fixture.Admin.GetJsonAsync("/admin/datasets");
            using var operations = await fixture.Admin.GetJsonAsync("/admin/operations");

            Assert.Contains(datasets.RootElement.GetProperty("datasets").EnumerateArray(), d => d.GetProperty("rows").GetInt64() == 10_000 && d.GetProperty("files").GetInt32() == 2);
            Assert.Contains(operations.RootElement.GetProperty("operations").EnumerateArray(), o => o.GetProperty("statement").GetString()!.Contains("many_files"));
        }

        /// <summary>Posts <paramref name="call"/> as it is: the reply must be a ProtocolError EXCEPTION that says <paramref name="message"/>.</summary>
        private static async Task AssertProtocolErrorAsync<TResponse>(MockDatabricksClient client, byte[] call, string method, string message)
            where TResponse : class, TBase, new()
        {
            byte[] reply = await client.PostRawAsync(call);
            TApplicationException error = await Assert.ThrowsAsync<TApplicationException>(() => ThriftMessages.DecodeReplyAsync<TResponse>(reply, method));

            Assert.Equal(TApplicationException.ExceptionType.ProtocolError, error.Type);
            Assert.Equal(message, error.Message);
        }

        private async Task AssertStillServingAsync()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(session, "SELECT 1");
            Assert.Equal(1, outcome.RowCount);
        }
    }
}
