using System.Net.Sockets;
using System.Text;

namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// What the truncate and reset faults put on the wire, read with a plain socket (no HTTP client in between that could
    /// hide where the body ended or how the connection closed).
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class BrokenBodyTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 8_000, Seed = 21, RowsPerFile = 2_000 };

        [Fact]
        public async Task Truncate_SendsExactlyTheFractionUnderTheFullContentLength_ThenAFin()
        {
            TSparkArrowResultLink link = await FirstLinkAsync("truncate files=0 at=0.3 times=always");

            // A clean close: reading ends with 0 bytes, never with "connection reset".
            (string headers, byte[] body) = await GetRawAsync(link.FileLink);

            Assert.StartsWith("HTTP/1.1 200 OK\r\n", headers, StringComparison.Ordinal);
            Assert.Contains($"\r\nContent-Length: {link.BytesNum}\r\n", headers, StringComparison.OrdinalIgnoreCase);
            Assert.Equal((int)(link.BytesNum * 0.3), body.Length);
        }

        [Fact]
        public async Task Reset_EndsAChunkedBodyWithoutItsLastChunk()
        {
            TSparkArrowResultLink link = await FirstLinkAsync("reset files=0 at=0.3 times=always");

            Exception? error = null;
            string headers = string.Empty;
            byte[] body = Array.Empty<byte>();
            try
            {
                (headers, body) = await GetRawAsync(link.FileLink);
            }
            catch (IOException ex)
            {
                error = ex;
            }

            if (fixture.Server.Mode == MockServerMode.Container)
            {
                // podman's port forwarder turns the server's RST into a FIN towards the client: the body just stops.
                Assert.True(error != null || !EndsWithLastChunk(body), "the chunked body was complete");
            }
            else
            {
                Assert.Equal(SocketError.ConnectionReset, Assert.IsType<SocketException>(Assert.IsType<IOException>(error).InnerException).SocketErrorCode);
            }
        }

        private async Task<TSparkArrowResultLink> FirstLinkAsync(string faults)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await MockServerFixture.ExecuteInNewSessionAsync(client, MockSql.Select(s_spec, $"mode=cloudfetch, faults='{faults}'"));
            return MockServerFixture.DirectResultLinks(executed)[0];
        }

        /// <summary>One GET over a fresh connection, read until the server closes it: the header block and every body byte.</summary>
        private static async Task<(string Headers, byte[] Body)> GetRawAsync(string url)
        {
            var uri = new Uri(url);
            using var tcp = new TcpClient();
            await tcp.ConnectAsync(uri.Host, uri.Port);
            using NetworkStream stream = tcp.GetStream();
            byte[] request = Encoding.ASCII.GetBytes($"GET {uri.PathAndQuery} HTTP/1.1\r\nHost: {uri.Authority}\r\n\r\n");
            await stream.WriteAsync(request);

            using var received = new MemoryStream();
            await stream.CopyToAsync(received);
            byte[] all = received.ToArray();
            int end = all.AsSpan().IndexOf("\r\n\r\n"u8) + 4;
            Assert.True(end >= 4, "no complete header block");
            return (Encoding.ASCII.GetString(all, 0, end), all[end..]);
        }

        private static bool EndsWithLastChunk(byte[] body) => body.AsSpan().EndsWith("\r\n0\r\n\r\n"u8);
    }
}
