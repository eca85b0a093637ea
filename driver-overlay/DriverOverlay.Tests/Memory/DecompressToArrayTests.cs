using Lz4Reference;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>Inline Arrow batches to exact-size arrays the consumer owns.</summary>
    public class DecompressToArrayTests
    {
        [Theory]
        [InlineData(1)]
        [InlineData(1000)]
        [InlineData(100 * KiB)]
        [InlineData(5 * MiB)]
        public void WithContentSizeDecodesStraightIntoTheReturnedArray(int size)
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(size, WithContentSize);
            AssertDecodedIntoOneArray(scope, data, compressed);

            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented));
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks));
            Assert.Equal(2L * size, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(2, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Frames));
        }

        [Theory]
        [InlineData(1000)]
        [InlineData(100 * KiB)]
        [InlineData(5 * MiB)]
        public void WithoutContentSizeTheMeasuredSizeIsDecodedStraightIntoTheReturnedArray(int size)
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(size, WithoutContentSize);
            byte[] result = AssertDecodedIntoOneArray(scope, data, compressed);

            // The result is the consumer's: the pool never saw it, and never hands it out.
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented));
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.NotSame(result, scope.BufferPool.Rent(size).Array);
        }

        [Fact]
        public void HighlyCompressibleOutputIsStillSizedExactly()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;

            // Long runs compress ~250x: far beyond any guess from the compressed size.
            byte[] data = new byte[3 * MiB + 17];
            for (int i = 0; i < data.Length; i++)
            {
                data[i] = (byte)(i / 100_000);
            }

            byte[] compressed = NativeLz4.CompressFrame(data, WithoutContentSize);

            byte[] result = scope.Lz4.DecompressToArray(compressed);

            Assert.Equal(data, result);
            Assert.Equal(0, metrics.Count(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks));
        }

        [Fact]
        public void ConcatenatedFramesAreReturnedWhole()
        {
            using DatabricksMemoryLease lease = CreateScope();
            (byte[] first, byte[] firstFrame) = Sample(70 * KiB, WithContentSize, seed: 4);
            (byte[] second, byte[] secondFrame) = Sample(50 * KiB, WithContentSize, seed: 5);

            byte[] result = lease.Scope.Lz4.DecompressToArray(Concatenate(firstFrame, secondFrame));

            Assert.Equal(Concatenate(first, second), result);
        }

        /// <summary>
        /// Decodes <paramref name="compressed"/> twice (the first call warms up JIT and type loading) and checks the second:
        /// exactly <paramref name="data"/>, written into the array it returns: one array of the output's size (plus a
        /// little bookkeeping), not a second exact copy and not pooled scratch space.
        /// </summary>
        private static byte[] AssertDecodedIntoOneArray(DatabricksMemoryScope scope, byte[] data, byte[] compressed)
        {
            Assert.Equal(data, scope.Lz4.DecompressToArray(compressed));

            long before = GC.GetAllocatedBytesForCurrentThread();
            byte[] result = scope.Lz4.DecompressToArray(compressed);
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

            Assert.Equal(data.Length, result.Length);
            Assert.Equal(data, result);
            Assert.InRange(allocated, data.Length, data.Length + data.Length / 2 + 4 * KiB);
            return result;
        }

        [Fact]
        public void EmptyContent()
        {
            using DatabricksMemoryLease lease = CreateScope();

            Assert.Empty(lease.Scope.Lz4.DecompressToArray(NativeLz4.CompressFrame(Array.Empty<byte>(), WithContentSize)));
            Assert.Empty(lease.Scope.Lz4.DecompressToArray(NativeLz4.CompressFrame(Array.Empty<byte>(), WithoutContentSize)));
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [Fact]
        public void CorruptInputThrowsAndLeaksNothing()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (_, byte[] withSize) = Sample(100 * KiB, WithContentSize);
            (_, byte[] withoutSize) = Sample(MiB, WithoutContentSize);

            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(withSize)));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(withoutSize)));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(new byte[] { 9, 9, 9, 9, 9, 9, 9, 9 }));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(ReadOnlySpan<byte>.Empty));

            AssertNothingInUse(metrics, scope);
            Assert.Equal(4, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks, reason: DatabricksMemoryMetricNames.ErrorReason));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
        }

        [Fact]
        public void AfterReleaseTheResultIsStillExactAndNothingIsKept()
        {
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            (byte[] data, byte[] withoutSize) = Sample(100 * KiB, WithoutContentSize);
            (byte[] sized, byte[] withSize) = Sample(100 * KiB, WithContentSize, seed: 9);
            owner.Dispose();

            Assert.Equal(data, scope.Lz4.DecompressToArray(withoutSize));
            Assert.Equal(sized, scope.Lz4.DecompressToArray(withSize));

            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }
    }
}
