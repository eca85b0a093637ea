using System.Buffers;
using Apache.Arrow;
using Apache.Arrow.C;
using static DriverOverlay.Tests.Memory.ArrowBatchData;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// A record batch's memory in every order of dispose, slice, clone, pin and export (DESIGN 3.5): after the batch is
    /// disposed its memory is refused, never another batch's; a pinned body (the C Data Interface exports by pinning)
    /// is not reused until the last pin is released. Each test reads real batches with Apache.Arrow's own reader through
    /// the scope's allocator, and each failed on the allocator that handed out <c>new Memory&lt;byte&gt;(array)</c>.
    /// </summary>
    public class BatchLifetimeTests
    {
        private const int Rows = 20_000;
        private static readonly byte[] s_threeBatches = ArrowBatchData.Stream(batches: 3, Rows);

        [Fact]
        public void ColumnsAndSlicesKeptAfterTheirBatchIsDisposedThrowInsteadOfShowingTheNextBatch()
        {
            using DatabricksMemoryLease owner = CreateScope();
            using var reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);
            var ids = (Int64Array)first.Column(0);
            var labels = (StringArray)first.Column(1);
            var idSlice = (Int64Array)ArrowArrayFactory.Slice(ids, 5, 10);
            RecordBatch batchSlice = first.Slice(2, 100);
            Assert.Equal(IdOf(0, 7), idSlice.GetValue(2));

            first.Dispose();
            using RecordBatch second = reader.ReadNextRecordBatch();
            Assert.Same(body, BodyArrayOf(second)); // the array was reused: what the kept views pointed at is the second batch now
            AssertValues(second, 1, Rows);

            Assert.Throws<ObjectDisposedException>(() => ids.GetValue(8));
            Assert.Throws<ObjectDisposedException>(() => labels.GetString(8));
            Assert.Throws<ObjectDisposedException>(() => idSlice.GetValue(2));
            Assert.Throws<ObjectDisposedException>(() => ((Int64Array)batchSlice.Column(0)).GetValue(0));
            Assert.Throws<ObjectDisposedException>(() => ((StringArray)batchSlice.Column(1)).GetString(0));
            batchSlice.Dispose(); // a slice owns nothing: disposing it returns nothing twice
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public unsafe void ABatchExportedThroughTheCDataInterfaceStaysValidForItsConsumerAfterTheBatchIsDisposed()
        {
#pragma warning disable CS0618 // Apache.Arrow 22.1.0 (tags 21-23) exports managed memory only with this switch; 23.0.0 always does (and marks it obsolete)
            CArrowArrayExporter.EnableManagedMemoryExport = true;
#pragma warning restore CS0618
            using DatabricksMemoryLease owner = CreateScope();
            Lz4BufferPool pool = owner.Scope.ArrowBatchPool;
            using var reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            CArrowArray* exported = CArrowArray.Create();
            try
            {
                byte[] body;
                using (RecordBatch first = reader.ReadNextRecordBatch())
                {
                    body = BodyArrayOf(first);
                    CArrowArrayExporter.ExportRecordBatch(first, exported);
                }

                // Disposed by its using, but pinned by the export: still held, and the next batches get other arrays.
                Assert.Equal(body.Length, pool.InUseBytes);
                using RecordBatch second = reader.ReadNextRecordBatch();
                using RecordBatch third = reader.ReadNextRecordBatch();
                Assert.NotSame(body, BodyArrayOf(second));
                Assert.NotSame(body, BodyArrayOf(third));
                AssertValues(second, 1, Rows);
                AssertValues(third, 2, Rows);

                // The consumer (here Apache.Arrow's own importer) reads the first batch's values, then releases them.
                long heldByLiveBatches = BodyArrayOf(second).Length + BodyArrayOf(third).Length;
                using (RecordBatch imported = CArrowArrayImporter.ImportRecordBatch(exported, ArrowBatchData.Schema))
                {
                    AssertValues(imported, 0, Rows);
                }

                Assert.Equal(heldByLiveBatches, pool.InUseBytes);
                Assert.Equal(body.Length, pool.RetainedBytes); // given back once released, kept for reuse
            }
            finally
            {
                CArrowArray.Free(exported);
            }
        }

        [Fact]
        public unsafe void APinnedBodyIsNotReusedUntilItsLastPinIsReleased()
        {
            using DatabricksMemoryLease owner = CreateScope();
            MemoryAllocator allocator = owner.Scope.BatchAllocator;
            Lz4BufferPool pool = owner.Scope.ArrowBatchPool;
            IMemoryOwner<byte> pinned = allocator.Allocate(100_000);
            pinned.Memory.Span.Fill(0x11);
            MemoryHandle first = pinned.Memory.Slice(10).Pin();
            MemoryHandle second = pinned.Memory.Pin();
            Assert.Equal((IntPtr)second.Pointer + 10, (IntPtr)first.Pointer);

            pinned.Dispose();
            pinned.Dispose();
            Assert.Throws<ObjectDisposedException>(() => pinned.Memory);
            using (IMemoryOwner<byte> meanwhile = allocator.Allocate(100_000))
            {
                meanwhile.Memory.Span.Fill(0x22);
                Assert.Equal(0x11, ((byte*)second.Pointer)[0]); // another array: the pinned bytes are intact
            }

            long retained = pool.RetainedBytes;
            first.Dispose();
            Assert.Equal(retained, pool.RetainedBytes); // one pin left: still held
            second.Dispose();
            second.Dispose(); // a MemoryHandle unpins once
            Assert.Equal(retained + pool.ArrayLengthFor(100_000), pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
        }

        [Fact]
        public void PinningADisposedBodyThrows()
        {
            using DatabricksMemoryLease owner = CreateScope();
            IMemoryOwner<byte> memory = owner.Scope.BatchAllocator.Allocate(100_000);
            Memory<byte> kept = memory.Memory;
            memory.Dispose();
            Assert.Throws<ObjectDisposedException>(() => kept.Pin());
            Assert.Throws<ObjectDisposedException>(() => kept.Span.Length);
        }

        [Fact]
        public void ACloneOutlivesItsDisposedOriginalWhoseArrayIsReused()
        {
            using DatabricksMemoryLease owner = CreateScope();
            using var reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);
            using RecordBatch clone = first.Clone(owner.Scope.BatchAllocator);
            Assert.NotSame(body, BodyArrayOf(clone));

            first.Dispose();
            using RecordBatch second = reader.ReadNextRecordBatch();
            Assert.Same(body, BodyArrayOf(second));
            AssertValues(clone, 0, Rows);
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public void DisposingABatchFromSeveralThreadsAtOnceGivesItsArrayBackOnce()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            int arrayLength = 0;
            for (int round = 0; round < 50; round++)
            {
                RecordBatch batch = ReadOne(s_threeBatches, scope.BatchAllocator);
                arrayLength = BodyArrayOf(batch).Length;
                Parallel.For(0, 4, _ => batch.Dispose());
                Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            }

            Assert.Equal(50L * arrayLength, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned, DatabricksMemoryMetricNames.ArrowBatchesPool));
            Assert.Equal(arrayLength, scope.ArrowBatchPool.RetainedBytes); // one array, kept once, reused by every round
        }
    }
}
