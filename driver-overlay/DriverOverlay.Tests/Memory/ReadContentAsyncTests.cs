using System.Net.Http;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>HTTP bodies into arrays rented from the scope, and the PooledBuffer that gives them back.</summary>
    public class ReadContentAsyncTests
    {
        private const int Min = Lz4BufferPool.MinimumArrayLength;

        [Theory]
        [InlineData(0)]
        [InlineData(1)]
        [InlineData(1000)]
        [InlineData(Min - 1)]
        [InlineData(300 * KiB)]
        public async Task WithContentLengthTheBodyLandsInOnePooledArray(int size)
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(size, seed: size);

            using (PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None))
            {
                Assert.Equal(size, buffer.Length);
                Assert.Equal(size, buffer.Segment.Count);
                Assert.Equal(0, buffer.Segment.Offset);
                Assert.True(buffer.Span.SequenceEqual(body));

                // Exactly one array, of the declared length's bucket, is in use: no regrowth.
                int bucket = BucketOf(size);
                Assert.Equal(bucket, buffer.Segment.Array!.Length);
                Assert.Equal(bucket, scope.BufferPool.InUseBytes);
                Assert.Equal(bucket, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated));
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(BucketOf(size), scope.BufferPool.RetainedBytes);
        }

        [Theory]
        [InlineData(Min)]
        [InlineData(2 * Min)]
        public async Task ABodyThatExactlyFillsItsBucketIsNotRegrown(int size)
        {
            // A body whose Content-Length is exactly a bucket size fills the rented array; checking that nothing
            // follows must not rent (and copy into) an array twice the size. At the pool's largest size (32 MiB by
            // default) that would be an unpooled 64 MiB allocation per download.
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(size, seed: 3);

            using PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None);

            Assert.True(buffer.Span.SequenceEqual(body));
            Assert.Equal(size, buffer.Segment.Array!.Length);
            Assert.Equal(size, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated));
            Assert.Equal(size, scope.BufferPool.InUseBytes);
        }

        [Theory]
        [InlineData(0)]
        [InlineData(10)]
        [InlineData(Min)]
        [InlineData(Min + 1)]
        [InlineData(300 * KiB)]
        public async Task WithoutContentLengthTheBufferGrowsAndTheOutgrownArraysGoBack(int size)
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(size, seed: 7);
            var content = new TestHttpContent(body, declaredLength: null);
            Assert.Null(content.Headers.ContentLength);

            using (PooledBuffer buffer = await scope.Lz4.ReadContentAsync(content, CancellationToken.None))
            {
                Assert.Equal(size, buffer.Length);
                Assert.True(buffer.Span.SequenceEqual(body));
                Assert.Equal(buffer.Segment.Array!.Length, scope.BufferPool.InUseBytes); // only the final array is in use
                Assert.Equal(
                    metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented) - buffer.Segment.Array.Length,
                    scope.BufferPool.RetainedBytes); // every outgrown array was returned (and kept)
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
        }

        [Fact]
        public async Task DeclaredLengthAboveThePoolsLargestArrayIsServedUnpooled()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BufferPoolMaxArrayMbKey, "1"));
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(MiB + MiB / 2, seed: 8);

            using (PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new TestHttpContent(body, body.Length), CancellationToken.None))
            {
                Assert.True(buffer.Span.SequenceEqual(body));
                Assert.Equal(0, scope.BufferPool.InUseBytes);
            }

            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Unpooled));
        }

        [Theory]
        [InlineData(1000, 900)]
        [InlineData(1000, 0)]
        [InlineData(Min, Min - 1)]
        [InlineData(300 * KiB, 200 * KiB)]
        public async Task BodyShorterThanContentLengthThrowsAndTheArrayGoesBack(int declared, int actual)
        {
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(actual, seed: 1);

            IOException error = await Assert.ThrowsAsync<IOException>(
                () => scope.Lz4.ReadContentAsync(new TestHttpContent(body, declared), CancellationToken.None));

            Assert.Contains($"{actual} of {declared}", error.Message, StringComparison.Ordinal);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(BucketOf(declared), scope.BufferPool.RetainedBytes);
        }

        [Theory]
        [InlineData(100, 200)]
        [InlineData(0, 1)]
        [InlineData(Min, Min + 1)]
        [InlineData(1000, 300 * KiB)]
        public async Task BodyLongerThanContentLengthThrowsAndNothingLeaks(int declared, int actual)
        {
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(actual, seed: 2);

            IOException error = await Assert.ThrowsAsync<IOException>(
                () => scope.Lz4.ReadContentAsync(new TestHttpContent(body, declared), CancellationToken.None));

            Assert.Contains("longer", error.Message, StringComparison.Ordinal);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.InRange(scope.BufferPool.RetainedBytes, BucketOf(declared), long.MaxValue);
        }

        [Theory]
        [InlineData(true, 0)]
        [InlineData(true, 50_000)]
        [InlineData(false, 200_000)]
        public async Task CancellationThrowsAndNothingLeaks(bool withContentLength, int stallAfter)
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(300 * KiB, seed: 5);
            var content = new TestHttpContent(body, withContentLength ? body.Length : null, stallAfter);
            using var cancellation = new CancellationTokenSource();

            Task<PooledBuffer> read = scope.Lz4.ReadContentAsync(content, cancellation.Token);
            await Task.Delay(50);
            Assert.False(read.IsCompleted, "the read must be waiting on the stalled body");
            cancellation.Cancel();

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => read);
            AssertNothingInUse(metrics, scope);
        }

        [Fact]
        public async Task AlreadyCancelledTokenThrowsAndNothingLeaks()
        {
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;

            await Assert.ThrowsAnyAsync<OperationCanceledException>(
                () => scope.Lz4.ReadContentAsync(new TestHttpContent(new byte[1000], 1000), new CancellationToken(canceled: true)));

            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public async Task ToStreamReadsTheValidBytesAndReturnsTheArrayWhenDisposed()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(120_000, seed: 6); // the 128 KiB bucket
            PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None);
            byte[] array = buffer.Segment.Array!;

            MemoryStream stream = buffer.ToStream();
            Assert.Equal(0, stream.Position);
            Assert.Equal(body.Length, stream.Length);
            Assert.False(stream.CanWrite);
            Assert.Equal(body, stream.ToArray());
            Assert.Equal(2 * Min, scope.BufferPool.InUseBytes);

            // Arrow (or anyone) reading the stream can never get hold of the pooled array, before or after disposal.
            Assert.Throws<UnauthorizedAccessException>(() => stream.GetBuffer());
            Assert.False(stream.TryGetBuffer(out _));

            stream.Dispose();
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(2 * Min, scope.BufferPool.RetainedBytes);
            Assert.Throws<UnauthorizedAccessException>(() => stream.GetBuffer());
            Assert.False(stream.TryGetBuffer(out _));
            Assert.Throws<ObjectDisposedException>(() => stream.ToArray()); // MemoryStream's would copy the pooled array
            Assert.Throws<ObjectDisposedException>(() => buffer.Segment);
            Assert.Throws<ObjectDisposedException>(() => buffer.Span.Length);

            // Disposing again (the stream, or the buffer itself) is harmless: the array is returned exactly once.
            stream.Dispose();
            buffer.Dispose();
            buffer.Dispose();
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(2 * Min, scope.BufferPool.RetainedBytes);
            Assert.Equal(2 * Min, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned));

            PooledArray next = scope.BufferPool.Rent(2 * Min);
            PooledArray another = scope.BufferPool.Rent(2 * Min);
            Assert.Same(array, next.Array);
            Assert.NotSame(array, another.Array);
        }

        [Fact]
        public async Task DisposingTheBufferReturnsTheArrayOnceAndForbidsFurtherReads()
        {
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(new byte[500]), CancellationToken.None);
            Assert.Equal(500, buffer.Segment.Count);

            buffer.Dispose();
            buffer.Dispose();

            Assert.Equal(500, buffer.Length);
            Assert.Throws<ObjectDisposedException>(() => buffer.Segment);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(Min, scope.BufferPool.RetainedBytes);
        }

        [Fact]
        public async Task ReadAfterReleaseWorksUnpooledAndKeepsNothing()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            byte[] body = Compressible(200 * KiB, seed: 4);
            owner.Dispose();

            using (PooledBuffer known = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None))
            using (PooledBuffer unknown = await scope.Lz4.ReadContentAsync(new TestHttpContent(body, null), CancellationToken.None))
            {
                Assert.True(known.Span.SequenceEqual(body));
                Assert.True(unknown.Span.SequenceEqual(body));
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.True(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Unpooled) >= 2L * body.Length);
        }

        [Fact]
        public async Task ReadBodyDecompressesThroughTheScope()
        {
            // The CloudFetch path end to end: download into a pooled array, decode as it is read.
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(MiB, WithoutContentSize);

            PooledBuffer download = await scope.Lz4.ReadContentAsync(new TestHttpContent(compressed, compressed.Length), CancellationToken.None);
            using (Stream stream = scope.Lz4.DecodeAsRead(download))
            {
                Assert.Equal(data, Lz4Decoding.ReadAll(stream, 81920));
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }
    }
}
