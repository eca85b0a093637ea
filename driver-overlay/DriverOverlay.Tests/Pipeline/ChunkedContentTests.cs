using System.Linq;
using System.Net.Http;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Pipeline
{
    /// <summary>
    /// A body read in chunks, each paid for before it is rented: joined into one buffer with the body's bytes, and, when the
    /// body is shorter or longer than its Content-Length, an IOException with every chunk given back to the pool.
    /// </summary>
    public class ChunkedContentTests
    {
        private const int Chunk = 64 * 1024;

        [Theory]
        [InlineData(1)]
        [InlineData(Chunk)]
        [InlineData((3 * Chunk) + 17)]
        public async Task TheBodyArrivesWhole_EachChunkPaidForBeforeItIsRented(int length)
        {
            using DatabricksMemoryLease lease = CreateScope();
            byte[] body = Compressible(length, seed: 11);
            var reserved = new List<int>();

            using PooledBuffer buffer = await ChunkedContent.ReadAsync(
                new ByteArrayContent(body), lease.Scope.BufferPool, Chunk, bytes => { reserved.Add(bytes); return Task.CompletedTask; }, CancellationToken.None);

            Assert.True(buffer.Span.SequenceEqual(body));
            Assert.Equal(length, reserved.Sum());
            Assert.All(reserved, bytes => Assert.InRange(bytes, 1, Chunk));
        }

        [Theory]
        [InlineData(1)]
        [InlineData(-1)]
        public async Task ABodyShorterOrLongerThanItsContentLength_IsAnIOException_AndGivesEveryChunkBack(int declaredMinusActual)
        {
            using DatabricksMemoryLease lease = CreateScope();
            byte[] body = Compressible((2 * Chunk) + 5, seed: 12);
            var content = new ByteArrayContent(body);
            content.Headers.ContentLength = body.Length + declaredMinusActual;

            await Assert.ThrowsAsync<IOException>(() => ChunkedContent.ReadAsync(
                content, lease.Scope.BufferPool, Chunk, _ => Task.CompletedTask, CancellationToken.None));
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }
    }
}
