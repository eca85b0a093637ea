using Lz4Reference;

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

        [Theory]
        [MemberData(nameof(DatasetProfiles.Every), MemberType = typeof(DatasetProfiles))]
        public void ValueEquals_AgreesWithTheBoxedComparison_OnEveryValue_AndRejectsAnotherRowsValue(DatasetProfile profile)
        {
            const int Rows = 2_000;
            var generator = new DatasetGenerator(new DatasetSpec { Rows = Rows, Seed = 7, Profile = profile });
            Apache.Arrow.RecordBatch batch = generator.BuildBatch(0, Rows);
            int nulls = 0, differentNeighbours = 0;
            for (int row = 0; row < Rows; row++)
            {
                for (int column = 0; column < batch.ColumnCount; column++)
                {
                    Apache.Arrow.IArrowArray array = batch.Column(column);
                    object? expected = generator.GetValue(row, column);
                    nulls += expected == null ? 1 : 0;
                    Assert.True(ArrowValues.AreEqual(expected, ArrowValues.Get(array, row)), $"row {row}, column {column}: the batch itself is wrong");
                    Assert.True(generator.ValueEquals(row, column, array, row), $"row {row}, column {column}: the fast check rejects the right value {expected}");

                    // The neighbouring row's value, wherever it differs, must be rejected exactly as the boxed check does.
                    int other = (row + 1) % Rows;
                    bool boxed = ArrowValues.AreEqual(expected, ArrowValues.Get(array, other));
                    Assert.Equal(boxed, generator.ValueEquals(row, column, array, other));
                    differentNeighbours += boxed ? 0 : 1;
                }
            }

            // Both branches were exercised: nulls, and many values that differ from the next row's.
            Assert.True(nulls > 0 || profile == DatasetProfile.Strings, $"no nulls in {profile}");
            Assert.True(differentNeighbours > Rows, $"only {differentNeighbours} neighbouring values differ in {profile}");
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
        public void MixedProfile_ValuesFollowTheDocumentedShape()
        {
            var generator = new DatasetGenerator(new DatasetSpec { Rows = 20_000, Seed = 3 });
            var start = new DateTimeOffset(2024, 1, 1, 0, 0, 0, TimeSpan.Zero);
            int nulls = 0;
            for (long row = 0; row < 20_000; row++)
            {
                object?[] v = Enumerable.Range(0, 9).Select(c => generator.GetValue(row, c)).ToArray();
                nulls += v.Count(x => x == null);
                Assert.Equal(row, v[0]);
                Assert.True(v[1] is null or (>= 1 and < 100_000), $"quantity {v[1]}");
                Assert.True(v[2] is null || ((double)v[2]! >= 0.99 && (double)v[2]! <= 1000.98 && Math.Round((double)v[2]!, 2) == (double)v[2]!), $"price {v[2]}");
                Assert.True(v[3] is null || ((decimal)v[3]! >= -200m && (decimal)v[3]! < 1800m && decimal.Round((decimal)v[3]!, 2) == (decimal)v[3]!), $"amount {v[3]}");
                Assert.True(v[4] is null || ((string)v[4]!).Length > 0);
                // Orders of 4 lines, 4 s apart, each at some millisecond inside its second.
                Assert.True(v[5] is null || ((DateTimeOffset)v[5]! - start - TimeSpan.FromSeconds(row / 4 * 4)) is { TotalMilliseconds: >= 0 and < 1000 }, $"created_at {v[5]}");
                Assert.True(v[6] is null || ((DateOnly)v[6]!).DayNumber - new DateOnly(2020, 1, 1).DayNumber - (row / 5000) is >= 0 and < 30, $"event_date {v[6]}");
                Assert.True(v[7] is null or bool);
                Assert.Contains((string)v[8]!, new[] { "United States", "Germany", "France", "United Kingdom", "Japan", "Brazil", "India", "Canada", "Australia", "Spain", "Italy", "Netherlands", "Sweden", "Poland", "Mexico", "South Korea", "Switzerland", "Norway", "Denmark", "Ireland" });
            }

            // About 5% of the 7 nullable columns.
            Assert.InRange(nulls, 20_000 * 7 * 4 / 100, 20_000 * 7 * 6 / 100);
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
