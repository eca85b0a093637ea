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
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// A read-only, forward-only stream over a downloaded LZ4 file that decodes it as it is read
    /// (<see cref="Lz4StreamingDecoder"/>): Apache.Arrow's stream reader reads each record batch body straight out of
    /// it, and nothing holds the whole decoded file.
    /// </summary>
    /// <remarks>
    /// The stream owns the compressed file from construction: the file goes back to the scope when its last block is
    /// decoded, the scratch block when its last byte is read, and both when the stream is disposed, whichever comes
    /// first. Reads and disposal take one lock (uncontended, once per read call), so a dispose from another thread waits
    /// for a read in progress instead of returning an array that is still being decoded from or copied out of.
    /// </remarks>
    internal sealed class Lz4DecodingStream : Stream
    {
        private readonly object _gate = new object();
        private readonly Lz4StreamingDecoder _decoder;
        private readonly Action<Lz4StreamingDecoder>? _onDisposed;
        private bool _disposed;

        /// <param name="decoder">The file's decoder; the stream disposes it.</param>
        /// <param name="onDisposed">Called once, under the stream's lock, when the stream is disposed (the meter's account of the file).</param>
        internal Lz4DecodingStream(Lz4StreamingDecoder decoder, Action<Lz4StreamingDecoder>? onDisposed = null)
        {
            _decoder = decoder ?? throw new ArgumentNullException(nameof(decoder));
            _onDisposed = onDisposed;
        }

        /// <summary>For tests and diagnostics: the file's decoder (read it under no concurrent read).</summary>
        internal Lz4StreamingDecoder Decoder => _decoder;

        public override bool CanRead => !_disposed;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException("The stream decodes as it is read; its length is known only at its end.");

        public override long Position
        {
            get
            {
                lock (_gate)
                {
                    return _decoder.DecodedBytes;
                }
            }

            set => throw new NotSupportedException("The stream is forward-only.");
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            if (buffer == null)
            {
                throw new ArgumentNullException(nameof(buffer));
            }

            return ReadCore(buffer.AsSpan(offset, count));
        }

#if NETCOREAPP2_1_OR_GREATER
        public override int Read(Span<byte> buffer) => ReadCore(buffer);
#endif

        public override int ReadByte()
        {
            Span<byte> one = stackalloc byte[1];
            return ReadCore(one) == 1 ? one[0] : -1;
        }

#if NETCOREAPP2_1_OR_GREATER
        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            // Decoding is CPU work on bytes already in memory: nothing to await. Errors travel in the task, as from any
            // stream's ReadAsync.
            if (cancellationToken.IsCancellationRequested)
            {
                return new ValueTask<int>(Task.FromCanceled<int>(cancellationToken));
            }

            try
            {
                return new ValueTask<int>(ReadCore(buffer.Span));
            }
            catch (Exception ex)
            {
                return new ValueTask<int>(Task.FromException<int>(ex));
            }
        }
#endif

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                return Task.FromCanceled<int>(cancellationToken);
            }

            try
            {
                return Task.FromResult(Read(buffer, offset, count));
            }
            catch (Exception ex)
            {
                return Task.FromException<int>(ex);
            }
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException("The stream is forward-only.");

        public override void Flush()
        {
        }

        public override void SetLength(long value) => throw new NotSupportedException("The stream is read-only.");

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException("The stream is read-only.");

        private int ReadCore(Span<byte> buffer)
        {
            lock (_gate)
            {
                if (_disposed)
                {
                    throw new ObjectDisposedException(nameof(Lz4DecodingStream));
                }

                return _decoder.Read(buffer);
            }
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                lock (_gate)
                {
                    if (!_disposed)
                    {
                        _disposed = true;
                        _decoder.Dispose();
                        _onDisposed?.Invoke(_decoder);
                    }
                }
            }

            base.Dispose(disposing);
        }
    }
}
