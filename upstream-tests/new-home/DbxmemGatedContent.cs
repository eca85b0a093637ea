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
    /// A response body (with its Content-Length) whose stream delivers bytes only up to a gate the test moves
    /// (<see cref="Open"/>), as a slow network would: a read at the gate waits until it moves or the read is cancelled.
    /// </summary>
    internal sealed class GatedContent : HttpContent
    {
        private readonly byte[] _body;
        private readonly object _lock = new object();
        private int _gate;
        private int _delivered;
        private TaskCompletionSource<bool> _moved = NewSignal();
        private TaskCompletionSource<bool> _atGate = NewSignal();

        public GatedContent(byte[] body, int openUpTo)
        {
            _body = body;
            _gate = openUpTo;
            Headers.ContentLength = body.Length;
        }

        /// <summary>Bytes the stream has delivered so far.</summary>
        public int Delivered
        {
            get
            {
                lock (_lock)
                {
                    return _delivered;
                }
            }
        }

        /// <summary>Completes when a read is waiting at the gate (everything up to it delivered).</summary>
        public Task AtGate
        {
            get
            {
                lock (_lock)
                {
                    return _atGate.Task;
                }
            }
        }

        /// <summary>Lets the stream deliver up to <paramref name="upTo"/> bytes (the whole body: <c>int.MaxValue</c>).</summary>
        public void Open(int upTo)
        {
            TaskCompletionSource<bool> moved;
            lock (_lock)
            {
                _gate = Math.Min(upTo, _body.Length);
                moved = _moved;
                _moved = NewSignal();
                _atGate = NewSignal();
            }

            moved.TrySetResult(true);
        }

        protected override Task<Stream> CreateContentReadStreamAsync() => Task.FromResult<Stream>(new GatedStream(this));

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => throw new NotSupportedException();

        protected override bool TryComputeLength(out long length)
        {
            length = 0;
            return false;
        }

        private static TaskCompletionSource<bool> NewSignal() => new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        private async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            while (true)
            {
                Task moved;
                lock (_lock)
                {
                    if (_delivered == _body.Length)
                    {
                        return 0;
                    }

                    if (_delivered < _gate)
                    {
                        int n = Math.Min(Math.Min(count, 65_536), _gate - _delivered);
                        Buffer.BlockCopy(_body, _delivered, buffer, offset, n);
                        _delivered += n;
                        return n;
                    }

                    moved = _moved.Task;
                    _atGate.TrySetResult(true);
                }

                // Task.WaitAsync(CancellationToken) is .NET 6 and later; upstream's test project also builds net472.
                await Task.WhenAny(moved, Task.Delay(Timeout.Infinite, cancellationToken)).ConfigureAwait(false);
                cancellationToken.ThrowIfCancellationRequested();
            }
        }

        private sealed class GatedStream : ResponseBodyStream
        {
            private readonly GatedContent _content;

            public GatedStream(GatedContent content)
            {
                _content = content;
            }

            public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
                _content.ReadAsync(buffer, offset, count, cancellationToken);

            public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("read asynchronously");
        }
    }
}
