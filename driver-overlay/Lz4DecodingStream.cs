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
    /// it, and nothing holds the whole decoded file. With decode-ahead on, the block after the one being read is decoded
    /// on a thread-pool thread while the reader works on what it has, so a host's per-value work and the decode overlap.
    /// </summary>
    /// <remarks>
    /// <para>
    /// The stream owns the compressed file from construction: the file goes back to the scope when its last block is
    /// decoded, the block buffers when the last byte is read, and all of it when the stream is disposed, whichever comes
    /// first. Reads and disposal take one lock (uncontended, once per read call), so a dispose from another thread waits
    /// for a read in progress instead of returning an array that is still being decoded from or copied out of.
    /// </para>
    /// <para>
    /// Decode-ahead, bounded: at most one block is decoded ahead of what the reader has asked for, and only once the
    /// stream has been read (a file waiting in the prefetch queue stays compressed). After each read that leaves blocks
    /// to decode and none decoded ahead, the next block is queued for a worker task. The worker decodes it outside the
    /// lock; meanwhile a read may take what is already decoded (<see cref="Lz4StreamingDecoder.ReadDecoded"/>) and waits
    /// for the worker only when it needs the block being decoded. A read that finds the block queued but not yet
    /// started (a busy thread pool) takes it back and decodes it itself, so a read never waits for a thread. Dispose
    /// cancels a queued block and waits for one being decoded (one block at most) before any array goes back, so nothing
    /// is written into an array after it went back.
    /// </para>
    /// </remarks>
    internal sealed class Lz4DecodingStream : Stream
    {
        private readonly object _gate = new object();
        private readonly Lz4StreamingDecoder _decoder;
        private readonly Action<Lz4StreamingDecoder>? _onDisposed;
        private readonly bool _decodeAhead;
        private bool _disposed;

        // Under _gate. Queued: a worker should decode the next block. Running: a worker is decoding it, outside the lock.
        // WorkerScheduled: a worker task exists that has not yet seen the queue empty (it serves every block queued).
        private bool _aheadQueued;
        private bool _aheadRunning;
        private bool _workerScheduled;
        private Task _worker = Task.CompletedTask;

        /// <param name="decoder">The file's decoder; the stream disposes it.</param>
        /// <param name="onDisposed">Called once, under the stream's lock, when the stream is disposed (the meter's account of the file).</param>
        /// <param name="decodeAhead">Decode the next block on a worker while the reader works (<see cref="DatabricksMemoryOptions.DecodeAheadKey"/>).</param>
        internal Lz4DecodingStream(Lz4StreamingDecoder decoder, Action<Lz4StreamingDecoder>? onDisposed = null, bool decodeAhead = false)
        {
            _decoder = decoder ?? throw new ArgumentNullException(nameof(decoder));
            _onDisposed = onDisposed;
            _decodeAhead = decodeAhead;
        }

        /// <summary>For tests and diagnostics: the file's decoder (read it under no concurrent read).</summary>
        internal Lz4StreamingDecoder Decoder => _decoder;

        /// <summary>
        /// For tests: the latest worker task (a completed task when none was started). After the stream is disposed, or
        /// read to its end, no other starts, and once it has completed nothing of the stream runs any more.
        /// </summary>
        internal Task AheadWorker
        {
            get
            {
                lock (_gate)
                {
                    return _worker;
                }
            }
        }

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
                    return _decoder.DeliveredBytes;
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
            int read;
            bool startWorker = false;
            lock (_gate)
            {
                ThrowIfDisposed();
                if (_aheadRunning)
                {
                    // The worker owns the decoder's state but the block being delivered: take what is decoded already.
                    read = _decoder.ReadDecoded(buffer);
                    if (read == buffer.Length)
                    {
                        return read;
                    }

                    while (_aheadRunning)
                    {
                        Monitor.Wait(_gate);
                    }

                    ThrowIfDisposed();
                }
                else
                {
                    read = 0;
                }

                // A block queued and not started is decoded by this read, if it gets that far (and queued again after).
                _aheadQueued = false;
                read += _decoder.Read(buffer.Slice(read));
                if (_decodeAhead && _decoder.CanDecodeAhead)
                {
                    _aheadQueued = true;
                    if (!_workerScheduled)
                    {
                        _workerScheduled = true;
                        startWorker = true;
                    }
                }
            }

            if (startWorker)
            {
                // Outside the lock; a dispose in between finds the block queued and cancels it, and the worker ends.
                Task worker = Task.Run(DecodeAheadWhileQueued);
                lock (_gate)
                {
                    _worker = worker;
                }
            }

            return read;
        }

        /// <summary>The worker: decodes every block queued for it, one at a time, until none is queued.</summary>
        private void DecodeAheadWhileQueued()
        {
            while (true)
            {
                lock (_gate)
                {
                    if (!_aheadQueued || _disposed)
                    {
                        _workerScheduled = false;
                        return;
                    }

                    _aheadQueued = false;
                    _aheadRunning = true;
                }

                try
                {
                    _decoder.DecodeAhead();
                }
                finally
                {
                    lock (_gate)
                    {
                        _aheadRunning = false;
                        Monitor.PulseAll(_gate);
                    }
                }
            }
        }

        private void ThrowIfDisposed()
        {
            if (_disposed)
            {
                throw new ObjectDisposedException(nameof(Lz4DecodingStream));
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
                        _aheadQueued = false;
                        while (_aheadRunning)
                        {
                            // One block at most: the worker stops after it, and never writes into an array after this.
                            Monitor.Wait(_gate);
                        }

                        _decoder.Dispose();
                        _onDisposed?.Invoke(_decoder);
                    }
                }
            }

            base.Dispose(disposing);
        }
    }
}
