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
    /// An array rented from a <see cref="Lz4BufferPool"/> with the length of valid data in it. Disposing gives the
    /// array back (once, whoever calls it); <see cref="ToStream"/> hands that duty to a read-only stream.
    /// </summary>
    internal sealed class PooledBuffer : IDisposable
    {
        private readonly Lz4BufferPool _pool;
        private byte[]? _array;

        internal PooledBuffer(Lz4BufferPool pool, byte[] array, int length)
        {
            _pool = pool;
            _array = array;
            Length = length;
        }

        public int Length { get; }

        /// <summary>The valid bytes. Throws once disposed, so no one reads an array another renter may own.</summary>
        public ArraySegment<byte> Segment => new ArraySegment<byte>(_array ?? throw new ObjectDisposedException(nameof(PooledBuffer)), 0, Length);

        public ReadOnlySpan<byte> Span => Segment.AsSpan();

        /// <summary>A read-only stream over the data that gives the array back when the stream is disposed.</summary>
        public MemoryStream ToStream() => new ReturningStream(this);

        public void Dispose()
        {
            byte[]? array = Interlocked.Exchange(ref _array, null);
            if (array != null)
            {
                _pool.Return(array);
            }
        }

        private sealed class ReturningStream : MemoryStream
        {
            private readonly PooledBuffer _owner;

            public ReturningStream(PooledBuffer owner)
                : base(owner.Segment.Array!, 0, owner.Length, writable: false, publiclyVisible: true)
            {
                _owner = owner;
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
                int position = (int)Position; // throws once disposed
                int count = Math.Min(buffer.Length, (int)Length - position);
                if (count <= 0)
                {
                    return 0;
                }

                TryGetBuffer(out ArraySegment<byte> data);
                data.AsSpan(position, count).CopyTo(buffer);
                Position = position + count;
                return count;
            }
#endif

            protected override void Dispose(bool disposing)
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
