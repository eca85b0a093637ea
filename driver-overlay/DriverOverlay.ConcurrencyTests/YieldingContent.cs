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

using System.IO;
using System.Net;
using System.Net.Http;
using AdbcDrivers.Databricks.Tests.Unit.Dbxmem;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// A response body (with its Content-Length) that yields to Coyote's scheduler before every read and delivers at most
    /// 8 KiB per read, so that other work interleaves with a download at every step, as network reads do. A cancelled
    /// read throws, as .NET's socket streams do.
    /// </summary>
    internal sealed class YieldingContent : HttpContent
    {
        private readonly byte[] _body;

        public YieldingContent(byte[] body)
        {
            _body = body;
            Headers.ContentLength = body.Length;
        }

        protected override Task<Stream> CreateContentReadStreamAsync() => Task.FromResult<Stream>(new YieldingStream(_body));

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => throw new NotSupportedException();

        protected override bool TryComputeLength(out long length)
        {
            length = 0;
            return false;
        }

        private sealed class YieldingStream : ResponseBodyStream
        {
            private readonly byte[] _body;
            private int _position;

            public YieldingStream(byte[] body)
            {
                _body = body;
            }

            public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
            {
                await Task.Yield();
                cancellationToken.ThrowIfCancellationRequested();
                int n = Math.Min(Math.Min(count, 8 * 1024), _body.Length - _position);
                Buffer.BlockCopy(_body, _position, buffer, offset, n);
                _position += n;
                return n;
            }

            public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("read asynchronously");
        }
    }
}
