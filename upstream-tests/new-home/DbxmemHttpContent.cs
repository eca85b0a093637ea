/*
* Copyright (c) 2025 ADBC Drivers Contributors
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/


using System;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// A response body as HttpClient delivers it: in chunks of varying size, with or without a Content-Length, and
    /// optionally stalling (until cancelled) after some bytes, like a download that hangs. For the tests of the scope's
    /// download into pooled arrays (<see cref="ScopedLz4Decompressor.ReadContentAsync"/>), which need no HTTP client.
    /// </summary>
    internal sealed class ChunkedHttpContent : HttpContent
    {
        private readonly byte[] _body;
        private readonly int _stallAfter;

        /// <param name="body">The bytes the body stream delivers.</param>
        /// <param name="declaredLength">The Content-Length header, or null for a chunked body of unknown length.</param>
        /// <param name="stallAfter">After this many bytes, reads wait for cancellation (-1: never stall).</param>
        public ChunkedHttpContent(byte[] body, long? declaredLength, int stallAfter = -1)
        {
            _body = body;
            _stallAfter = stallAfter;
            if (declaredLength.HasValue)
            {
                Headers.ContentLength = declaredLength.Value;
            }
        }

        protected override Task<Stream> CreateContentReadStreamAsync() => Task.FromResult<Stream>(new ChunkedStream(_body, _stallAfter));

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
            new ChunkedStream(_body, _stallAfter).CopyToAsync(stream);

        protected override bool TryComputeLength(out long length)
        {
            length = 0;
            return false; // chunked transfer: the length is known only from the header, if at all
        }

        private sealed class ChunkedStream : ResponseBodyStream
        {
            // Chunk sizes cycle through small and odd values, as network reads do.
            private static readonly int[] s_chunkSizes = { 1, 1000, 4096, 16_384, 7, 65_536, 333 };

            private readonly byte[] _body;
            private readonly int _stallAfter;
            private int _position;
            private int _chunk;

            public ChunkedStream(byte[] body, int stallAfter)
            {
                _body = body;
                _stallAfter = stallAfter;
            }

            public override int Read(byte[] buffer, int offset, int count) => ReadAsync(buffer, offset, count).GetAwaiter().GetResult();

            public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (_stallAfter >= 0 && _position >= _stallAfter)
                {
                    await Task.Delay(Timeout.Infinite, cancellationToken).ConfigureAwait(false);
                }

                int limit = s_chunkSizes[_chunk++ % s_chunkSizes.Length];
                if (_stallAfter >= 0)
                {
                    limit = Math.Min(limit, Math.Max(1, _stallAfter - _position));
                }

                int n = Math.Min(Math.Min(count, limit), _body.Length - _position);
                Buffer.BlockCopy(_body, _position, buffer, offset, n);
                _position += n;
                return n;
            }
        }
    }
}
