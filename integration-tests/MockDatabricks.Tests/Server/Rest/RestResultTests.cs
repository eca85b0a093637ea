using System.Buffers.Binary;

namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>POST /api/2.0/sql/statements with each disposition and format, read as the driver reads it, every value checked.</summary>
    [Collection(MockServerCollection.Name)]
    public class RestResultTests(MockServerFixture fixture)
    {
        /// <summary>The mixed profile's columns as a warehouse types them (DatasetGenerator's definition, read as SQL).</summary>
        private static readonly string[] s_mixedTypes = { "BIGINT", "INT", "DOUBLE", "DECIMAL(18,4)", "STRING", "TIMESTAMP", "DATE", "BOOLEAN", "STRING" };

        [Fact]
        public async Task ExternalLinks_ArrowStreamLz4_ChunkPerFile_EveryValueMatches()
        {
            var spec = new DatasetSpec { Rows = 12_000, Seed = 31, RowsPerFile = 3_000, RowsPerBatch = 1_000 };

            RestOutcome outcome = await fixture.QueryAsync(RestSteps.Select(spec) with { Disposition = "EXTERNAL_LINKS" });

            RestManifest manifest = outcome.Manifest;
            Assert.Equal("SUCCEEDED", outcome.Statement.State);
            Assert.Equal("ARROW_STREAM", manifest.Format);
            Assert.Equal("LZ4_FRAME", manifest.ResultCompression);
            Assert.Equal(s_mixedTypes, manifest.Schema!.Columns!.Select(c => c.TypeText));
            Assert.Equal(new[] { "LONG", "INT", "DOUBLE", "DECIMAL", "STRING", "TIMESTAMP", "DATE", "BOOLEAN", "STRING" }, manifest.Schema.Columns!.Select(c => c.TypeName));
            Assert.Equal(4, manifest.TotalChunkCount);
            Assert.Equal(12_000, manifest.TotalRowCount);
            Assert.Equal(new long[] { 0, 3_000, 6_000, 9_000 }, manifest.Chunks!.Select(c => c.RowOffset));
            Assert.All(manifest.Chunks!, c => Assert.Equal(3_000, c.RowCount));
            Assert.Equal(4, outcome.Links.Count);
            string statement = outcome.Statement.StatementId;
            for (int i = 0; i < 4; i++)
            {
                RestExternalLink link = outcome.Links[i];
                Assert.Equal(i, link.ChunkIndex);
                Assert.Equal(i * 3_000L, link.RowOffset);
                Assert.Equal(3_000, link.RowCount);
                Assert.True(link.ByteCount > 0);
                Assert.Equal(i < 3 ? i + 1 : null, link.NextChunkIndex);
                Assert.Equal(i < 3 ? $"/api/2.0/sql/statements/{statement}/result/chunks/{i + 1}" : null, link.NextChunkInternalLink);
                Assert.True(DateTime.Parse(link.Expiration!, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind).ToUniversalTime() > DateTime.UtcNow.AddMinutes(30));
            }

            Assert.Equal(3, outcome.ChunkRequests);
            Assert.Equal(0, outcome.Refreshes);
            Assert.Equal(12_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
        }

        [Fact]
        public async Task ExternalLinks_WithoutCompression_ServePlainArrowIpcFiles()
        {
            var spec = new DatasetSpec { Rows = 4_000, Seed = 32, RowsPerFile = 2_000 };
            using RestApiClient client = fixture.NewRestClient();
            string session = await client.CreateSessionAsync();

            RestStatement executed = await client.ExecuteAsync(RestSteps.Select(spec) with { SessionId = session, Disposition = "EXTERNAL_LINKS", ResultCompression = "NONE" });
            byte[] file = await client.DownloadAsync(executed.Result!.ExternalLinks![0]);
            RestOutcome outcome = await RestSteps.NewReader(client).ReadAsync(executed);

            Assert.Null(executed.Manifest!.ResultCompression);
            Assert.Equal(0xFFFFFFFFu, BinaryPrimitives.ReadUInt32LittleEndian(file)); // an IPC message's continuation marker, not the LZ4 magic
            Assert.Equal(executed.Result.ExternalLinks[0].ByteCount, file.Length);
            Assert.Equal(4_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
        }

        [Theory]
        [InlineData("LZ4_FRAME")]
        [InlineData("NONE")]
        public async Task Inline_ArrowStream_IsOneIpcStreamAcrossChunkAttachments(string compression)
        {
            var spec = new DatasetSpec { Rows = 2_500, Seed = 33, RowsPerBatch = 1_000 };

            RestOutcome outcome = await fixture.QueryAsync(RestSteps.Select(spec, "mode=inline") with { Disposition = "INLINE", ResultCompression = compression });

            RestManifest manifest = outcome.Manifest;
            Assert.Equal(compression == "NONE" ? null : "LZ4_FRAME", manifest.ResultCompression);
            Assert.Equal(3, manifest.TotalChunkCount);
            Assert.Equal(new long[] { 1_000, 1_000, 500 }, manifest.Chunks!.Select(c => c.RowCount));
            Assert.NotNull(outcome.Statement.Result!.Attachment);
            Assert.Null(outcome.Statement.Result.ExternalLinks);
            Assert.Equal(2, outcome.ChunkRequests);
            Assert.Equal(new[] { 1_000, 1_000, 500 }, outcome.Batches.Select(b => b.Length));
            Assert.Equal(2_500, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
        }

        [Fact]
        public async Task InlineOrExternalLinks_SmallResultsInline_LargeResultsAsLinks()
        {
            var small = new DatasetSpec { Rows = 100, Seed = 34 };
            var large = new DatasetSpec { Rows = 20_000, Seed = 34, RowsPerFile = 5_000 };

            RestOutcome inline = await fixture.QueryAsync(RestSteps.Select(small));
            RestOutcome links = await fixture.QueryAsync(RestSteps.Select(large));

            Assert.NotNull(inline.Statement.Result!.Attachment);
            Assert.Empty(inline.Links);
            Assert.Equal(100, ResultVerifier.VerifyAllValues(inline.Batches, small));
            Assert.Null(links.Statement.Result!.Attachment);
            Assert.Equal(4, links.Links.Count);
            Assert.Equal(20_000, ResultVerifier.VerifyAllValues(links.Batches, large));
        }

        [Fact]
        public async Task Inline_JsonArray_EveryValueIsItsString_AndCompressionIsIgnored()
        {
            var spec = new DatasetSpec { Rows = 1_200, Seed = 35, RowsPerBatch = 500 };

            RestOutcome outcome = await fixture.QueryAsync(RestSteps.Select(spec) with { Disposition = "INLINE", Format = "JSON_ARRAY" });

            RestManifest manifest = outcome.Manifest;
            Assert.Equal("JSON_ARRAY", manifest.Format);
            Assert.Null(manifest.ResultCompression);
            Assert.Equal(3, manifest.TotalChunkCount);
            Assert.Equal(2, outcome.ChunkRequests);
            Assert.Equal(1_200, outcome.Rows.Count);
            var generator = new DatasetGenerator(spec);
            for (int row = 0; row < outcome.Rows.Count; row++)
            {
                for (int column = 0; column < generator.Schema.FieldsList.Count; column++)
                {
                    AssertText(generator.GetValue(row, column), outcome.Rows[row][column], row, column);
                }
            }
        }

        [Fact]
        public async Task SelectOne_IsOneInlineChunk_InEitherFormat()
        {
            RestOutcome arrow = await fixture.QueryAsync(new RestExecuteRequest { Statement = "SELECT 1" });
            RestOutcome json = await fixture.QueryAsync(new RestExecuteRequest { Statement = "SELECT 1", Format = "JSON_ARRAY", Disposition = "INLINE" });

            Assert.Equal("INT", Assert.Single(arrow.Manifest.Schema!.Columns!).TypeText);
            Assert.Equal(1, Assert.IsType<Apache.Arrow.Int32Array>(Assert.Single(arrow.Batches).Column(0)).GetValue(0));
            Assert.Equal(new string?[] { "1" }, Assert.Single(json.Rows));
        }

        [Fact]
        public async Task SameStatementOverThriftAndRest_ServesTheSameStoredFile()
        {
            var spec = new DatasetSpec { Rows = 6_000, Seed = 36, RowsPerFile = 3_000 };
            string sql = MockSql.Select(spec, "mode=cloudfetch");
            using MockDatabricksClient thrift = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(thrift);
            TExecuteStatementResp thriftReply = await thrift.ExecuteStatementAsync(session, sql);
            TSparkArrowResultLink thriftLink = MockServerFixture.DirectResultLinks(thriftReply)[0];
            using RestApiClient rest = fixture.NewRestClient();

            RestStatement restReply = await rest.ExecuteAsync(new RestExecuteRequest { Statement = sql, SessionId = await rest.CreateSessionAsync() });
            RestExternalLink restLink = restReply.Result!.ExternalLinks![0];

            Assert.Equal(thriftLink.BytesNum, restLink.ByteCount);
            Assert.Equal(await thrift.DownloadAsync(thriftLink.FileLink), await rest.DownloadAsync(restLink));
        }

        /// <summary>A JSON_ARRAY string against the generator's value, parsed back (not formatted by the mock's code).</summary>
        private static void AssertText(object? expected, string? text, int row, int column)
        {
            string where = $"row {row}, column {column}";
            if (expected == null)
            {
                Assert.True(text == null, $"{where}: expected null, got '{text}'");
                return;
            }

            Assert.True(text != null, $"{where}: expected {expected}, got null");
            CultureInfo invariant = CultureInfo.InvariantCulture;
            bool same = expected switch
            {
                long l => text == l.ToString(invariant),
                int i => text == i.ToString(invariant),
                double d => double.Parse(text, invariant) == d,
                decimal m => decimal.Parse(text, invariant) == m,
                string s => text == s,
                bool b => text == (b ? "true" : "false"),
                DateTimeOffset t => DateTimeOffset.ParseExact(text, new[] { "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm:ss.FFFFFF" }, invariant, DateTimeStyles.AssumeUniversal).UtcTicks == t.UtcTicks,
                DateOnly date => DateOnly.ParseExact(text, "yyyy-MM-dd", invariant) == date,
                _ => throw new NotSupportedException($"{where}: no check for {expected.GetType().Name}"),
            };
            Assert.True(same, $"{where}: expected {expected}, got '{text}'");
        }
    }
}
