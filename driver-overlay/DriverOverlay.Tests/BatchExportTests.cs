using System.Buffers;
using Apache.Arrow;
using Apache.Arrow.C;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;

namespace DriverOverlay.Tests
{
    /// <summary>
    /// What the scope's batch bodies look like through pointers: the C Data Interface export of a batch, and the address a
    /// pin of a slice gives. Here rather than with the series' tests of the allocator (upstream-tests/new-home) because
    /// both need unsafe code, which upstream's test project does not allow.
    /// </summary>
    public class BatchExportTests
    {
        private const int Rows = 20_000;
        private static readonly byte[] s_threeBatches = IpcStream(batches: 3, Rows);

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
                using (RecordBatch imported = CArrowArrayImporter.ImportRecordBatch(exported, DbxmemArrowData.Schema))
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
        public unsafe void APinOfASliceOfABodyPointsIntoTheBodyAndKeepsItsBytes()
        {
            using DatabricksMemoryLease owner = CreateScope();
            MemoryAllocator allocator = owner.Scope.BatchAllocator;
            IMemoryOwner<byte> pinned = allocator.Allocate(100_000);
            pinned.Memory.Span.Fill(0x11);
            using MemoryHandle slice = pinned.Memory.Slice(10).Pin();
            using MemoryHandle whole = pinned.Memory.Pin();
            Assert.Equal((IntPtr)whole.Pointer + 10, (IntPtr)slice.Pointer);

            pinned.Dispose();
            using (IMemoryOwner<byte> meanwhile = allocator.Allocate(100_000))
            {
                meanwhile.Memory.Span.Fill(0x22);
                Assert.Equal(0x11, ((byte*)whole.Pointer)[0]); // another array: the pinned bytes are intact
                Assert.Equal(0x11, ((byte*)slice.Pointer)[99_989]);
            }
        }
    }
}
