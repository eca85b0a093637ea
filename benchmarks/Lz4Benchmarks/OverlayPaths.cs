using System;
using System.IO;
using Apache.Arrow.Adbc.Drivers.Databricks;

namespace Lz4Benchmarks
{
    /// <summary>
    /// The overlay's CloudFetch paths over a file that already sits in a pooled buffer, as a download leaves it
    /// (<see cref="ScopedLz4Decompressor.ReadContentAsync"/>): the copy into that buffer is the download's, not the
    /// decoder's, so the benchmark makes it before the timer starts (<see cref="Download"/>).
    /// </summary>
    internal static class OverlayPaths
    {
        /// <summary>What a finished download hands the decoder: the compressed bytes in an array rented from the scope.</summary>
        public static PooledBuffer Download(DatabricksMemoryScope scope, byte[] compressed)
        {
            PooledArray rental = scope.BufferPool.Rent(compressed.Length);
            compressed.CopyTo(rental.Array, 0);
            return new PooledBuffer(rental, compressed.Length);
        }

        /// <summary>
        /// (c) and (c-place): the overlay as shipped, <see cref="ScopedLz4Decompressor.DecodeAsRead"/>, read to the end
        /// through <paramref name="readBuffer"/> (each read asks for its whole length) and disposed. Returns the bytes read.
        /// </summary>
        public static long DecodeAsRead(DatabricksMemoryScope scope, PooledBuffer compressed, byte[] readBuffer)
        {
            using Stream stream = scope.Lz4.DecodeAsRead(compressed, "benchmark file");
            return ReadToEnd(stream, readBuffer);
        }

        /// <summary>
        /// (c-1.4): series 1.4's whole-file path, rebuilt from what the overlay still has: the whole file decoded by
        /// <see cref="Lz4FrameDecoder.Decode"/> into one pooled array of the headers' upper bound, the compressed
        /// buffer given back, then read out of a read-only MemoryStream over that array
        /// (<see cref="PooledBuffer.ToStream"/>, the stream 1.4 returned) and disposed. Returns the bytes read.
        /// </summary>
        public static long WholeFile(DatabricksMemoryScope scope, PooledBuffer compressed, byte[] readBuffer)
        {
            using MemoryStream stream = DecodeWholeFile(scope, compressed).ToStream();
            return ReadToEnd(stream, readBuffer);
        }

        /// <summary>
        /// The whole file decoded into one array rented from the scope's LZ4 pool at the frame headers' upper bound (no
        /// block measured). Series 1.4 also measured each frame's last block when that could pick a smaller array (a
        /// few percent of a decode); skipping it favours this path slightly. The compressed buffer goes back as soon as
        /// the decode is done; the caller owns the result.
        /// </summary>
        /// <param name="whileBothHeld">Called once decoded, before the compressed buffer goes back: the path's peak.</param>
        public static PooledBuffer DecodeWholeFile(DatabricksMemoryScope scope, PooledBuffer compressed, Action? whileBothHeld = null)
        {
            using (compressed)
            {
                long upper = Lz4FrameDecoder.Bounds(compressed.Span, Lz4Measure.None).Upper;
                PooledArray output = scope.BufferPool.Rent(checked((int)upper));
                try
                {
                    int length = Lz4FrameDecoder.Decode(compressed.Span, output.Array, out _);
                    whileBothHeld?.Invoke();
                    return new PooledBuffer(output, length);
                }
                catch
                {
                    output.Dispose();
                    throw;
                }
            }
        }

        /// <summary>Reads a stream to its end through a reused buffer with Read(Span), each read asking for the whole buffer.</summary>
        public static long ReadToEnd(Stream stream, byte[] readBuffer)
        {
            long total = 0;
            int read;
            while ((read = stream.Read(readBuffer.AsSpan())) > 0)
            {
                total += read;
            }

            return total;
        }
    }
}
