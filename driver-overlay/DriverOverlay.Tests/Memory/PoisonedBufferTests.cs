using Lz4Reference;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// Pools do not clear what they hand out. These tests fill every free buffer with 0xCD before decoding and prove
    /// that the output equals the original exactly (length and bytes): no stale byte from an earlier use, of this
    /// tenant or any other, can reach what the consumer reads. Each test also proves the poisoned buffers really
    /// were reused (otherwise it would pass vacuously).
    /// </summary>
    public class PoisonedBufferTests
    {
        private const byte Poison = 0xCD;

        public static IEnumerable<object[]> Inputs()
        {
            // Sizes that do not line up with buckets, with and without a size to go by, and linked blocks whose
            // matches reach back into earlier output.
            yield return new object[] { 1, "databricks" };
            yield return new object[] { 5000, "databricks" };
            yield return new object[] { 100 * KiB + 3, "databricks" };
            yield return new object[] { 3 * MiB + 1, "databricks" };
            yield return new object[] { 5 * MiB, "databricks" };
            yield return new object[] { 700 * KiB + 9, "linked" };
            yield return new object[] { 2 * MiB + 5, "linked" };
            yield return new object[] { 3 * MiB + 1, "runs" };
        }

        private static (byte[] Data, byte[] Compressed) Input(int size, string kind)
        {
            if (kind == "runs")
            {
                // ~250x compression: far more output than the compressed bytes suggest, through poisoned arrays.
                byte[] data = new byte[size];
                for (int i = 0; i < data.Length; i++)
                {
                    data[i] = (byte)(i / 70_000);
                }

                return (data, NativeLz4.CompressFrame(data, NoContentSizeFrames));
            }

            return Sample(size, kind == "linked" ? Linked64KFrames : NoContentSizeFrames, seed: size);
        }

        [Theory]
        [MemberData(nameof(Inputs))]
        public void DecompressToArrayNeverShowsStaleBytes(int size, string kind)
        {
            // The array path decodes into the array it returns; a poisoned pool must not matter to it either.
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BufferPoolMaxArrayMbKey, "8"));
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Input(size, kind);
            PoisonBufferPool(scope.BufferPool, arraysPerBucket: 1);

            byte[] result = scope.Lz4.DecompressToArray(compressed);

            Assert.Equal(data.Length, result.Length);
            Assert.Equal(data, result);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        public static IEnumerable<object[]> InputsBothWays()
        {
            foreach (object[] input in Inputs())
            {
                yield return [.. input, DecodeAhead.Off];
                yield return [.. input, DecodeAhead.Settled];
            }
        }

        [Theory]
        [MemberData(nameof(InputsBothWays))]
        public void DecodeAsReadNeverShowsStaleBytes(int size, string kind, DecodeAhead mode)
        {
            using var metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = Lz4Decoding.CreateScope(mode, (DatabricksMemoryOptions.BufferPoolMaxArrayMbKey, "8"));
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Input(size, kind);
            PoisonBufferPool(scope.BufferPool, arraysPerBucket: 3);
            long allocated = metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated);

            // Through a block buffer (small reads; settled: the block decoded ahead) and straight into the reader's buffer (whole reads).
            foreach (int readSize in new[] { 4093, 16 * MiB })
            {
                byte[] read = Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, compressed, readSize, settle: mode == DecodeAhead.Settled);
                Assert.True(data.AsSpan().SequenceEqual(read), $"stale bytes in the output ({readSize}-byte reads)");
            }

            // The download and the block buffers were poisoned arrays: nothing was allocated.
            Assert.Equal(allocated, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated));
        }

        [Theory]
        [InlineData(true)]
        [InlineData(false)]
        public async Task ReadContentAsyncAndItsStreamNeverShowStaleBytes(bool withContentLength)
        {
            using var metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BufferPoolMaxArrayMbKey, "8"));
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(3 * MiB + 7, NoContentSizeFrames);
            PoisonBufferPool(scope.BufferPool, arraysPerBucket: 2);
            long allocated = metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated, DatabricksMemoryMetricNames.Lz4BuffersPool);

            using (PooledBuffer download = await scope.Lz4.ReadContentAsync(
                new ChunkedHttpContent(compressed, withContentLength ? compressed.Length : null), CancellationToken.None))
            {
                Assert.Equal(compressed.Length, download.Length);
                Assert.True(download.Span.SequenceEqual(compressed));
                Assert.Equal(allocated, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated, DatabricksMemoryMetricNames.Lz4BuffersPool));
                Assert.Equal(Poison, download.Segment.Array![^1]); // stale bytes are there, beyond Length

                Assert.Equal(data, Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, download.Span));

                Assert.Equal(data, scope.Lz4.DecompressToArray(download.Span));

                using MemoryStream raw = download.ToStream();
                Assert.Equal(compressed.Length, raw.Length);
                byte[] read = new byte[compressed.Length + 1];
                Assert.Equal(compressed.Length, raw.ReadAtLeast(read, read.Length, throwOnEndOfStream: false));
                Assert.True(compressed.AsSpan().SequenceEqual(read.AsSpan(0, compressed.Length)));
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }
    }
}
