using System;
using System.Linq;
using Lz4Reference;
using MockDatabricks.Protocol.Arrow;
using MockDatabricks.Protocol.Data;
using MockDatabricks.Protocol.Lz4;
using Xunit;

namespace MockDatabricks.Tests.Protocol
{
    public class DatasetTests
    {
        [Fact]
        public void Layout_CutsRowsIntoFilesOfTheTargetSize()
        {
            var layout = new DatasetLayout(new DatasetSpec { Rows = 1_000_000, TargetFileBytes = 10 * 1024 * 1024 });
            Assert.Equal(104857, layout.RowsPerFile);
            Assert.Equal(10, layout.FileCount);
            Assert.Equal(new RowRange(9, 943713, 56287), layout.File(9));
            Assert.Equal(9, layout.FileContaining(999_999));
            Assert.Equal(-1, layout.FileContaining(1_000_000));

            var exact = new DatasetLayout(new DatasetSpec { Rows = 10, RowsPerFile = 3, RowsPerBatch = 2 });
            Assert.Equal(4, exact.FileCount);
            Assert.Equal(new[] { 2L, 1L }, exact.Batches(exact.File(1)).Select(b => b.RowCount));
        }

        [Theory]
        [InlineData(DatasetProfile.Mixed)]
        [InlineData(DatasetProfile.Narrow)]
        [InlineData(DatasetProfile.Strings)]
        public void File_DecodesToTheGeneratorsValues_AndCompressesRealistically(DatasetProfile profile)
        {
            var spec = new DatasetSpec { Rows = 60_000, Seed = 9, Profile = profile, RowsPerFile = 50_000, RowsPerBatch = 16_384 };
            var generator = new DatasetGenerator(spec);
            var layout = new DatasetLayout(spec);

            IpcFile file = DatasetFiles.BuildIpcStream(generator, layout, 1);
            ArrowStreamContents contents = ArrowIpcReader.ReadStream(file.Bytes);

            Assert.Equal(generator.Schema.ToString(), contents.Schema.ToString());
            Assert.Equal(10_000, contents.Batches.Sum(b => b.Length));
            long row = 50_000;
            int nulls = 0;
            foreach (ArrowRecordBatchData batch in contents.Batches)
            {
                for (int i = 0; i < batch.Length; i++, row++)
                {
                    for (int c = 0; c < batch.Columns.Count; c++)
                    {
                        object? value = batch.Columns[c].GetValue(i);
                        nulls += value == null ? 1 : 0;
                        Assert.Equal(generator.GetValue(row, c), value);
                    }
                }
            }

            Assert.InRange(nulls, 1, 10_000 * contents.Schema.Fields.Count / 10);

            byte[] compressed = DatasetFiles.Compress(file, FileFraming.Databricks);
            double ratio = (double)file.Bytes.Length / compressed.Length;
            Assert.InRange(ratio, 1.9, 4.5);
            if (NativeLz4.IsAvailable)
            {
                Assert.Equal(file.Bytes, NativeLz4.DecompressFrame(compressed));
            }
        }

        [Fact]
        public void Generator_IsDeterministicAndSeedDependent()
        {
            var a = new DatasetGenerator(new DatasetSpec { Rows = 100, Seed = 1 });
            var b = new DatasetGenerator(new DatasetSpec { Rows = 100, Seed = 1 });
            var c = new DatasetGenerator(new DatasetSpec { Rows = 100, Seed = 2 });
            int differences = 0;
            for (int row = 0; row < 100; row++)
            {
                for (int column = 0; column < a.Schema.Fields.Count; column++)
                {
                    Assert.Equal(a.GetValue(row, column), b.GetValue(row, column));
                    differences += Equals(a.GetValue(row, column), c.GetValue(row, column)) ? 0 : 1;
                }
            }

            Assert.True(differences > 500, $"only {differences} values differ between seeds");
            Assert.Equal(5L, a.GetValue(5, 0));
            Assert.IsType<DateTimeOffset>(a.GetValue(5, 5) ?? a.GetValue(6, 5));
        }

        [Fact]
        public void FramePerMessage_PutsEveryIpcMessageInItsOwnFrame()
        {
            var spec = new DatasetSpec { Rows = 1000, RowsPerFile = 1000, RowsPerBatch = 300 };
            IpcFile file = DatasetFiles.BuildIpcStream(new DatasetGenerator(spec), new DatasetLayout(spec), 0);

            byte[] framed = DatasetFiles.Compress(file, new FileFraming { FramePerMessage = true });

            // schema + 4 batches + EOS
            Assert.Equal(6, Lz4FrameEncoderTests.CountFrameMagics(framed));
            if (NativeLz4.IsAvailable)
            {
                Assert.Equal(file.Bytes, NativeLz4.DecompressFrame(framed));
            }
        }
    }
}
