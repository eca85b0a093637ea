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
    /// Every output is sized before decoding from a bound that is exact for frames as encoders write them
    /// (<see cref="Lz4FrameDecoder.DecodedLengthBound"/>: full blocks but the last), so nothing is regrown or
    /// copied. Memory never escapes to the application: a CloudFetch stream's array goes back to the scope when the
    /// Arrow stream reader disposes the stream (that reader copies every record batch body into buffers the batch
    /// owns), and an inline batch is an exact-size array the caller owns, because Arrow's memory reader builds
    /// record batches that point into the array without copying.
    /// </remarks>
    internal sealed class ScopedLz4Decompressor
    {
        // Only for input whose size cannot be measured (it is malformed, and decoding will say where): LZ4-compressed
        // Arrow typically expands 2-4x.
        private const int EstimatedExpansion = 4;
        private const int MinimumReadBuffer = 64 * 1024;

        private static readonly KeyValuePair<string, object?> s_regrow = new KeyValuePair<string, object?>(DatabricksMemoryMetrics.ReasonTagName, "regrow");
        private static readonly KeyValuePair<string, object?> s_unpooled = new KeyValuePair<string, object?>(DatabricksMemoryMetrics.ReasonTagName, "unpooled");
        private static readonly KeyValuePair<string, object?> s_error = new KeyValuePair<string, object?>(DatabricksMemoryMetrics.ReasonTagName, "error");

        private readonly DatabricksMemoryScope _scope;
        private readonly KeyValuePair<string, object?> _scopeTag;

        internal ScopedLz4Decompressor(DatabricksMemoryScope scope)
        {
            _scope = scope;
            _scopeTag = new KeyValuePair<string, object?>(DatabricksMemoryMetrics.ScopeTagName, scope.IdTag);
        }

        /// <summary>
        /// Decompresses a whole CloudFetch file (every LZ4 frame in it) into a read-only stream positioned at 0. The
        /// stream's array belongs to the scope's pool and goes back to it when the stream is disposed.
        /// </summary>
        /// <param name="compressed">The downloaded file.</param>
        /// <param name="expectedDecompressedSize">
        /// A size hint (0 if unknown), used only when the input's structure is unsound; the measured bound always wins.
        /// </param>
        /// <exception cref="Lz4FormatException">The file is not valid LZ4; nothing is returned and nothing leaks.</exception>
        public MemoryStream DecompressToStream(ReadOnlySpan<byte> compressed, long expectedDecompressedSize = 0)
        {
            Lz4BufferPool pool = _scope.BufferPool;
            var destination = new PooledArrayDestination(pool, PooledOutputCapacity(pool, compressed, expectedDecompressedSize));
            try
            {
                int length = Lz4FrameDecoder.Decode(compressed, destination, out int frames);
                Record(length, frames, destination.Regrowths, pooled: !pool.IsReleased && destination.Buffer.Length <= pool.MaxArrayLength);
                return new PooledBuffer(destination.Detach(), length).ToStream();
            }
            catch
            {
                DatabricksMemoryMetrics.Lz4Fallbacks.Add(1, _scopeTag, s_error);
                destination.Dispose();
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
        /// it: no scratch buffer, no copy.
        /// </summary>
        /// <exception cref="Lz4FormatException">The batch is not valid LZ4.</exception>
        public byte[] DecompressToArray(ReadOnlySpan<byte> compressed)
        {
            try
            {
                var exact = new ArrayDestination(OutputCapacity(compressed, 0));
                int length = Lz4FrameDecoder.Decode(compressed, exact, out int frames);
                Record(length, frames, exact.Regrowths, pooled: true);
                return length == exact.Buffer.Length ? exact.Buffer : exact.Buffer.AsSpan(0, length).ToArray();
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
            if (declared > Lz4Destination.MaxLength)
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

                            if (rental.Length >= Lz4Destination.MaxLength)
                            {
                                throw new IOException("The response body is larger than one buffer can hold.");
                            }

                            PooledArray larger = pool.Rent((int)Math.Min(2L * rental.Length, Lz4Destination.MaxLength));
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
        /// <see cref="OutputCapacity"/>, but without measuring the frames' last blocks when that cannot change the pool
        /// array the output gets: a 19 MB file of 4 MB blocks takes a 32 MB array whether its last block decodes to
        /// 1 byte or 4 MB, and measuring that block costs about a tenth of decoding the file.
        /// </summary>
        private static int PooledOutputCapacity(Lz4BufferPool pool, ReadOnlySpan<byte> compressed, long hint)
        {
            if (Lz4FrameDecoder.HeaderBounds(compressed, out long upper, out long lower)
                && upper <= pool.MaxArrayLength
                && pool.ArrayLengthFor((int)upper) == pool.ArrayLengthFor((int)Math.Max(lower, 1)))
            {
                return (int)upper;
            }

            return OutputCapacity(compressed, hint);
        }

        /// <summary>The decoded size bound when the input's structure is sound; otherwise a bounded guess.</summary>
        private static int OutputCapacity(ReadOnlySpan<byte> compressed, long hint)
        {
            long measured = Lz4FrameDecoder.DecodedLengthBound(compressed);
            if (measured >= 0)
            {
                return (int)measured;
            }

            // Malformed input: decoding will fail and say where. Never trust a hint beyond what the input could
            // possibly expand to.
            long guess = hint > 0 ? hint : (long)compressed.Length * EstimatedExpansion;
            long plausible = (long)compressed.Length * 255 + 64;
            return (int)Math.Max(1, Math.Min(Math.Min(guess, plausible), Lz4Destination.MaxLength));
        }

        private void Record(int length, int frames, int regrowths, bool pooled)
        {
            DatabricksMemoryMetrics.Lz4DecodedBytes.Add(length, _scopeTag);
            DatabricksMemoryMetrics.Lz4Frames.Add(frames, _scopeTag);
            if (regrowths > 0)
            {
                DatabricksMemoryMetrics.Lz4Fallbacks.Add(regrowths, _scopeTag, s_regrow);
            }

            if (!pooled)
            {
                DatabricksMemoryMetrics.Lz4Fallbacks.Add(1, _scopeTag, s_unpooled);
            }
        }
    }
}
