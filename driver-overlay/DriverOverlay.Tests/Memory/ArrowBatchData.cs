using System.Runtime.InteropServices;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// Arrow IPC streams whose every value follows from (batch number, row), written by Apache.Arrow's own writer,
    /// so a test can read them back through an allocator and check each value of each batch.
    /// </summary>
    internal static class ArrowBatchData
    {
        public static readonly Schema Schema = new Schema.Builder()
            .Field(f => f.Name("id").DataType(Int64Type.Default).Nullable(false))
            .Field(f => f.Name("label").DataType(StringType.Default).Nullable(true))
            .Build();

        public static long IdOf(int batch, int row) => (batch * 1_000_003L) + row;

        /// <summary>Every seventh row is null, so the validity bitmap (easily left unzeroed) is checked too.</summary>
        public static string? LabelOf(int batch, int row) => row % 7 == 3 ? null : $"b{batch}-r{row}";

        public static RecordBatch Batch(int batch, int rows)
        {
            var ids = new Int64Array.Builder();
            var labels = new StringArray.Builder();
            for (int row = 0; row < rows; row++)
            {
                ids.Append(IdOf(batch, row));
                string? label = LabelOf(batch, row);
                if (label == null)
                {
                    labels.AppendNull();
                }
                else
                {
                    labels.Append(label);
                }
            }

            return new RecordBatch(Schema, new IArrowArray[] { ids.Build(), labels.Build() }, rows);
        }

        /// <summary>An IPC stream of <paramref name="batches"/> batches numbered from <paramref name="firstBatch"/>.</summary>
        public static byte[] Stream(int batches, int rows, int firstBatch = 0)
        {
            var rowCounts = new int[batches];
            rowCounts.AsSpan().Fill(rows);
            return Stream(rowCounts, firstBatch);
        }

        /// <summary>An IPC stream of one batch per entry of <paramref name="rowCounts"/>, numbered from <paramref name="firstBatch"/>.</summary>
        public static byte[] Stream(int[] rowCounts, int firstBatch = 0)
        {
            using var output = new MemoryStream();
            using (var writer = new ArrowStreamWriter(output, Schema, leaveOpen: true))
            {
                for (int i = 0; i < rowCounts.Length; i++)
                {
                    using RecordBatch batch = Batch(firstBatch + i, rowCounts[i]);
                    writer.WriteRecordBatch(batch);
                }

                writer.WriteEnd();
            }

            return output.ToArray();
        }

        /// <summary>Asserts every value of the batch against the generator.</summary>
        public static void AssertValues(RecordBatch batch, int batchNumber, int rows)
        {
            Assert.Equal(rows, batch.Length);
            var ids = (Int64Array)batch.Column(0);
            var labels = (StringArray)batch.Column(1);
            for (int row = 0; row < rows; row++)
            {
                Assert.Equal(IdOf(batchNumber, row), ids.GetValue(row));
                Assert.Equal(LabelOf(batchNumber, row), labels.GetString(row));
            }
        }

        /// <summary>
        /// The pooled array behind the batch's id values (through the overlay's internal accessor: on .NET the body's memory
        /// never exposes its array, <c>MemoryMarshal.TryGetArray</c> says no; off .NET Core it does, for Apache.Arrow's
        /// reader). Fails for a batch whose body is not a live
        /// <see cref="ScopedArrowAllocator"/> body (native memory, or disposed).
        /// </summary>
        public static byte[] BodyArrayOf(RecordBatch batch)
        {
            ReadOnlyMemory<byte> values = batch.Column(0).Data.Buffers[1].Memory;
            Assert.True(ScopedArrowAllocator.TryGetBodyArray(values, out byte[]? array), "the batch body is not a live pooled body");
#if NETCOREAPP
            Assert.False(MemoryMarshal.TryGetArray(values, out ArraySegment<byte> _), "a batch body must not hand out its pooled array");
#else
            // Off .NET Core Apache.Arrow fills a body through its array (ScopedArrowAllocator.BatchMemory.TryGetArray).
            Assert.True(MemoryMarshal.TryGetArray(values, out ArraySegment<byte> segment), "a live batch body gives Apache.Arrow its array off .NET Core");
            Assert.Same(array, segment.Array);
#endif
            return array!;
        }
    }
}
