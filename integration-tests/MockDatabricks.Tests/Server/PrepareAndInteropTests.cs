using Apache.Arrow;
using MockDatabricks.Tests.Protocol;

namespace MockDatabricks.Tests.Server
{
    /// <summary>POST /admin/datasets/prepare, and served files read by the driver's own libraries (K4os, Apache.Arrow).</summary>
    [Collection(MockServerCollection.Name)]
    public class PrepareAndInteropTests(MockServerFixture fixture)
    {
        [Fact]
        public async Task Prepare_BuildsEveryFileOnce_AndTheQueryIsServedFromTheCache()
        {
            var spec = new DatasetSpec { Rows = 24_000, Seed = 31, RowsPerFile = 4_000 };
            string statement = MockSql.Select(spec, "mode=cloudfetch");

            using HttpResponseMessage prepared = await fixture.Admin.PrepareAsync(statement);

            Assert.Equal(HttpStatusCode.OK, prepared.StatusCode);
            using JsonDocument answer = JsonDocument.Parse(await prepared.Content.ReadAsStringAsync());
            Assert.Equal(6, answer.RootElement.GetProperty("files").GetInt32());
            long bytes = answer.RootElement.GetProperty("bytes").GetInt64();
            Assert.True(answer.RootElement.GetProperty("seconds").GetDouble() >= 0);
            JsonElement dataset = await DatasetAsync(spec);
            Assert.Equal(6, dataset.GetProperty("builtFiles").GetInt32());
            Assert.Equal(6, dataset.GetProperty("fileBuilds").GetInt32());
            Assert.Equal(bytes, dataset.GetProperty("cachedBytes").GetInt64());

            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(session, statement);

            Assert.Equal(24_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            Assert.Equal(bytes, outcome.Links.Sum(l => l.BytesNum));
            Assert.Equal(6, (await DatasetAsync(spec)).GetProperty("fileBuilds").GetInt32()); // nothing generated twice
        }

        [Fact]
        public async Task Prepare_InlineResult_BuildsEveryBatchOnce()
        {
            var spec = new DatasetSpec { Rows = 1_000, Seed = 32, RowsPerBatch = 300 };
            string statement = MockSql.Select(spec, "mode=inline");

            using HttpResponseMessage prepared = await fixture.Admin.PrepareAsync(statement);
            using MockDatabricksClient client = fixture.NewClient();
            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(await MockServerFixture.OpenSessionAsync(client), statement);

            Assert.Equal(HttpStatusCode.OK, prepared.StatusCode);
            using JsonDocument answer = JsonDocument.Parse(await prepared.Content.ReadAsStringAsync());
            Assert.Equal(4, answer.RootElement.GetProperty("files").GetInt32());
            Assert.Equal(1_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
            Assert.Equal(4, (await DatasetAsync(spec)).GetProperty("inlineBuilds").GetInt32());
        }

        [Theory]
        [InlineData("{\"statement\": \"SELECT * FROM nowhere\"}", "[TABLE_OR_VIEW_NOT_FOUND] The table or view `nowhere` cannot be found")]
        [InlineData("{\"statement\": \"SELECT * FROM mock.nope\"}", "Unknown data set mock.nope")]
        [InlineData("{\"statement\": \"SELECT * FROM mock.data WITH (rows=-5)\"}", "not a non-negative integer")]
        [InlineData("{\"sql\": \"SELECT 1\"}", "Body must be {\"statement\"")]
        [InlineData("<xml/>", "is an invalid start of a value")]
        public async Task Prepare_RejectsWhatDoesNotParse_With400AndTheReason(string body, string reason)
        {
            using var http = new HttpClient { BaseAddress = fixture.Server.BaseUrl };

            using HttpResponseMessage response = await http.PostAsync("/admin/datasets/prepare", new StringContent(body, System.Text.Encoding.UTF8, "application/json"));

            Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
            using JsonDocument answer = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
            Assert.Contains(reason, answer.RootElement.GetProperty("error").GetString());
        }

        [Theory]
        [InlineData("", 1)]
        [InlineData(", lz4_content_checksum=true, lz4_content_size=true", 1)]
        [InlineData(", frames=4", 4)]
        [InlineData(", lz4_flush=per_message, batch_rows=1000", 1)]
        public async Task ServedFile_ReadByK4osAndArrowStreamReader_EveryValueMatches(string options, int frames)
        {
            var spec = new DatasetSpec { Rows = 8_000, Seed = 33, RowsPerFile = 4_000, RowsPerBatch = options.Contains("batch_rows") ? 1000 : 32768 };
            using MockDatabricksClient client = fixture.NewClient();
            QueryOutcome outcome = await MockServerFixture.NewReader(client).RunAsync(await MockServerFixture.OpenSessionAsync(client), MockSql.Select(spec, "mode=cloudfetch" + options.Replace(", batch_rows=1000", string.Empty)));

            var batches = new List<RecordBatch>();
            foreach (TSparkArrowResultLink link in outcome.Links)
            {
                byte[] file = await client.DownloadAsync(link.FileLink);
                Assert.Equal(frames, Lz4FrameLayout.Read(file).Count);
                batches.AddRange(ArrowInteropTests.ReadFile(file));
            }

            Assert.Equal(8_000, ResultVerifier.VerifyAllValues(batches, spec));
            if (options.Contains("lz4_flush"))
            {
                // Flushed after every message: schema, 4 batches and EOS each end a block, under a 4 MB declared maximum.
                Lz4Frame frame = Assert.Single(Lz4FrameLayout.Read(await client.DownloadAsync(outcome.Links[0].FileLink)));
                Assert.Equal(6, frame.Blocks.Count);
                Assert.Equal(0x70, frame.BlockDescriptor);
            }
        }

        private async Task<JsonElement> DatasetAsync(DatasetSpec spec)
        {
            using JsonDocument datasets = await fixture.Admin.GetJsonAsync("/admin/datasets");
            return datasets.RootElement.GetProperty("datasets").EnumerateArray()
                .Single(d => d.GetProperty("key").GetString()!.StartsWith(spec.Key + ";lz4=", System.StringComparison.Ordinal)).Clone();
        }
    }
}
