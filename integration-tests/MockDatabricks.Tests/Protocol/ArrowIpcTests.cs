using System;
using System.Collections.Generic;
using System.Linq;
using MockDatabricks.Protocol.Arrow;
using MockDatabricks.Protocol.Data;
using Xunit;

namespace MockDatabricks.Tests.Protocol
{
    public class ArrowIpcTests
    {
        private static readonly ArrowSchema s_allTypes = new ArrowSchema(new[]
        {
            new ArrowField("i32", ArrowColumnType.Int32),
            new ArrowField("i64", ArrowColumnType.Int64, Nullable: false),
            new ArrowField("f64", ArrowColumnType.Float64),
            new ArrowField("dec", ArrowColumnType.Decimal(18, 4)),
            new ArrowField("text", ArrowColumnType.Utf8),
            new ArrowField("ts", ArrowColumnType.TimestampUtc),
            new ArrowField("ts_naive", new ArrowColumnType(ArrowTypeId.Timestamp)),
            new ArrowField("day", ArrowColumnType.Date32),
            new ArrowField("flag", ArrowColumnType.Bool),
        });

        [Fact]
        public void Stream_RoundTripsEveryTypeWithNulls()
        {
            object?[][] rows = SampleRows(1000);
            var output = new ByteBuilder();
            ArrowIpcWriter.WriteSchemaMessage(output, s_allTypes);
            foreach (object?[][] chunk in rows.Chunk(300))
            {
                ArrowIpcWriter.WriteRecordBatchMessage(output, Build(chunk));
            }

            ArrowIpcWriter.WriteEndOfStream(output);

            ArrowStreamContents contents = ArrowIpcReader.ReadStream(output.ToArray());

            Assert.Equal(s_allTypes.ToString(), contents.Schema.ToString());
            Assert.Equal(new[] { 300, 300, 300, 100 }, contents.Batches.Select(b => b.Length));
            int row = 0;
            foreach (ArrowRecordBatchData batch in contents.Batches)
            {
                for (int i = 0; i < batch.Length; i++, row++)
                {
                    for (int c = 0; c < s_allTypes.Fields.Count; c++)
                    {
                        Assert.Equal(rows[row][c], batch.Columns[c].GetValue(i));
                    }
                }
            }

            Assert.Equal(rows.Length, row);
        }

        [Fact]
        public void Messages_AreEightByteAlignedWithContinuationMarkers()
        {
            byte[] schema = ArrowIpcWriter.SchemaStream(s_allTypes);
            byte[] batch = ArrowIpcWriter.RecordBatchMessage(Build(SampleRows(17)));

            foreach (byte[] message in new[] { schema, batch })
            {
                Assert.Equal(0xFFFFFFFFu, BitConverter.ToUInt32(message, 0));
                int metadataLength = BitConverter.ToInt32(message, 4);
                Assert.Equal(0, (8 + metadataLength) % 8);
                Assert.Equal(0, message.Length % 8);
            }

            // arrowSchema = Schema message + EOS; an inline batch = one RecordBatch decoded against the metadata schema.
            Assert.Equal(new byte[] { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 }, schema.Skip(schema.Length - 8).ToArray());
            Assert.Equal(s_allTypes.ToString(), ArrowIpcReader.ReadSchema(schema).ToString());
            ArrowRecordBatchData decoded = ArrowIpcReader.ReadRecordBatch(batch, s_allTypes);
            Assert.Equal(17, decoded.Length);
        }

        [Fact]
        public void Reader_RejectsTruncatedStreams()
        {
            var output = new ByteBuilder();
            ArrowIpcWriter.WriteSchemaMessage(output, s_allTypes);
            ArrowIpcWriter.WriteRecordBatchMessage(output, Build(SampleRows(50)));
            byte[] bytes = output.ToArray();

            Assert.ThrowsAny<Exception>(() => ArrowIpcReader.ReadStream(bytes.AsMemory(0, bytes.Length - 9)));
        }

        [Fact]
        public void DecimalConversion_IsExact()
        {
            foreach (decimal value in new[] { 0m, 1.5m, -1.5m, 99999999999999.9999m, -99999999999999.9999m, 0.0001m })
            {
                Assert.Equal(value, DecimalConversion.FromUnscaled(DecimalConversion.ToUnscaled(value, 4), 4));
            }

            Assert.Equal((Int128)15000, DecimalConversion.ToUnscaled(1.5m, 4));
            Assert.Throws<ArgumentException>(() => DecimalConversion.ToUnscaled(1.23456m, 4));
        }

        private static ArrowColumnBuilder[] Build(object?[][] rows)
        {
            ArrowColumnBuilder[] builders = s_allTypes.Fields.Select(f => new ArrowColumnBuilder(f, rows.Length)).ToArray();
            foreach (object?[] row in rows)
            {
                for (int c = 0; c < builders.Length; c++)
                {
                    builders[c].AppendValue(row[c]);
                }
            }

            return builders;
        }

        private static object?[][] SampleRows(int count)
        {
            var random = new Random(42);
            var rows = new List<object?[]>();
            for (int i = 0; i < count; i++)
            {
                bool nulls = i % 7 == 3;
                rows.Add(new object?[]
                {
                    nulls ? null : random.Next(int.MinValue, int.MaxValue),
                    (long)i * 1_000_003L - 5,
                    nulls ? null : random.NextDouble() * 1e6 - 5e5,
                    nulls ? null : (decimal)random.Next(-1_000_000, 1_000_000) / 10_000m,
                    nulls ? null : new string('x', i % 23) + (i % 5 == 0 ? "Zürich 東京" : string.Empty),
                    nulls ? null : DateTimeOffset.UnixEpoch.AddTicks((long)random.Next() * 10_000_000L + (i * 10)),
                    nulls ? null : DateTimeOffset.UnixEpoch.AddTicks(-(long)i * 864_000_000_000L),
                    nulls ? null : DateOnly.FromDayNumber(700_000 + i),
                    nulls ? null : i % 3 == 0,
                });
            }

            return rows.ToArray();
        }
    }
}
