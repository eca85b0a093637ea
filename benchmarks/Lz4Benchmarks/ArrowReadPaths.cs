using System;
using System.Buffers.Binary;
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Adbc.Drivers.Databricks;
using Apache.Arrow.Ipc;

namespace Lz4Benchmarks
{
    /// <summary>
    /// Issue 25 item 4: the same CloudFetch file (an Arrow IPC stream) read into record batches two ways, every batch
    /// read and disposed before the next, as an application that consumes a result batch by batch does.
    /// </summary>
    /// <remarks>
    /// <c>observe</c> (null when timed) is called with each batch while it lives, and, on the zero-copy path, with
    /// null once the whole file is decoded (before the compressed buffer goes back): the moments a reader holds the
    /// most, where <see cref="HeldBytesProbe"/> samples the scope's pools.
    /// </remarks>
    internal static class ArrowReadPaths
    {
        /// <summary>
        /// (f) streaming, what the patched driver does: Apache.Arrow's stream reader over
        /// <see cref="ScopedLz4Decompressor.DecodeAsRead"/>, each body allocated by the scope's
        /// <see cref="DatabricksMemoryScope.BatchAllocator"/> and decoded into (in place where a whole block fits the
        /// body's read, else through the scratch block). Holds the compressed file, one scratch block and one batch body.
        /// Returns the rows read.
        /// </summary>
        public static long Streaming(DatabricksMemoryScope scope, PooledBuffer compressed, Action<RecordBatch?>? observe = null) =>
            Streaming(scope, scope.Lz4.DecodeAsRead(compressed, "benchmark file"), observe);

        /// <summary>(f) over a decoding stream the caller made (to look at its decoder afterwards); the reader disposes it.</summary>
        public static long Streaming(DatabricksMemoryScope scope, Stream decoding, Action<RecordBatch?>? observe = null)
        {
            using var reader = new ArrowStreamReader(decoding, scope.BatchAllocator);
            return ReadAll(reader, observe);
        }

        /// <summary>
        /// (g) zero-copy: the whole file decoded into one pooled array (<see cref="OverlayPaths.DecodeWholeFile"/>, the
        /// compressed buffer given back once decoded), and Apache.Arrow's memory reader (<see cref="ArrowStreamReader"/>
        /// over <see cref="ReadOnlyMemory{T}"/>), whose batches point into that array without a copy; the array goes
        /// back after the last batch is disposed (safe only because this loop disposes every batch itself: the memory
        /// reader's batches own nothing, so they cannot tell anyone when they are gone). Holds the compressed and the
        /// decoded file while decoding, the decoded file while any batch lives. Returns the rows read.
        /// </summary>
        public static long ZeroCopy(DatabricksMemoryScope scope, PooledBuffer compressed, Action<RecordBatch?>? observe = null)
        {
            using PooledBuffer decoded = OverlayPaths.DecodeWholeFile(scope, compressed, observe == null ? null : () => observe(null));
            using var reader = new ArrowStreamReader(WithoutEndOfStreamMarker(decoded.Segment.AsMemory()));
            return ReadAll(reader, observe);
        }

        /// <summary>
        /// The stream without its closing end-of-stream marker (continuation token, then length 0). Apache.Arrow
        /// 22.1.0's memory reader refuses a buffer that ends with it ("Corrupted IPC message. Received a continuation
        /// token at the end of the message": it wants more than the 4 bytes left after the token), fixed upstream later
        /// by apache/arrow-dotnet#340; without the marker it stops at the end of the buffer, as it should.
        /// </summary>
        internal static ReadOnlyMemory<byte> WithoutEndOfStreamMarker(ReadOnlyMemory<byte> ipc)
        {
            ReadOnlySpan<byte> span = ipc.Span;
            return span.Length >= 8 && BinaryPrimitives.ReadUInt32LittleEndian(span.Slice(span.Length - 8)) == uint.MaxValue
                && BinaryPrimitives.ReadUInt32LittleEndian(span.Slice(span.Length - 4)) == 0
                ? ipc.Slice(0, ipc.Length - 8)
                : ipc;
        }

        private static long ReadAll(ArrowStreamReader reader, Action<RecordBatch?>? observe)
        {
            long rows = 0;
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                using (batch)
                {
                    observe?.Invoke(batch);
                    rows += batch.Length;
                }
            }

            return rows;
        }
    }
}
