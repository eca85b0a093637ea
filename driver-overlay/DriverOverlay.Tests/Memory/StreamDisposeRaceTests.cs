using Lz4Reference;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// A pooled data stream disposed on one thread while another reads it (an application that disposes a reader from
    /// another thread; the driver's own cancellation paths): the read finishes with the stream's own bytes or throws
    /// ObjectDisposedException before copying; it never copies bytes that the array's next renter wrote. Without a lock
    /// (the uncompressed CloudFetch stream had none, where the deferred LZ4 stream had one) a read under way kept
    /// copying from the array after it went back, then threw: the caller's buffer held the next renter's bytes.
    /// </summary>
    public class StreamDisposeRaceTests
    {
        private const int Length = 24 * MiB;
        private const byte Own = 0x11;
        private const byte NextRenters = 0x99;

        public static TheoryData<string> Streams() => new TheoryData<string> { "uncompressed", "lz4-decoded" };

        [SkippableTheory]
        [MemberData(nameof(Streams))]
        public void AReadRacingTheDisposeNeverSeesTheNextRentersBytes(string kind)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = new byte[Length];
            data.AsSpan().Fill(Own);
            byte[] compressed = NativeLz4.CompressFrame(data, FrameOptions.Databricks);
            int sawOthers = 0;
            for (int round = 0; round < 20; round++)
            {
                using Stream stream = kind == "uncompressed" ? Uncompressed(scope, data) : scope.Lz4.DecodeAsRead(Lz4Decoding.Download(scope.BufferPool, compressed));
                byte[] target = new byte[Length];
                using var start = new Barrier(2);
                Task<int> read = Task.Factory.StartNew(
                    () =>
                    {
                        start.SignalAndWait();
                        try
                        {
                            return stream.Read(target.AsSpan());
                        }
                        catch (ObjectDisposedException)
                        {
                            return -1;
                        }
                    },
                    TaskCreationOptions.LongRunning);

                start.SignalAndWait();
                // Dispose once the copy is under way (its first bytes have landed), at a different point each round.
                int landed = (round % 4) * (Length / 8);
                while (Volatile.Read(ref target[landed]) != Own && !read.IsCompleted)
                {
                    Thread.SpinWait(1);
                }

                stream.Dispose();
                // The next renter takes the array back at once and writes its own bytes into it, from the end backwards
                // (ahead of a copy that would still be running front to back).
                using (PooledArray next = scope.BufferPool.Rent(Length))
                {
                    for (int end = Length; end > 0; end -= 256 * 1024)
                    {
                        next.Array.AsSpan(Math.Max(0, end - (256 * 1024)), Math.Min(end, 256 * 1024)).Fill(NextRenters);
                    }

                    read.GetAwaiter().GetResult();
                    // Whether the read returned or threw, the caller's buffer must hold none of the next renter's bytes.
                    if (target.AsSpan().IndexOf(NextRenters) >= 0)
                    {
                        sawOthers++;
                    }
                }
            }

            Assert.Equal(0, sawOthers);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        private static MemoryStream Uncompressed(DatabricksMemoryScope scope, byte[] data)
        {
            PooledBuffer buffer = scope.Lz4.ReadContentAsync(new System.Net.Http.ByteArrayContent(data), CancellationToken.None).GetAwaiter().GetResult();
            return buffer.ToStream();
        }
    }
}
