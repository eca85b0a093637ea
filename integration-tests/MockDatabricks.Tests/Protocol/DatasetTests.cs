using System;
using System.Linq;
using Lz4Reference;
using MockDatabricks.Protocol.Data;
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

        [Fact]
        public void Generator_IsDeterministicAndSeedDependent()
        {
            var a = new DatasetGenerator(new DatasetSpec { Rows = 100, Seed = 1 });
            var b = new DatasetGenerator(new DatasetSpec { Rows = 100, Seed = 1 });
            var c = new DatasetGenerator(new DatasetSpec { Rows = 100, Seed = 2 });
            int differences = 0;
            for (int row = 0; row < 100; row++)
            {
                for (int column = 0; column < a.Schema.FieldsList.Count; column++)
                {
                    Assert.Equal(a.GetValue(row, column), b.GetValue(row, column));
                    differences += Equals(a.GetValue(row, column), c.GetValue(row, column)) ? 0 : 1;
                }
            }

            Assert.True(differences > 500, $"only {differences} values differ between seeds");
        }

        [Fact]
        public void MixedProfile_HasTheColumnTypesDatabricksSends()
        {
            var generator = new DatasetGenerator(new DatasetSpec { Rows = 100 });

            Assert.Equal(
                "id: int64 not null, quantity: int32, price: double, amount: decimal128(18,4), description: utf8, " +
                "created_at: timestamp[Microsecond, tz=Etc/UTC], event_date: date32, is_active: bool, country: utf8 not null",
                ArrowValues.Describe(generator.Schema));
            Assert.Equal(5L, generator.GetValue(5, 0));
            // Order lines come in fours that share the order's timestamp.
            Assert.Equal(generator.GetValue(8, 5) ?? generator.GetValue(9, 5), generator.GetValue(10, 5) ?? generator.GetValue(11, 5));
        }

        [Fact]
        public void FramePerMessage_PutsEveryIpcMessageInItsOwnFrame_AndFlushPerMessage_OneBlockPerMessage()
        {
            Lz4FramingTests.SkipIfNoNative();
            var spec = new DatasetSpec { Rows = 1000, RowsPerFile = 1000, RowsPerBatch = 300 };
            IpcFile file = DatasetFiles.BuildIpcStream(new DatasetGenerator(spec), new DatasetLayout(spec), 0);

            byte[] framed = DatasetFiles.Compress(file, new FileFraming { FramePerMessage = true });
            byte[] flushed = DatasetFiles.Compress(file, new FileFraming { FlushPerMessage = true });

            // schema + 4 batches + EOS
            Assert.Equal(6, file.MessageOffsets.Count);
            Assert.Equal(6, Lz4FrameLayout.Read(framed).Count);
            Assert.Equal(6, Assert.Single(Lz4FrameLayout.Read(flushed)).Blocks.Count);
            Assert.Equal(file.Bytes, NativeLz4.DecompressFrame(framed));
            Assert.Equal(file.Bytes, NativeLz4.DecompressFrame(flushed));
        }
    }
}
