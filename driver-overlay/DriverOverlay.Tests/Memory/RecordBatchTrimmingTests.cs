using Apache.Arrow;
using Apache.Arrow.Memory;
using static DriverOverlay.Tests.Memory.ArrowBatchData;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// A batch trimmed to a link's rowCount (upstream #126) stays readable for as long as the application keeps it, and
    /// its memory goes back when it is disposed. The readers used to return <c>batch.Slice(...)</c> and dispose the
    /// batch: the slice then read freed memory (the scope's allocator: <see cref="ObjectDisposedException"/>).
    /// </summary>
    public class RecordBatchTrimmingTests
    {
        private const int Rows = 20_000;
        private static readonly byte[] s_threeBatches = ArrowBatchData.Stream(batches: 3, Rows);

        [Fact]
        public void TheTrimmedBatchKeepsItsValuesAfterTheOriginalsBodyIsReusedAndPoisoned()
        {
            using DatabricksMemoryLease owner = CreateScope(("adbc.databricks.memory.poison_returned_arrays", "true"));
            using var reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);

            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(first, 1234, owner.Scope.BatchAllocator);
            using RecordBatch second = reader.ReadNextRecordBatch();

            Assert.Same(body, BodyArrayOf(second)); // the original's body went back (poisoned) and was reused
            Assert.Equal(1234, trimmed.Length);
            AssertValues(trimmed, 0, 1234);
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public void TheOldSliceThenDisposeLeavesABatchThatCannotBeRead()
        {
            // The behaviour RecordBatchTrimming replaces, kept as a test so that a change in Apache.Arrow (a slice that
            // shares ownership) shows here and the copy can be reconsidered.
            using DatabricksMemoryLease owner = CreateScope();
            using var reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            RecordBatch slice = first.Slice(0, 1234);
            first.Dispose();

            Assert.Throws<ObjectDisposedException>(() => ((Int64Array)slice.Column(0)).GetValue(0));
        }

        [Fact]
        public void DisposingTheTrimmedBatchGivesEveryByteBack()
        {
            using DatabricksMemoryLease owner = CreateScope();
            Lz4BufferPool pool = owner.Scope.ArrowBatchPool;
            using (var reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator))
            {
                RecordBatch trimmed = RecordBatchTrimming.FirstRows(reader.ReadNextRecordBatch(), 10, owner.Scope.BatchAllocator);
                Assert.True(pool.InUseBytes > 0, "the trimmed batch's own buffers come from the scope");
                trimmed.Dispose();
            }

            Assert.Equal(0, pool.InUseBytes);
        }

        [Fact]
        public void ABatchThatFitsIsReturnedAsItIs()
        {
            using RecordBatch batch = ArrowBatchData.Batch(0, 100);
            Assert.Same(batch, RecordBatchTrimming.FirstRows(batch, 100, MemoryAllocator.Default.Value));
            Assert.Same(batch, RecordBatchTrimming.FirstRows(batch, 1000, MemoryAllocator.Default.Value));
            AssertValues(batch, 0, 100);
        }

        [Fact]
        public void WithApacheArrowsOwnAllocatorTheTrimmedBatchIsReadableToo()
        {
            using var reader = new ArrowStreamReader(new MemoryStream(s_threeBatches));
            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(reader.ReadNextRecordBatch(), 999, MemoryAllocator.Default.Value);
            using RecordBatch second = reader.ReadNextRecordBatch();
            AssertValues(trimmed, 0, 999);
        }
    }
}
