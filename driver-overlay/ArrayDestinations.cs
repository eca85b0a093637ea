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

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>Plain GC arrays: used for exact-size inline batches and after the scope is released.</summary>
    internal sealed class ArrayDestination : Lz4Destination
    {
        private byte[] _buffer;

        public ArrayDestination(int capacity)
        {
            _buffer = capacity == 0 ? System.Array.Empty<byte>() : new byte[capacity];
        }

        public override byte[] Buffer => _buffer;

        protected override void Grow(int capacity, int preserved)
        {
            byte[] larger = new byte[capacity];
            System.Buffer.BlockCopy(_buffer, 0, larger, 0, preserved);
            _buffer = larger;
        }
    }

    /// <summary>Arrays rented from the scope's <see cref="Lz4BufferPool"/>: scratch space that goes back when disposed.</summary>
    internal sealed class PooledArrayDestination : Lz4Destination, IDisposable
    {
        private readonly Lz4BufferPool _pool;
        private PooledArray? _rental;

        public PooledArrayDestination(Lz4BufferPool pool, int capacity)
        {
            _pool = pool;
            _rental = pool.Rent(Math.Max(capacity, 1));
        }

        public override byte[] Buffer => (_rental ?? throw new ObjectDisposedException(nameof(PooledArrayDestination))).Array;

        /// <summary>Hands the current rental to the caller, who must dispose it; disposing this destination then does nothing.</summary>
        public PooledArray Detach()
        {
            PooledArray rental = _rental ?? throw new ObjectDisposedException(nameof(PooledArrayDestination));
            _rental = null;
            return rental;
        }

        public void Dispose()
        {
            _rental?.Dispose();
            _rental = null;
        }

        protected override void Grow(int capacity, int preserved)
        {
            PooledArray larger = _pool.Rent(capacity);
            System.Buffer.BlockCopy(Buffer, 0, larger.Array, 0, preserved);
            _rental?.Dispose();
            _rental = larger;
        }
    }
}
