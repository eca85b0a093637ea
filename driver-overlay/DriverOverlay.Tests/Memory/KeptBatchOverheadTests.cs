using System.Buffers;
using System.Linq;
using Apache.Arrow;
using static DriverOverlay.Tests.Memory.ArrowBatchData;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// An application that keeps the batches it reads (materialising a result, as the driver's own ReadAllBatches does)
    /// holds at most 1.25x the bytes of their bodies in pooled arrays. Power-of-two buckets, with a rent taking a free
    /// array up to two buckets larger, held 2x here and up to 8x at worst.
    /// </summary>
    public class KeptBatchOverheadTests
    {
        private const double Limit = 1.25;

        [Fact]
        public void KeptBatchesOfManySizesHoldAtMostAQuarterMoreThanTheirBodies()
        {
            // Bodies from ~40 KB to ~3.5 MB (about 25 bytes a row), sizes that fall anywhere between two powers of two.
            var random = new Random(20261124);
            int[] rowCounts = Enumerable.Range(0, 40).Select(_ => random.Next(1_500, 140_000)).ToArray();
            byte[] stream = ArrowBatchData.Stream(rowCounts);
            long bodies = BodyBytes(stream);

            using DatabricksMemoryLease owner = CreateScope();
            var kept = new List<RecordBatch>();
            // Returned arrays of every size are free in the pool first, as after earlier queries, so the larger-bucket rule would apply.
            ReadAll(stream, owner.Scope.BatchAllocator).ForEach(batch => batch.Dispose());
            using (var reader = new ArrowStreamReader(new MemoryStream(stream), owner.Scope.BatchAllocator))
            {
                RecordBatch? batch;
                while ((batch = reader.ReadNextRecordBatch()) != null)
                {
                    kept.Add(batch);
                }
            }

            for (int i = 0; i < kept.Count; i++)
            {
                AssertValues(kept[i], i, rowCounts[i]);
            }

            long held = owner.Scope.ArrowBatchPool.InUseBytes + UnpooledBytes(kept);
            Assert.True(held <= Limit * bodies, $"kept batches hold {held:N0} bytes for {bodies:N0} bytes of bodies ({(double)held / bodies:F2}x)");
            kept.ForEach(batch => batch.Dispose());
            Assert.Equal(0, owner.Scope.ArrowBatchPool.InUseBytes);
        }

        [Theory]
        [InlineData(1)]
        [InlineData(1_000)]
        [InlineData(65_535)]
        [InlineData(65_537)]
        [InlineData(81_921)]
        [InlineData(3_000_001)]
        public void ABodyIsGivenAtMostAQuarterMoreThanItAsksAndSmallBodiesExactly(int length)
        {
            using DatabricksMemoryLease owner = CreateScope();
            MemoryAllocator allocator = owner.Scope.BatchAllocator;
            long before = allocator.Statistics.BytesAllocated;
            using IMemoryOwner<byte> body = allocator.Allocate(length);

            Assert.Equal(length, body.Memory.Length);
            long given = allocator.Statistics.BytesAllocated - before;
            Assert.InRange(given, length, (long)(Limit * length));
            if (length < Lz4BufferPool.MinimumArrayLength)
            {
                Assert.Equal(length, given);
            }
        }

        /// <summary>What the bodies of the stream's batches ask for, read with a recording allocator (the real request sizes).</summary>
        private static long BodyBytes(byte[] stream)
        {
            var recorder = new RecordingAllocator();
            ReadAll(stream, recorder).ForEach(batch => batch.Dispose());
            return recorder.Requested;
        }

        private static List<RecordBatch> ReadAll(byte[] stream, MemoryAllocator allocator)
        {
            var batches = new List<RecordBatch>();
            using var reader = new ArrowStreamReader(new MemoryStream(stream), allocator);
            RecordBatch? batch;
            while ((batch = reader.ReadNextRecordBatch()) != null)
            {
                batches.Add(batch);
            }

            return batches;
        }

        /// <summary>Bodies below the smallest pooled array are exact unpooled arrays: not in the pool's in-use count.</summary>
        private static long UnpooledBytes(List<RecordBatch> batches) =>
            batches.Select(BodyArrayOf).Where(array => array.Length < Lz4BufferPool.MinimumArrayLength).Sum(array => (long)array.Length);

        private sealed class RecordingAllocator : MemoryAllocator
        {
            public long Requested { get; private set; }

            protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
            {
                Requested += length;
                bytesAllocated = length;
                return MemoryPool<byte>.Shared.Rent(length);
            }
        }
    }
}
