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
using System.Collections.Generic;
using System.Threading;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The bounded array pool of one <see cref="DatabricksMemoryScope"/>, for LZ4 work buffers (downloaded
    /// compressed files, decoded files). Unlike <c>ArrayPool.Create</c> it bounds the total bytes it keeps,
    /// accounts for every byte, can be trimmed and released, and survives disposal in any order.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Every rent is a <see cref="PooledArray"/> that owns its array until disposed, and gives it back exactly once:
    /// ownership is per rental, not per array, so no sequence of returns (a late second one included) can hand one
    /// array to two renters. The pool holds free arrays only; it keeps no reference to what it lent out, so a rental
    /// that is never disposed is collected with its array; its bytes then move from <see cref="InUseBytes"/> (the
    /// <c>in_use</c> gauge) to the <c>collected</c> counter, which makes a leak visible without the gauge drifting.
    /// </para>
    /// <para>
    /// Arrays come in the sizes of the pool's <see cref="PoolBuckets"/> (four per doubling) up to the configured maximum
    /// (rounded up to a power of two); larger requests are served unpooled, exactly sized. Returned
    /// arrays are kept while the pool's free bytes stay under the cap, and
    /// dropped to the GC otherwise. <see cref="Trim"/> drops every free array (rentals in use are untouched); after
    /// <see cref="Release"/> rents allocate unpooled arrays and returns are dropped: nothing throws because of
    /// disposal order. Arrays are not cleared on return (clearing 4 MB costs ~80 µs per file); the pool is never
    /// shared beyond one database, so stale bytes never cross a tenant boundary, and every consumer reads only what
    /// the decoder wrote.
    /// </para>
    /// </remarks>
    internal sealed class Lz4BufferPool
    {
        public const int MinimumArrayLength = PoolBuckets.MinimumArrayLength;

        /// <summary>The largest bucket: doubling 64 KiB once more would overflow an int.</summary>
        public const int MaximumArrayLength = 1 << 30;

        private readonly PoolBuckets _layout;
        private readonly Stack<byte[]>[] _buckets;
        private readonly long _maxRetainedBytes;
        private readonly PoolMeter _meter;
        private long _retainedBytes;
        private long _inUseBytes;
        private long _activity;
        private volatile bool _released;
        private Lz4BufferPoolTrimmer? _trimmer;

        /// <param name="maxArrayLength">The largest pooled array (rounded up to a power of two).</param>
        /// <param name="maxRetainedBytes">Free bytes the pool may keep, in total.</param>
        /// <param name="meter">Where the pool publishes its accounting.</param>
        /// <param name="idleTrimPeriod">
        /// After this long without a rent or return, free arrays go back to the GC; zero (the default) keeps them
        /// until release. Gen2 trimming (see <see cref="Lz4BufferPoolTrimmer"/>) runs whenever the pool keeps anything.
        /// </param>
        /// <param name="layout">The array sizes; <see cref="PoolBuckets.Lz4Buffers"/> when null.</param>
        public Lz4BufferPool(int maxArrayLength, long maxRetainedBytes, PoolMeter meter, TimeSpan idleTrimPeriod = default, PoolBuckets? layout = null)
        {
            if (maxArrayLength < MinimumArrayLength)
            {
                throw new ArgumentOutOfRangeException(nameof(maxArrayLength), maxArrayLength, $"must be at least {MinimumArrayLength}");
            }

            if (maxArrayLength > MaximumArrayLength)
            {
                throw new ArgumentOutOfRangeException(nameof(maxArrayLength), maxArrayLength, $"must be at most {MaximumArrayLength}");
            }

            if (maxRetainedBytes < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(maxRetainedBytes), maxRetainedBytes, "must not be negative");
            }

            _layout = layout ?? PoolBuckets.Lz4Buffers;
            _buckets = new Stack<byte[]>[_layout.IndexOf(RoundUpToPowerOfTwo(maxArrayLength)) + 1];
            for (int i = 0; i < _buckets.Length; i++)
            {
                _buckets[i] = new Stack<byte[]>();
            }

            if (idleTrimPeriod < TimeSpan.Zero)
            {
                throw new ArgumentOutOfRangeException(nameof(idleTrimPeriod), idleTrimPeriod, "must not be negative");
            }

            MaxArrayLength = _layout.SizeOf(_buckets.Length - 1);
            _maxRetainedBytes = maxRetainedBytes;
            _meter = meter;
            if (maxRetainedBytes > 0)
            {
                _trimmer = Lz4BufferPoolTrimmer.Start(this, idleTrimPeriod);
            }
        }

        /// <summary>The largest array length the pool keeps; larger rents are allocated and dropped.</summary>
        public int MaxArrayLength { get; }

        public long MaxRetainedBytes => _maxRetainedBytes;

        /// <summary>Free bytes currently kept for reuse.</summary>
        public long RetainedBytes => Interlocked.Read(ref _retainedBytes);

        /// <summary>Bytes of pooled arrays rented and not yet returned (a rental never disposed stays counted).</summary>
        public long InUseBytes => Interlocked.Read(ref _inUseBytes);

        public bool IsReleased => _released;

        /// <summary>The trimmer giving free arrays back while the pool lives; null when it keeps nothing or is released.</summary>
        internal Lz4BufferPoolTrimmer? Trimmer => Volatile.Read(ref _trimmer);

        /// <summary>Rents plus returns so far; the trimmer compares it between two looks to tell whether the pool was used.</summary>
        internal long Activity => Interlocked.Read(ref _activity);

        /// <summary>The array sizes of this pool.</summary>
        public PoolBuckets Layout => _layout;

        /// <summary>
        /// The length of the array <see cref="Rent"/> allocates for <paramref name="minimumLength"/> when it has to;
        /// a free array up to <see cref="PoolBuckets.LargerBucketsToTry"/> buckets larger may be handed out instead.
        /// </summary>
        public int ArrayLengthFor(int minimumLength) =>
            minimumLength <= 0 || IsUnpooled(minimumLength) ? Math.Max(minimumLength, 0) : _layout.SizeOf(_layout.IndexOf(minimumLength));

        /// <summary>
        /// Rents an array of at least <paramref name="minimumLength"/> bytes: a free one from its bucket or up to
        /// <see cref="PoolBuckets.LargerBucketsToTry"/> buckets larger, else a new one of its bucket's size (exactly
        /// that length when unpooled). The array is the caller's until it disposes the rental.
        /// </summary>
        public PooledArray Rent(int minimumLength)
        {
            if (minimumLength < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(minimumLength), minimumLength, "must not be negative");
            }

            Interlocked.Increment(ref _activity);
            if (minimumLength == 0)
            {
                return new PooledArray(null, System.Array.Empty<byte>());
            }

            if (IsUnpooled(minimumLength))
            {
                _meter.Unpooled(minimumLength);
                return new PooledArray(null, AllocateUninitialized(minimumLength));
            }

            int index = _layout.IndexOf(minimumLength);
            byte[]? array = TakeFreeFitting(index);
            if (array == null)
            {
                array = AllocateUninitialized(_layout.SizeOf(index));
                _meter.Allocated(array.Length);
            }

            return Lend(array);
        }

        /// <summary>
        /// Rents a free array of at least <paramref name="minimumLength"/> bytes if the pool has one, without ever
        /// allocating; null otherwise. Lets a caller take a generous size when it costs no new memory.
        /// </summary>
        public PooledArray? TryRentFree(int minimumLength)
        {
            if (minimumLength <= 0 || IsUnpooled(minimumLength))
            {
                return null;
            }

            byte[]? array = TakeFreeFitting(_layout.IndexOf(minimumLength));
            if (array == null)
            {
                return null;
            }

            Interlocked.Increment(ref _activity);
            return Lend(array);
        }

        /// <summary>
        /// Drops every free array so the GC can reclaim it; rentals in use are untouched and come back as usual (and
        /// are kept again). Returns the bytes dropped. Used when the database is idle or memory is short.
        /// </summary>
        public long Trim(Lz4TrimReason reason)
        {
            long trimmed = DropFreeArrays();
            if (trimmed > 0)
            {
                _meter.Trimmed(trimmed, reason);
            }

            return trimmed;
        }

        private long DropFreeArrays()
        {
            long total = 0;
            foreach (Stack<byte[]> bucket in _buckets)
            {
                long freed = 0;
                lock (bucket)
                {
                    while (bucket.Count > 0)
                    {
                        freed += bucket.Pop().Length;
                    }
                }

                if (freed > 0)
                {
                    Interlocked.Add(ref _retainedBytes, -freed);
                    _meter.Retained(-freed);
                    _meter.Dropped(freed);
                    total += freed;
                }
            }

            return total;
        }

        /// <summary>
        /// Drops every free array so the GC can reclaim it, and makes the pool unpooled from now on. Arrays still
        /// rented are dropped when they come back. Idempotent.
        /// </summary>
        public void Release()
        {
            _released = true;
            Interlocked.Exchange(ref _trimmer, null)?.Dispose();
            DropFreeArrays();
        }

        /// <summary>
        /// Called once per pooled rental that was never disposed, after the GC collected it (by its
        /// <see cref="PooledArray"/>'s finalizable watch, which does not hold the array): its bytes are no longer in use.
        /// </summary>
        internal void Collected(int length)
        {
            Interlocked.Add(ref _inUseBytes, -length);
            _meter.InUse(-length);
            _meter.Collected(length);
        }

        /// <summary>Called once per pooled rental, by <see cref="PooledArray.Dispose"/>.</summary>
        internal void Return(byte[] array)
        {
            Interlocked.Increment(ref _activity);
            Interlocked.Add(ref _inUseBytes, -array.Length);
            _meter.Returned(array.Length);
            _meter.InUse(-array.Length);

            if (!_released && TryReserve(array.Length))
            {
                Stack<byte[]> bucket = _buckets[_layout.IndexOf(array.Length)];
                lock (bucket)
                {
                    // Release may have run since the reservation; it only drains buckets, so re-check under the lock.
                    if (!_released)
                    {
                        bucket.Push(array);
                        _meter.Retained(array.Length);
                        return;
                    }
                }

                Interlocked.Add(ref _retainedBytes, -array.Length);
            }

            _meter.Dropped(array.Length);
        }

        /// <summary>A free array from the request's own bucket, else from one of the next <see cref="PoolBuckets.LargerBucketsToTry"/> buckets up.</summary>
        private byte[]? TakeFreeFitting(int index)
        {
            int last = Math.Min(index + _layout.LargerBucketsToTry, _buckets.Length - 1);
            for (int i = index; i <= last; i++)
            {
                byte[]? array = TakeFree(i);
                if (array != null)
                {
                    return array;
                }
            }

            return null;
        }

        private byte[]? TakeFree(int index)
        {
            byte[]? array = null;
            Stack<byte[]> bucket = _buckets[index];
            lock (bucket)
            {
                if (bucket.Count > 0)
                {
                    array = bucket.Pop();
                }
            }

            if (array != null)
            {
                _meter.Retained(-array.Length);
                Interlocked.Add(ref _retainedBytes, -array.Length);
            }

            return array;
        }

        private PooledArray Lend(byte[] array)
        {
            Interlocked.Add(ref _inUseBytes, array.Length);
            _meter.Rented(array.Length);
            _meter.InUse(array.Length);
            return new PooledArray(this, array);
        }

        private bool TryReserve(int length)
        {
            while (true)
            {
                long current = Interlocked.Read(ref _retainedBytes);
                if (current + length > _maxRetainedBytes)
                {
                    return false;
                }

                if (Interlocked.CompareExchange(ref _retainedBytes, current + length, current) == current)
                {
                    return true;
                }
            }
        }

        /// <summary>Requests served by a fresh exact array: the pool is released, the request is beyond its largest array, or below its smallest where the layout does not pool those.</summary>
        private bool IsUnpooled(int length) =>
            _released || length > MaxArrayLength || (length < MinimumArrayLength && !_layout.PoolsSmallRequests);

        private static int RoundUpToPowerOfTwo(int length)
        {
            int size = MinimumArrayLength;
            while (size < length)
            {
                size <<= 1;
            }

            return size;
        }

                private static byte[] AllocateUninitialized(int length)
        {
#if NET5_0_OR_GREATER
            return GC.AllocateUninitializedArray<byte>(length);
#else
            return new byte[length];
#endif
        }
    }
}
