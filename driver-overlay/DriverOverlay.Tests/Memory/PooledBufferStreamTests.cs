using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>The stream over an uncompressed CloudFetch file (<see cref="PooledBuffer.ToStream"/>): span reads copy straight from the pooled array.</summary>
    public class PooledBufferStreamTests
    {
        [SkippableFact]
        public void SpanReadsCopyStraightFromThePooledArrayWithoutRentingFromTheSharedPool()
        {
            Skip.If(TargetRuntime.IsNetFramework, "Stream.Read(Span<byte>) is .NET Core's: the .NET Framework build has no span read to override (Apache.Arrow reads there through Read(byte[], int, int))");
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
                using Stream stream = Lz4Decoding.Download(scope.BufferPool, data).ToStream();
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
    }
}
