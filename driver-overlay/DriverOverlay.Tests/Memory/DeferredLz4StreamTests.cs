namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// CloudFetch files kept compressed until first read: nothing is decoded before, everything is verified before
    /// the first byte, errors stick, and every array goes back whatever the order of read and dispose.
    /// </summary>
    public class DeferredLz4StreamTests
    {
        [Fact]
        public void StaysCompressedUntilTheFirstReadThenReadsTheOriginalBytes()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            PooledBuffer download = Download(scope, compressed);
            long compressedBucket = scope.BufferPool.InUseBytes;

            using Stream stream = scope.Lz4.DecompressOnFirstRead(download);

            // Queued, the file costs only its compressed bytes.
            Assert.False(((DeferredLz4Stream)stream).IsDecoded);
            Assert.Equal(BucketOf(compressed.Length), compressedBucket);
            Assert.Equal(compressedBucket, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));

            byte[] read = new byte[data.Length + 1];
            Assert.Equal(data.Length, stream.ReadAtLeast(read, read.Length, throwOnEndOfStream: false));

            // Read, it costs only its decoded bytes: the compressed array went back on decoding.
            Assert.True(data.AsSpan().SequenceEqual(read.AsSpan(0, data.Length)), "decoded bytes differ from the original");
            Assert.True(((DeferredLz4Stream)stream).IsDecoded);
            Assert.Equal(BucketOf(data.Length), scope.BufferPool.InUseBytes);
            Assert.Equal(data.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(0, stream.Read(read, 0, read.Length));

            stream.Dispose();

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
        }

        [Fact]
        public void DisposingBeforeAnyReadGivesTheCompressedArrayBackWithoutDecoding()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (_, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            Stream stream = scope.Lz4.DecompressOnFirstRead(Download(scope, compressed));

            stream.Dispose();
            stream.Dispose();

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.False(stream.CanRead);
            Assert.Throws<ObjectDisposedException>(() => stream.ReadByte());
        }

        [Fact]
        public void ACorruptFileFailsOnTheFirstReadBeforeAnyByteAndEveryLaterReadFailsTheSameWay()
        {
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (_, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            byte[] corrupt = Truncated(compressed);
            using Stream stream = scope.Lz4.DecompressOnFirstRead(Download(scope, corrupt));
            byte[] buffer = new byte[4096];

            var first = Assert.Throws<Lz4FormatException>(() => stream.Read(buffer, 0, buffer.Length));
            var second = Assert.Throws<Lz4FormatException>(() => stream.Read(buffer, 0, buffer.Length));
            Task<int> asyncRead = stream.ReadAsync(buffer, 0, buffer.Length);

            Assert.Same(first, second);
            Assert.True(asyncRead.IsFaulted, "an async read of a corrupt file must fail in its task");
            Assert.Same(first, asyncRead.Exception!.InnerException);
            Assert.StartsWith("Invalid LZ4 data at byte ", first.Message);
            Assert.All(buffer, b => Assert.Equal(0, b));
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public async Task AsyncReadsSeekAndLengthDecodeOnDemand()
        {
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(100 * KiB, Linked64K);
            using Stream byLength = scope.Lz4.DecompressOnFirstRead(Download(scope, compressed));
            using Stream byAsyncRead = scope.Lz4.DecompressOnFirstRead(Download(scope, compressed));

            Assert.True(byLength.CanSeek);
            Assert.False(byLength.CanWrite);
            Assert.Equal(data.Length, byLength.Length);
            Assert.Equal(data.Length - 10, byLength.Seek(-10, SeekOrigin.End));
            Assert.Equal(data[data.Length - 10], byLength.ReadByte());

            byte[] read = new byte[data.Length];
            int total = 0;
            while (total < read.Length)
            {
                int n = await byAsyncRead.ReadAsync(read.AsMemory(total));
                Assert.True(n > 0, "the stream ended early");
                total += n;
            }

            Assert.Equal(data, read);
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => byAsyncRead.ReadAsync(read, 0, 1, new CancellationToken(canceled: true)));
            Assert.Throws<NotSupportedException>(() => byAsyncRead.Write(read, 0, 1));
        }

        [Fact]
        public void ReadingAfterTheScopeIsReleasedStillDecodesAndLeavesNothingBehind()
        {
            // A host may dispose the database while a reader still holds queued files: they must still read
            // correctly, and the arrays come back as plain garbage rather than into a released pool.
            DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            using Stream stream = scope.Lz4.DecompressOnFirstRead(Download(scope, compressed));

            lease.Dispose();
            byte[] read = new byte[data.Length];
            Assert.Equal(data.Length, stream.ReadAtLeast(read, read.Length));
            stream.Dispose();

            Assert.Equal(data, read);
            Assert.True(scope.BufferPool.IsReleased);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
        }

        [Fact]
        public async Task DisposeRacingWithReadsNeverCorruptsOrLeaks()
        {
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(100 * KiB, WithoutContentSize);

            for (int round = 0; round < 50; round++)
            {
                Stream stream = scope.Lz4.DecompressOnFirstRead(Download(scope, compressed));
                using var start = new Barrier(2);
                var reader = Task.Run(() =>
                {
                    start.SignalAndWait();
                    byte[] chunk = new byte[1000];
                    int offset = 0;
                    try
                    {
                        while (true)
                        {
                            int n = stream.Read(chunk, 0, chunk.Length);
                            if (n == 0)
                            {
                                return;
                            }

                            // Whatever was read before the dispose must be the original bytes.
                            Assert.True(data.AsSpan(offset, n).SequenceEqual(chunk.AsSpan(0, n)), $"round {round}: wrong bytes at {offset}");
                            offset += n;
                        }
                    }
                    catch (ObjectDisposedException)
                    {
                    }
                });

                start.SignalAndWait();
                stream.Dispose();
                await reader;
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public void SpanReadsCopyStraightFromThePooledArrayWithoutRentingFromTheSharedPool()
        {
            // Arrow's stream reader reads record batch bodies into native memory, through Read(Span). A MemoryStream
            // subclass that does not override it rents a temporary array of the read's size from
            // ArrayPool<byte>.Shared, which keeps it per thread for the life of the process. 65 MB reads would rent from
            // a 128 MB bucket nothing else in this process uses, so any such rent shows as a 128 MB allocation.
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(65 * MiB, seed: 9);
            byte[] destination = new byte[data.Length];
            long allocated = 0;
            int read = 0;

            var reader = new System.Threading.Thread(() =>
            {
                using Stream stream = Download(scope, data).ToStream();
                long before = GC.GetAllocatedBytesForCurrentThread();
                read = stream.Read(destination.AsSpan());
                read += stream.Read(destination.AsSpan(read));
                allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            });
            reader.Start();
            reader.Join();

            Assert.Equal(data.Length, read);
            Assert.True(data.AsSpan().SequenceEqual(destination), "the span read returned different bytes");
            Assert.InRange(allocated, 0, 64 * KiB);
        }

        [Fact]
        public void SpanReadsHonourPositionAndDisposal()
        {
            using DatabricksMemoryLease lease = CreateScope();
            byte[] data = Compressible(1000, seed: 3);
            PooledArray rental = lease.Scope.BufferPool.Rent(data.Length);
            data.CopyTo(rental.Array, 0);
            Stream stream = new PooledBuffer(rental, 600).ToStream();
            byte[] buffer = new byte[500];

            Assert.Equal(500, stream.Read(buffer.AsSpan()));
            Assert.Equal(100, stream.Read(buffer.AsSpan()));
            Assert.Equal(0, stream.Read(buffer.AsSpan()));
            Assert.True(data.AsSpan(500, 100).SequenceEqual(buffer.AsSpan(0, 100)), "the second read returned different bytes");
            stream.Dispose();
            Assert.Throws<ObjectDisposedException>(() => stream.Read(buffer.AsSpan()));
        }

        /// <summary>A downloaded body as ReadContentAsync leaves it: an array rented from the scope.</summary>
        private static PooledBuffer Download(DatabricksMemoryScope scope, byte[] body)
        {
            PooledArray array = scope.BufferPool.Rent(body.Length);
            body.CopyTo(array.Array, 0);
            return new PooledBuffer(array, body.Length);
        }
    }
}
