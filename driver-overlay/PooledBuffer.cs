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

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// A <see cref="PooledArray"/> rental with the length of valid data in it. Disposing gives the array back (once,
    /// whoever calls it); <see cref="ToStream"/> hands that duty to a read-only stream.
    /// </summary>
    internal sealed class PooledBuffer : IDisposable
    {
        private PooledArray? _rental;

        internal PooledBuffer(PooledArray rental, int length)
        {
            if ((uint)length > (uint)rental.Length)
            {
                throw new ArgumentOutOfRangeException(nameof(length), length, $"must be from 0 to the array's length {rental.Length}");
            }

            _rental = rental;
            Length = length;
        }

        public int Length { get; }

        /// <summary>The valid bytes. Throws once disposed, so no one reads an array another renter may own.</summary>
        public ArraySegment<byte> Segment => new ArraySegment<byte>(Rental.Array, 0, Length);

        public ReadOnlySpan<byte> Span => Segment.AsSpan();

        private PooledArray Rental => Volatile.Read(ref _rental) ?? throw new ObjectDisposedException(nameof(PooledBuffer));

        /// <summary>
        /// A read-only stream over the data that gives the array back when the stream is disposed. Its buffer is not
        /// publicly visible: <c>GetBuffer()</c> throws and <c>TryGetBuffer</c> fails, before and after disposal, so
        /// whoever reads the stream (Arrow) can never keep a pooled array that the pool will hand to someone else.
        /// </summary>
        public MemoryStream ToStream() => new ReturningStream(this);

        public void Dispose()
        {
            Interlocked.Exchange(ref _rental, null)?.Dispose();
        }

        /// <summary>
        /// The read-only stream <see cref="ToStream"/> returns. Every read and the disposal take one lock (uncontended,
        /// once per read call), as <see cref="Lz4DecodingStream"/> does: a dispose from another thread then waits for a
        /// read in progress instead of giving back an array that is still being copied from (the next renter's bytes
        /// could otherwise reach this reader), and every read after it throws <see cref="ObjectDisposedException"/>.
        /// </summary>
        private sealed class ReturningStream : MemoryStream
        {
            private readonly object _gate = new object();
            private readonly PooledBuffer _owner;
            private readonly byte[] _array;

            public ReturningStream(PooledBuffer owner)
                : this(owner, owner.Rental.Array)
            {
            }

            private ReturningStream(PooledBuffer owner, byte[] array)
                : base(array, 0, owner.Length, writable: false, publiclyVisible: false)
            {
                _owner = owner;
                _array = array;
            }

            public override int Read(byte[] buffer, int offset, int count)
            {
                lock (_gate)
                {
                    return base.Read(buffer, offset, count);
                }
            }

            public override int ReadByte()
            {
                lock (_gate)
                {
                    return base.ReadByte();
                }
            }

            public override void WriteTo(Stream stream)
            {
                lock (_gate)
                {
                    base.WriteTo(stream);
                }
            }

#if NETCOREAPP2_1_OR_GREATER
            /// <summary>
            /// Copies straight from the pooled array. MemoryStream takes its own copy-free path only when the stream is
            /// exactly a MemoryStream; for a subclass it falls back to Stream.Read(Span), which rents a temporary array
            /// the size of the read (an Arrow record batch body, megabytes) from ArrayPool&lt;byte&gt;.Shared for every
            /// read and copies twice. That pool keeps such arrays per thread for the life of the process, outside any
            /// scope: it was the whole of the heap a disposed database appeared to leave behind.
            /// </summary>
            public override int Read(Span<byte> buffer)
            {
                lock (_gate)
                {
                    int position = (int)Position; // throws once disposed
                    int count = Math.Min(buffer.Length, (int)Length - position);
                    if (count <= 0)
                    {
                        return 0;
                    }

                    _array.AsSpan(position, count).CopyTo(buffer);
                    Position = position + count;
                    return count;
                }
            }
#endif

            /// <summary>
            /// MemoryStream.ToArray works even on a closed stream; this one must not, because after disposal its array
            /// belongs to the pool (and maybe to the next renter).
            /// </summary>
            public override byte[] ToArray()
            {
                lock (_gate)
                {
                    if (!CanRead)
                    {
                        throw new ObjectDisposedException(nameof(PooledBuffer), "The stream is disposed; its pooled array may belong to another reader now.");
                    }

                    return base.ToArray();
                }
            }

            protected override void Dispose(bool disposing)
            {
                lock (_gate)
                {
                    base.Dispose(disposing);
                    if (disposing)
                    {
                        _owner.Dispose();
                    }
                }
            }
        }
    }
}
