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
    // INTERIM (branch h-batch-alloc): the per-rental handle of the pool contract, over today's byte[] pool, until
    // the overlay's pool rewrite (branch h-overlay) lands with the real PooledArray and Rent returning it. Taking
    // theirs on merge replaces this file; ScopedArrowAllocator then calls Rent instead of RentArray.
    internal sealed class PooledArray : IDisposable
    {
        private readonly Lz4BufferPool _pool;
        private byte[]? _array;

        internal PooledArray(Lz4BufferPool pool, byte[] array)
        {
            _pool = pool;
            _array = array;
            Length = array.Length;
        }

        public byte[] Array => Volatile.Read(ref _array) ?? throw new ObjectDisposedException(nameof(PooledArray));

        public int Length { get; }

        public void Dispose()
        {
            byte[]? array = Interlocked.Exchange(ref _array, null);
            if (array != null && array.Length > 0)
            {
                _pool.Return(array);
            }
        }
    }

    internal static class PooledArrayRenting
    {
        public static PooledArray RentArray(this Lz4BufferPool pool, int minimumLength) => new PooledArray(pool, pool.Rent(minimumLength));
    }
}
