/*
* Licensed to the Apache Software Foundation (ASF) under one or more
* contributor license agreements.  See the NOTICE file distributed with
* this work for additional information regarding copyright ownership.
* The ASF licenses this file to You under the Apache License, Version 2.0
* (the "License"); you may not use this file except in compliance with
* the License.  You may obtain a copy of the License at
*
*    http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.Collections.Generic;
using System.IO;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The LZ4 entry points the patched driver calls, bound to one <see cref="DatabricksMemoryScope"/>.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Every output is sized before decoding (<see cref="Lz4FrameDecoder.Bounds"/>), so nothing is regrown or copied,
    /// and whatever the headers claim, a decode allocates at most twice what it decodes plus one block maximum
    /// (or fails with <see cref="Lz4FormatException"/> first). The headers' upper bound counts every compressed block
    /// at the frame's block maximum: exact for frames as encoders write them (full blocks but the last; Databricks'
    /// 4 MB frames), far too large for small blocks under a large declared maximum or a false content size. So that
    /// bound is used only when it costs no new memory (a free pooled array) or is affordable against a certified
    /// lower bound (half of every compressed block's bytes); otherwise every block is measured from its sequence
    /// tokens and the output sized exactly.
    /// </para>
    /// <para>
    /// Memory never escapes to the application: a CloudFetch stream's array goes back to the scope when the Arrow
    /// stream reader disposes the stream (that reader copies every record batch body into buffers the batch owns),
    /// and an inline batch is an exact-size array the caller owns, because Arrow's memory reader builds record
    /// batches that point into the array without copying.
    /// </para>
    /// </remarks>
    internal sealed class ScopedLz4Decompressor
    {
        private const int MinimumReadBuffer = 64 * 1024;

        private static readonly KeyValuePair<string, object?> s_unpooled = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ReasonTag, DatabricksMemoryMetricNames.UnpooledReason);
        private static readonly KeyValuePair<string, object?> s_error = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ReasonTag, DatabricksMemoryMetricNames.ErrorReason);

        private readonly DatabricksMemoryScope _scope;
        private readonly KeyValuePair<string, object?> _scopeTag;

        internal ScopedLz4Decompressor(DatabricksMemoryScope scope)
        {
            _scope = scope;
            _scopeTag = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, scope.IdTag);
        }

        /// <summary>
        /// Decompresses a whole CloudFetch file (every LZ4 frame in it) into a read-only stream positioned at 0. The
        /// stream's array belongs to the scope's pool and goes back to it when the stream is disposed.
        /// </summary>
        /// <param name="compressed">The downloaded file.</param>
        /// <param name="expectedDecompressedSize">Ignored (the frame headers bound the size); kept for source compatibility.</param>
        /// <exception cref="Lz4FormatException">The file is not valid LZ4; nothing is returned and nothing leaks.</exception>
        public MemoryStream DecompressToStream(ReadOnlySpan<byte> compressed, long expectedDecompressedSize = 0)
        {
            PooledArray? output = null;
            try
            {
                output = RentOutput(_scope.BufferPool, compressed);
                int length = Lz4FrameDecoder.Decode(compressed, output.Array, out int frames);
                Record(length, frames, pooled: output.IsPooled);
                return new PooledBuffer(output, length).ToStream();
            }
            catch
            {
                DatabricksMemoryMetrics.Lz4Fallbacks.Add(1, _scopeTag, s_error);
                output?.Dispose();
                throw;
            }
        }

        /// <summary>
        /// Wraps a downloaded CloudFetch file in a stream that decodes it on first read (see
        /// <see cref="DeferredLz4Stream"/>), so files waiting in the prefetch queue stay compressed. The stream owns
        /// <paramref name="compressed"/> from now on and gives every array back to the scope when disposed.
        /// </summary>
        public Stream DecompressOnFirstRead(PooledBuffer compressed) => new DeferredLz4Stream(this, compressed);

        /// <summary>
        /// Decompresses one inline Arrow batch into an exact-size array that the caller owns, decoding straight into
        /// it: no scratch buffer, no copy. The size is measured from the blocks' sequence tokens unless the headers
        /// already make it exact.
        /// </summary>
        /// <exception cref="Lz4FormatException">The batch is not valid LZ4.</exception>
        public byte[] DecompressToArray(ReadOnlySpan<byte> compressed)
        {
            try
            {
                Lz4SizeBounds bounds = Lz4FrameDecoder.Bounds(compressed, Lz4Measure.None);
                if (!bounds.IsExact)
                {
                    bounds = Lz4FrameDecoder.Bounds(compressed, Lz4Measure.All);
                }

                byte[] exact = bounds.Upper == 0 ? System.Array.Empty<byte>() : new byte[bounds.Upper];
                int length = Lz4FrameDecoder.Decode(compressed, exact, out int frames);
                Record(length, frames, pooled: true);
                return length == exact.Length ? exact : exact.AsSpan(0, length).ToArray();
            }
            catch
            {
                DatabricksMemoryMetrics.Lz4Fallbacks.Add(1, _scopeTag, s_error);
                throw;
            }
        }

        /// <summary>
        /// Reads an HTTP response body into an array rented from the scope's buffer pool, instead of a fresh array per
        /// download. The caller disposes the result (or the stream made from it) to give the array back.
        /// </summary>
        /// <exception cref="IOException">The body is shorter or longer than its Content-Length.</exception>
        public async Task<PooledBuffer> ReadContentAsync(HttpContent content, CancellationToken cancellationToken)
        {
            long? declared = content.Headers.ContentLength;
            if (declared > Lz4FrameDecoder.MaxOutputLength)
            {
                throw new IOException($"The response declares {declared} bytes, more than one buffer can hold.");
            }

            Lz4BufferPool pool = _scope.BufferPool;
            PooledArray rental = pool.Rent(declared.HasValue ? Math.Max((int)declared.Value, 1) : MinimumReadBuffer);
            int length = 0;
            try
            {
                using (Stream body = await content.ReadAsStreamAsync().ConfigureAwait(false))
                {
                    while (true)
                    {
                        if (length == rental.Length)
                        {
                            if (declared.HasValue && length == declared.Value)
                            {
                                // The declared body fills the array exactly (always so above the pool's largest size,
                                // where arrays are exact): probe for one more byte rather than growing into an array
                                // twice the size and copying, only to find the end of the body.
                                byte[] probe = new byte[1];
                                if (await body.ReadAsync(probe, 0, 1, cancellationToken).ConfigureAwait(false) != 0)
                                {
                                    throw new IOException($"The response body is longer than its Content-Length of {declared.Value} bytes.");
                                }

                                break;
                            }

                            if (rental.Length >= Lz4FrameDecoder.MaxOutputLength)
                            {
                                throw new IOException("The response body is larger than one buffer can hold.");
                            }

                            PooledArray larger = pool.Rent((int)Math.Min(2L * rental.Length, Lz4FrameDecoder.MaxOutputLength));
                            Buffer.BlockCopy(rental.Array, 0, larger.Array, 0, length);
                            rental.Dispose();
                            rental = larger;
                        }

                        byte[] buffer = rental.Array;
                        int read = await body.ReadAsync(buffer, length, buffer.Length - length, cancellationToken).ConfigureAwait(false);
                        if (read == 0)
                        {
                            break;
                        }

                        length += read;
                        if (declared.HasValue && length > declared.Value)
                        {
                            throw new IOException($"The response body is longer than its Content-Length of {declared.Value} bytes.");
                        }
                    }
                }

                if (declared.HasValue && length != declared.Value)
                {
                    throw new IOException($"The response body ended after {length} of {declared.Value} bytes.");
                }

                return new PooledBuffer(rental, length);
            }
            catch
            {
                rental.Dispose();
                throw;
            }
        }

        /// <summary>
        /// The output array for <paramref name="compressed"/>, sized before decoding so that it never grows. The headers'
        /// upper bound is taken when a free pooled array of that size exists (it costs no new memory) or when
        /// allocating it stays within twice the certified lower bound plus one block maximum; otherwise the blocks are
        /// measured and the size is exact.
        /// </summary>
        private PooledArray RentOutput(Lz4BufferPool pool, ReadOnlySpan<byte> compressed)
        {
            Lz4SizeBounds bounds = Lz4FrameDecoder.Bounds(compressed, Lz4Measure.None);
            if (pool.ArrayLengthFor(ToLength(bounds.Upper)) != pool.ArrayLengthFor(ToLength(bounds.Upper - bounds.LastBlockSlack)))
            {
                // Frames' last blocks are usually short: measuring them (a few percent of decoding) can pick a smaller
                // array; when it cannot change the array, skip it.
                bounds = Lz4FrameDecoder.Bounds(compressed, Lz4Measure.LastBlocks);
            }

            int length = ToLength(bounds.Upper);
            PooledArray? free = pool.TryRentFree(length);
            if (free != null)
            {
                return free;
            }

            if (!bounds.IsExact && pool.ArrayLengthFor(length) > 2 * bounds.Lower + bounds.LargestBlockMax)
            {
                bounds = Lz4FrameDecoder.Bounds(compressed, Lz4Measure.All);
                length = ToLength(bounds.Upper);
                DatabricksMemoryMetrics.Lz4Measured.Add(1, _scopeTag);
            }

            return pool.Rent(length);
        }

        private static int ToLength(long bound) => (int)Math.Max(Math.Min(bound, Lz4FrameDecoder.MaxOutputLength), 1);

        private void Record(int length, int frames, bool pooled)
        {
            DatabricksMemoryMetrics.Lz4DecodedBytes.Add(length, _scopeTag);
            DatabricksMemoryMetrics.Lz4Frames.Add(frames, _scopeTag);

            if (!pooled)
            {
                DatabricksMemoryMetrics.Lz4Fallbacks.Add(1, _scopeTag, s_unpooled);
            }
        }
    }
}
