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
    /// Reads an HTTP response body into pooled chunks taken one at a time as the bytes arrive, each paid for before it is
    /// rented (the caller's <c>reserve</c>: a reader's account of the database's budget), then hands the body on as one
    /// pooled buffer, which is what the LZ4 decoder reads.
    /// </summary>
    /// <remarks>
    /// Why chunks: a download in progress should hold what it has received, not its whole file, so that more downloads fit
    /// in a budget while they are in flight; renting the whole array up front would hold the memory whatever the budget
    /// says. The price is one copy of a body of more than one chunk when it completes (one download's body held twice for
    /// that moment), off the reader's thread. The same errors as <see cref="ScopedLz4Decompressor.ReadContentAsync"/>: a
    /// body shorter or longer than its Content-Length is an <see cref="IOException"/>, and a failed read gives every chunk
    /// back.
    /// </remarks>
    internal static class ChunkedContent
    {
        /// <summary>1 MiB: what a download in progress holds beyond what it has received, at most; 8-9 chunks per CloudFetch file.</summary>
        public const int ChunkLength = 1 << 20;

        /// <param name="content">The response body.</param>
        /// <param name="pool">The pool the chunks and the joined buffer are rented from.</param>
        /// <param name="chunkLength">The most bytes one chunk takes (<see cref="ChunkLength"/> in the driver).</param>
        /// <param name="reserve">Called with a chunk's length before the chunk is rented; its task completes when the bytes are paid for.</param>
        /// <param name="cancellationToken">Cancels the body reads.</param>
        public static async Task<PooledBuffer> ReadAsync(HttpContent content, Lz4BufferPool pool, int chunkLength, Func<int, Task> reserve, CancellationToken cancellationToken)
        {
            long? declared = content.Headers.ContentLength;
            if (declared > Lz4FrameDecoder.MaxOutputLength)
            {
                throw new IOException($"The response declares {declared} bytes, more than one buffer can hold.");
            }

            var chunks = new List<PooledArray>();
            var filled = new List<int>();
            int length = 0;
            try
            {
                using (Stream body = await content.ReadAsStreamAsync().ConfigureAwait(false))
                {
                    int capacity = 0; // of the last chunk: what was paid for
                    while (true)
                    {
                        if (chunks.Count == 0 || filled[chunks.Count - 1] == capacity)
                        {
                            if (declared.HasValue && length == declared.Value)
                            {
                                // Everything declared is here: any further byte makes the body too long.
                                if (await body.ReadAsync(new byte[1], 0, 1, cancellationToken).ConfigureAwait(false) != 0)
                                {
                                    throw new IOException($"The response body is longer than its Content-Length of {declared.Value} bytes.");
                                }

                                break;
                            }

                            if (length == Lz4FrameDecoder.MaxOutputLength)
                            {
                                throw new IOException("The response body is larger than one buffer can hold.");
                            }

                            long left = (declared ?? Lz4FrameDecoder.MaxOutputLength) - length;
                            capacity = (int)Math.Min(chunkLength, left);
                            await reserve(capacity).ConfigureAwait(false);
                            chunks.Add(pool.Rent(capacity));
                            filled.Add(0);
                        }

                        int last = chunks.Count - 1;
                        int read = await body.ReadAsync(chunks[last].Array, filled[last], capacity - filled[last], cancellationToken).ConfigureAwait(false);
                        if (read == 0)
                        {
                            break;
                        }

                        filled[last] += read;
                        length += read;
                    }
                }

                if (declared.HasValue && length != declared.Value)
                {
                    throw new IOException($"The response body ended after {length} of {declared.Value} bytes.");
                }

                return Join(chunks, filled, length, pool);
            }
            catch
            {
                foreach (PooledArray chunk in chunks)
                {
                    chunk.Dispose();
                }

                throw;
            }
        }

        /// <summary>One buffer for the decoder: the only chunk as it is, or every chunk copied into one array and given back.</summary>
        private static PooledBuffer Join(List<PooledArray> chunks, List<int> filled, int length, Lz4BufferPool pool)
        {
            if (chunks.Count == 1)
            {
                return new PooledBuffer(chunks[0], length);
            }

            PooledArray whole = pool.Rent(Math.Max(length, 1));
            int offset = 0;
            for (int i = 0; i < chunks.Count; i++)
            {
                Buffer.BlockCopy(chunks[i].Array, 0, whole.Array, offset, filled[i]);
                offset += filled[i];
                chunks[i].Dispose();
            }

            return new PooledBuffer(whole, length);
        }
    }
}
