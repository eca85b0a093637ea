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
using System.Threading;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// One rental from an <see cref="Lz4BufferPool"/>: the array is the renter's until <see cref="Dispose"/>, which
    /// gives it back exactly once.
    /// </summary>
    /// <remarks>
    /// Ownership belongs to the rental, not to the array: a handle can give its array back only once, however often
    /// and from however many threads it is disposed, so a late second return can never put an array that another
    /// renter now holds back into the pool. The pool keeps no reference to a rental; one that is never disposed is
    /// collected with its array, and a small finalizable watch (which does not hold the array, so the array is not
    /// kept for an extra collection) then takes its bytes off the pool's in-use count and counts them as collected.
    /// </remarks>
    internal sealed class PooledArray : IDisposable
    {
        private readonly Lz4BufferPool? _pool;
        private readonly CollectionWatch? _watch;
        private byte[]? _array;

        /// <param name="pool">The pool to give the array back to; null for an unpooled array, which is just dropped.</param>
        internal PooledArray(Lz4BufferPool? pool, byte[] array)
        {
            _pool = pool;
            _array = array;
            Length = array.Length;
            if (pool != null)
            {
                _watch = new CollectionWatch(pool, array.Length);
            }
        }

        /// <summary>The rented array. Throws once disposed, so no one writes to an array another renter may own.</summary>
        public byte[] Array => Volatile.Read(ref _array) ?? throw new ObjectDisposedException(nameof(PooledArray));

        /// <summary><see cref="Array"/>'s length (still readable after disposal).</summary>
        public int Length { get; }

        /// <summary>Gives the array back to the pool, or drops it if the pool is released or it was unpooled. Idempotent, thread-safe.</summary>
        public void Dispose()
        {
            byte[]? array = Interlocked.Exchange(ref _array, null);
            if (array != null && _pool != null)
            {
                GC.SuppressFinalize(_watch!);
                _pool.Return(array);
            }
        }

        /// <summary>Finalized only when its rental was collected undisposed: the rental's bytes are no longer in use.</summary>
        private sealed class CollectionWatch
        {
            private readonly Lz4BufferPool _pool;
            private readonly int _length;

            public CollectionWatch(Lz4BufferPool pool, int length)
            {
                _pool = pool;
                _length = length;
            }

            ~CollectionWatch() => _pool.Collected(_length);
        }
    }
}
