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
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// A read-only stream over a downloaded LZ4 file that stays compressed until something first reads it.
    /// </summary>
    /// <remarks>
    /// The CloudFetch downloader runs ahead of the reader and queues finished files. Decoded, each queued file costs
    /// its full Arrow size; kept compressed it costs a third to a quarter of that, and only the file being read is
    /// decoded. The first access decodes the whole file (every frame, every checksum) before returning a byte, so a
    /// corrupt file fails before any of its rows reach the reader, exactly as decoding at download time would.
    /// A decode error is rethrown by every later read. Disposing, before or after decoding, gives every array back to
    /// the scope. Reads and disposal take one lock (uncontended, once per read call), so a dispose from another thread
    /// waits for a read in progress instead of returning an array that is still being copied from.
    /// </remarks>
    internal sealed class DeferredLz4Stream : Stream
    {
        private readonly ScopedLz4Decompressor _decompressor;
        private readonly object _gate = new object();
        private PooledBuffer? _compressed;
        private MemoryStream? _decoded;
        private ExceptionDispatchInfo? _failure;
        private bool _disposed;

        internal DeferredLz4Stream(ScopedLz4Decompressor decompressor, PooledBuffer compressed)
        {
            _decompressor = decompressor;
            _compressed = compressed;
        }

        /// <summary>Whether the file has been decoded (for tests and diagnostics).</summary>
        public bool IsDecoded
        {
            get
            {
                lock (_gate)
                {
                    return _decoded != null;
                }
            }
        }

        public override bool CanRead => !_disposed;

        public override bool CanSeek => !_disposed;

        public override bool CanWrite => false;

        /// <summary>The decoded length; asking decodes the file.</summary>
        public override long Length => Locked(decoded => decoded.Length);

        public override long Position
        {
            get => Locked(decoded => decoded.Position);
            set => Locked(decoded => decoded.Position = value);
        }

        public override int Read(byte[] buffer, int offset, int count)
        {
            lock (_gate)
            {
                return Decoded().Read(buffer, offset, count);
            }
        }

#if NETCOREAPP2_1_OR_GREATER
        public override int Read(Span<byte> buffer)
        {
            lock (_gate)
            {
                return Decoded().Read(buffer);
            }
        }

        public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            // Decoding and copying are CPU work on bytes already in memory: nothing to await. Errors travel in the
            // task, as from any stream's ReadAsync.
            if (cancellationToken.IsCancellationRequested)
            {
                return new ValueTask<int>(Task.FromCanceled<int>(cancellationToken));
            }

            try
            {
                return new ValueTask<int>(Read(buffer.Span));
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

        public override int ReadByte() => Locked(decoded => decoded.ReadByte());

        public override long Seek(long offset, SeekOrigin origin) => Locked(decoded => decoded.Seek(offset, origin));

        public override void Flush()
        {
        }

        public override void SetLength(long value) => throw new NotSupportedException("The stream is read-only.");

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException("The stream is read-only.");

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                lock (_gate)
                {
                    _disposed = true;
                    _compressed?.Dispose();
                    _compressed = null;
                    _decoded?.Dispose();
                    _decoded = null;
                }
            }

            base.Dispose(disposing);
        }

        private T Locked<T>(Func<MemoryStream, T> action)
        {
            lock (_gate)
            {
                return action(Decoded());
            }
        }

        /// <summary>The decoded file, decoding it first if needed. Callers hold <see cref="_gate"/>.</summary>
        private MemoryStream Decoded()
        {
            if (_disposed)
            {
                throw new ObjectDisposedException(nameof(DeferredLz4Stream));
            }

            if (_decoded != null)
            {
                return _decoded;
            }

            _failure?.Throw();
            PooledBuffer compressed = _compressed!;
            try
            {
                _decoded = _decompressor.DecompressToStream(compressed.Span);
                return _decoded;
            }
            catch (Exception ex)
            {
                _failure = ExceptionDispatchInfo.Capture(ex);
                throw;
            }
            finally
            {
                // Decoded or not, the compressed bytes are never needed again.
                compressed.Dispose();
                _compressed = null;
            }
        }
    }
}
