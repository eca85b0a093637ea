using Apache.Arrow;
using Apache.Arrow.Ipc;
using K4os.Compression.LZ4.Streams;
using MockDatabricks.Protocol.Lz4;

namespace MockDatabricks.Tests.Protocol
{
    /// <summary>
    /// What the mock stores, read the way the driver reads it: K4os's LZ4Stream.Decode, then Apache.Arrow's
    /// ArrowStreamReader (files, arrowSchema) or ArrowSerializationHelpers.DeserializeRecordBatch (inline batches);
    /// every value checked against the generator's formula.
    /// </summary>
    public class ArrowInteropTests
    {
        [Theory]
        [MemberData(nameof(DatasetProfiles.Every), MemberType = typeof(DatasetProfiles))]
        public void CloudFetchFile_ReadByK4osAndArrowStreamReader_EveryValueMatches_AndCompressesRealistically(DatasetProfile profile)
        {
            var spec = new DatasetSpec { Rows = 60_000, Seed = 9, Profile = profile, RowsPerFile = 50_000, RowsPerBatch = 16_384 };
            var generator = new DatasetGenerator(spec);
            IpcFile file = DatasetFiles.BuildIpcStream(generator, new DatasetLayout(spec), 1);
            byte[] stored = DatasetFiles.Compress(file, FileFraming.Databricks);

            List<RecordBatch> batches = ReadFile(stored);

            // File 1 holds rows 50,000..59,999: one batch, under the 16,384-row batch limit.
            Assert.Equal(10_000, Assert.Single(batches).Length);
            Assert.Equal(10_000, ResultVerifier.VerifyAllValues(batches, spec, firstRow: 50_000));
            int nulls = 0;
            foreach (RecordBatch batch in batches)
            {
                for (int c = 0; c < batch.ColumnCount; c++)
                {
                    nulls += batch.Column(c).NullCount;
                }
            }

            Assert.InRange(nulls, 1, 10_000 * batches[0].ColumnCount / 10);
            Assert.InRange((double)file.Bytes.Length / stored.Length, 1.9, 4.5);
        }

        [Fact]
        public void ArrowSchemaMetadata_IsOneSchemaMessage_ReadByArrowStreamReader()
        {
            var generator = new DatasetGenerator(new DatasetSpec());
            byte[] metadata = DatasetFiles.SchemaMessage(generator.Schema);

            using var reader = new ArrowStreamReader(new MemoryStream(metadata));

            Assert.Equal(ArrowValues.Describe(generator.Schema), ArrowValues.Describe(reader.Schema));
            Assert.Null(reader.ReadNextRecordBatch());
            // Continuation marker, metadata length, metadata: nothing after it (no EOS).
            Assert.Equal(0xFFFFFFFFu, BitConverter.ToUInt32(metadata, 0));
            Assert.Equal(metadata.Length, 8 + BitConverter.ToInt32(metadata, 4));
        }

        [Theory]
        [InlineData(true)]
        [InlineData(false)]
        public void InlineBatch_DecodesWithTheMetadataSchema_EveryValueMatches(bool lz4)
        {
            var spec = new DatasetSpec { Rows = 5_000, Seed = 4 };
            var generator = new DatasetGenerator(spec);
            Schema schema = new ArrowStreamReader(new MemoryStream(DatasetFiles.SchemaMessage(generator.Schema))).Schema;
            byte[] message = DatasetFiles.BuildInlineBatch(generator, new RowRange(0, 1_000, 3_000));
            byte[] payload = lz4 ? Lz4Framing.Encode(message, Lz4FrameOptions.Databricks) : message;

            byte[] decoded = lz4 ? Decompress(payload) : payload;
            using RecordBatch batch = ArrowSerializationHelpers.DeserializeRecordBatch(schema, decoded);

            Assert.Equal(3_000, batch.Length);
            Assert.Equal(3_000, ResultVerifier.VerifyAllValues(new[] { batch }, spec with { Rows = 4_000 }, firstRow: 1_000));
        }

        [Fact]
        public void InlineBatch_IsExactlyOneRecordBatchMessage_NoSchemaBeforeNoEndOfStreamAfter()
        {
            var spec = new DatasetSpec { Rows = 100, Seed = 5 };
            var generator = new DatasetGenerator(spec);
            byte[] schema = DatasetFiles.SchemaMessage(generator.Schema);
            byte[] first = DatasetFiles.BuildInlineBatch(generator, new RowRange(0, 0, 60));
            byte[] second = DatasetFiles.BuildInlineBatch(generator, new RowRange(1, 60, 40));

            // How the Python connector reads inline results: arrowSchema + every batch as one stream.
            // A schema inside a batch would break the stream; an EOS inside one would end it after the first batch.
            using var concatenated = new MemoryStream();
            concatenated.Write(schema);
            concatenated.Write(first);
            concatenated.Write(second);
            concatenated.Position = 0;
            List<RecordBatch> batches = DriverLikeReader.ReadStream(concatenated);

            Assert.Equal(0xFFFFFFFFu, BitConverter.ToUInt32(first, 0)); // continuation marker, then the metadata length
            Assert.Equal(new[] { 60, 40 }, new[] { batches[0].Length, batches[1].Length });
            Assert.Equal(2, batches.Count);
            Assert.Equal(100, ResultVerifier.VerifyAllValues(batches, spec));
        }

        [Fact]
        public void Verifier_ReportsTheFirstValueThatDiffers()
        {
            var spec = new DatasetSpec { Rows = 100, Seed = 6 };
            using RecordBatch batch = new DatasetGenerator(spec).BuildBatch(0, 99);

            // The same rows presented as rows 1..99: the first id is off by one.
            var shifted = Assert.Throws<InvalidOperationException>(() => ResultVerifier.VerifyAllValues(new[] { batch }, spec, firstRow: 1));
            var tooFew = Assert.Throws<InvalidOperationException>(() => ResultVerifier.VerifyAllValues(new[] { batch }, spec));

            Assert.Equal("row 1, column id: expected 1, got 0", shifted.Message);
            Assert.Equal("Expected 100 rows, got 99.", tooFew.Message);
        }

        internal static List<RecordBatch> ReadFile(byte[] stored) => DriverLikeReader.ReadStream(new MemoryStream(Decompress(stored)));

        internal static byte[] Decompress(byte[] frames)
        {
            // The driver's Lz4Utilities: LZ4Stream.Decode copied into a MemoryStream.
            using var output = new MemoryStream();
            using (LZ4DecoderStream decoder = LZ4Stream.Decode(new MemoryStream(frames)))
            {
                decoder.CopyTo(output);
            }

            return output.ToArray();
        }
    }
}
