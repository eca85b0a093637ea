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
    /// A CloudFetch file is decoded as it is read (<see cref="DecodeAsRead"/>): compressed file plus at most two blocks
    /// per reader (the one being read and, with decode-ahead, the next), never the decoded file. An inline batch is decoded whole into an exact-size array the batch keeps
    /// (Arrow's memory reader builds record batches over it without copying), sized before decoding from the frame
    /// headers, or from every block's sequence tokens when the headers do not make it exact.
    /// </para>
    /// <para>
    /// Memory never escapes to the application: a CloudFetch stream's arrays go back to the scope (Apache.Arrow's stream
    /// reader copies every record batch body out of the stream into buffers the batch owns), and an inline batch's array
    /// is the caller's.
    /// </para>
    /// </remarks>
    internal sealed class ScopedLz4Decompressor
    {
        private const int MinimumReadBuffer = 64 * 1024;

        private static readonly KeyValuePair<string, object?> s_error = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ReasonTag, DatabricksMemoryMetricNames.ErrorReason);

        private readonly DatabricksMemoryScope _scope;
        private readonly KeyValuePair<string, object?> _scopeTag;

        internal ScopedLz4Decompressor(DatabricksMemoryScope scope)
        {
            _scope = scope;
            _scopeTag = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, scope.IdTag);
        }

        /// <summary>
        /// Wraps a downloaded CloudFetch file in a stream that decodes it block by block as it is read
        /// (<see cref="Lz4DecodingStream"/>): files waiting in the prefetch queue stay compressed, and the file being read
        /// costs its compressed bytes plus at most two blocks (one being read, one decoded ahead on a thread-pool
        /// thread once the stream is read, unless <see cref="DatabricksMemoryOptions.DecodeAheadKey"/> is false), never
        /// its decoded size. The stream owns <paramref name="compressed"/> from now on and gives every array back to the
        /// scope (the compressed file as soon as its last block is decoded).
        /// </summary>
        /// <param name="compressed">The downloaded file.</param>
        /// <param name="inputName">Names the file in error messages ("chunk 3"); null: unnamed.</param>
        public Stream DecodeAsRead(PooledBuffer compressed, string? inputName = null) =>
            new Lz4DecodingStream(new Lz4StreamingDecoder(compressed, _scope.BufferPool, inputName, _scope.Budget), RecordDecode, _scope.Options.DecodeAhead);

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
                Record(length, frames);
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

        private void RecordDecode(Lz4StreamingDecoder decoder)
        {
            Record(decoder.DecodedBytes, decoder.Frames);
            DatabricksMemoryMetrics.Lz4DecodedInPlaceBytes.Add(decoder.DecodedInPlaceBytes, _scopeTag);
            if (decoder.Failed)
            {
                DatabricksMemoryMetrics.Lz4Fallbacks.Add(1, _scopeTag, s_error);
            }
        }

        private void Record(long length, int frames)
        {
            DatabricksMemoryMetrics.Lz4DecodedBytes.Add(length, _scopeTag);
            DatabricksMemoryMetrics.Lz4Frames.Add(frames, _scopeTag);
        }
    }
}
