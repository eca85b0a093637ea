using System;
using System.Buffers;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using K4os.Compression.LZ4.Encoders;
using K4os.Compression.LZ4.Streams;
using K4os.Compression.LZ4.Streams.Frames;
using Microsoft.IO;

namespace Lz4Benchmarks
{
    /// <summary>
    /// The CloudFetch decompression of apache/arrow-adbc tag apache-arrow-adbc-22, rebuilt on the real K4os 1.3.8 and
    /// Microsoft.IO.RecyclableMemoryStream 3.0.1 packages. It makes the calls upstream makes, with its options:
    /// <list type="bullet">
    /// <item>DatabricksDatabase.cs: one <see cref="RecyclableMemoryStreamManager"/> with default options and one
    /// <c>ArrayPool&lt;byte&gt;.Create(maxArrayLength: 4 MiB, maxArraysPerBucket: 10)</c> per database;</item>
    /// <item>Lz4Utilities.cs (DecompressLz4Async): GetStream() from that manager, a decoder stream over a
    /// MemoryStream of the downloaded bytes whose K4os frame reader rents its block buffer from the pool,
    /// CopyToAsync with an 80 KB buffer, Position = 0, the RMS stream handed to the Arrow reader, which disposes it;</item>
    /// <item>CustomLZ4FrameReader.cs: a StreamLZ4FrameReader whose AllocBuffer rents from the pool and whose
    /// ReleaseBuffer returns with clearArray: true, decoders from <c>descriptor.CreateDecoder()</c>;</item>
    /// <item>CustomLZ4DecoderStream.cs: a read-only Stream over that reader, ReadManyBytes(Async) with interactive: false.</item>
    /// </list>
    /// </summary>
    internal sealed class Tag22Path
    {
        private const int CopyBufferSize = 81920; // upstream's DefaultBufferSize

        private readonly RecyclableMemoryStreamManager _streamManager = new RecyclableMemoryStreamManager();
        private readonly ArrayPool<byte> _bufferPool = ArrayPool<byte>.Create(maxArrayLength: 4 * 1024 * 1024, maxArraysPerBucket: 10);

        public async Task<RecyclableMemoryStream> DecompressAsync(byte[] compressed, CancellationToken cancellationToken = default)
        {
            RecyclableMemoryStream output = _streamManager.GetStream();
            try
            {
                using (var input = new MemoryStream(compressed))
                using (var decoder = new PooledDecoderStream(new PooledFrameReader(input, descriptor => descriptor.CreateDecoder(), _bufferPool)))
                {
                    await decoder.CopyToAsync(output, CopyBufferSize, cancellationToken).ConfigureAwait(false);
                }

                output.Position = 0;
                return output;
            }
            catch
            {
                output.Dispose();
                throw;
            }
        }

        /// <summary>K4os' stream frame reader with its compressed-block buffer rented from the database's pool.</summary>
        private sealed class PooledFrameReader : StreamLZ4FrameReader
        {
            private readonly ArrayPool<byte> _pool;

            public PooledFrameReader(Stream input, Func<ILZ4Descriptor, ILZ4Decoder> decoderFactory, ArrayPool<byte> pool)
                : base(input, true, decoderFactory)
            {
                _pool = pool;
            }

            protected override byte[] AllocBuffer(int size) => _pool.Rent(size);

            protected override void ReleaseBuffer(byte[] buffer) => _pool.Return(buffer, clearArray: true);
        }

        /// <summary>The read side of upstream's decoder stream: reads go to the frame reader, non-interactively.</summary>
        private sealed class PooledDecoderStream : Stream
        {
            private readonly PooledFrameReader _reader;

            public PooledDecoderStream(PooledFrameReader reader) => _reader = reader;

            public override bool CanRead => true;

            public override bool CanSeek => false;

            public override bool CanWrite => false;

            public override long Length => throw new NotSupportedException();

            public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

            public override int Read(byte[] buffer, int offset, int count) => _reader.ReadManyBytes(buffer.AsSpan(offset, count), false);

            public override int Read(Span<byte> buffer) => _reader.ReadManyBytes(buffer, false);

            public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
                _reader.ReadManyBytesAsync(cancellationToken, buffer.AsMemory(offset, count), false);

            public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
                new ValueTask<int>(_reader.ReadManyBytesAsync(cancellationToken, buffer, false));

            protected override void Dispose(bool disposing)
            {
                if (disposing)
                {
                    _reader.Dispose();
                }

                base.Dispose(disposing);
            }

            public override void Flush()
            {
            }

            public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

            public override void SetLength(long value) => throw new NotSupportedException();

            public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        }
    }
}
