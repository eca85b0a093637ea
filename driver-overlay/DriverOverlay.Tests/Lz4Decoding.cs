namespace DriverOverlay.Tests
{
    /// <summary>Runs the overlay's two LZ4 decoders the simplest way.</summary>
    internal static class Lz4Decoding
    {
        public static byte[] Decode(byte[] compressed) => Decode(compressed, out _);

        /// <summary>The whole-input decoder (inline batches), into a GC array sized exactly.</summary>
        public static byte[] Decode(byte[] compressed, out int frames)
        {
            // Sized exactly (every block measured), as DecompressToArray does; the scope paths are tested elsewhere.
            byte[] destination = new byte[Lz4FrameDecoder.Bounds(compressed, Lz4Measure.All).Upper];
            int length = Lz4FrameDecoder.Decode(compressed, destination, out frames);
            Assert.Equal(destination.Length, length);
            return destination;
        }

        /// <summary>
        /// The CloudFetch path: <paramref name="compressed"/> copied into a pooled buffer of the scope (as a download is),
        /// decoded by <see cref="ScopedLz4Decompressor.DecodeAsRead"/> in reads of <paramref name="readSize"/> bytes, every
        /// byte collected. The stream is disposed whatever happens; its errors reach the caller.
        /// </summary>
        public static byte[] DecodeAsRead(ScopedLz4Decompressor lz4, Lz4BufferPool pool, ReadOnlySpan<byte> compressed, int readSize = 81920, byte? fill = null, bool settle = false)
        {
            using Stream stream = lz4.DecodeAsRead(Download(pool, compressed));
            return ReadAll(stream, readSize, fill, settle);
        }

        /// <summary>A scope whose CloudFetch streams decode ahead as <paramref name="mode"/> says (with <see cref="ReadAll"/>'s settle for <see cref="DecodeAhead.Settled"/>).</summary>
        public static DatabricksMemoryLease CreateScope(DecodeAhead mode, params (string Key, string Value)[] properties) =>
            DbxmemScopeData.CreateScope(mode == DecodeAhead.Off ? [.. properties, (DatabricksMemoryOptions.DecodeAheadKey, "false")] : properties);

        /// <summary>The bytes as a download leaves them: in an array rented from <paramref name="pool"/>.</summary>
        public static PooledBuffer Download(Lz4BufferPool pool, ReadOnlySpan<byte> compressed)
        {
            PooledArray rental = pool.Rent(Math.Max(compressed.Length, 1));
            compressed.CopyTo(rental.Array);
            return new PooledBuffer(rental, compressed.Length);
        }

        /// <summary>
        /// Every byte of <paramref name="stream"/>, read <paramref name="readSize"/> bytes at a time into a buffer filled
        /// with <paramref name="fill"/> before each read, when given (what a reused destination held before).
        /// </summary>
        /// <param name="settle">After each read, wait for the block decoded ahead (<see cref="DbxmemScopeData.Settle"/>).</param>
        public static byte[] ReadAll(Stream stream, int readSize, byte? fill = null, bool settle = false)
        {
            using var output = new MemoryStream();
            byte[] buffer = new byte[readSize];
            while (true)
            {
                if (fill.HasValue)
                {
                    buffer.AsSpan().Fill(fill.Value);
                }

                int read = stream.Read(buffer, 0, buffer.Length);
                if (settle)
                {
                    Settle(stream);
                }

                if (read == 0)
                {
                    return output.ToArray();
                }

                output.Write(buffer, 0, read);
            }
        }
    }

    /// <summary>How a test runs the decode-ahead of a CloudFetch stream.</summary>
    public enum DecodeAhead
    {
        /// <summary>Turned off (<see cref="DatabricksMemoryOptions.DecodeAheadKey"/> false): every block decoded by the read that needs it, as series 1.5.0.</summary>
        Off,

        /// <summary>On, as the driver runs it: the worker races the reads, so which block goes which way varies from run to run.</summary>
        AsItComes,

        /// <summary>On, and the block ahead decoded before each next read (<see cref="DbxmemScopeData.Settle"/>): the worker's path every time.</summary>
        Settled,
    }
}
