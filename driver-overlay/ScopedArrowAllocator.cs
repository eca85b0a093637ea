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
using System.Buffers;
using System.Runtime.InteropServices;
using Apache.Arrow.Memory;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The Arrow <see cref="MemoryAllocator"/> of one <see cref="DatabricksMemoryScope"/>: the body of every record
    /// batch an <c>ArrowStreamReader</c> reads is a managed array rented from the scope's batch pool, and goes back
    /// when the application disposes the batch (and nothing pins it any more).
    /// </summary>
    /// <remarks>
    /// <para>
    /// Why: without an allocator the reader uses Apache.Arrow's <c>NativeMemoryAllocator</c>, which calls
    /// <c>GC.AddMemoryPressure</c> for every batch body. Once the driver stopped triggering collections by
    /// allocation, that pressure alone started a blocking full (Gen2, <c>induced_not_forced</c>) collection every
    /// ~50 MB read: 21 of the patched driver's 23 Gen2s on a 1 GB result. Managed pooled arrays add no pressure.
    /// </para>
    /// <para>
    /// A batch's lifetime rules are Apache.Arrow's own: the body is handed out as a <see cref="MemoryManager{T}"/>
    /// (<see cref="BatchMemory"/>), never as the array, so once the batch is disposed any buffer, column or slice of it
    /// throws <see cref="ObjectDisposedException"/> instead of showing the bytes of the batch that reuses the array. A pin
    /// (<c>Memory.Pin()</c>, taken by the C Data Interface exporter for each exported buffer) keeps the array out of the
    /// pool until its release (the C consumer's release callback), so an exported batch disposed by a <c>using</c> stays
    /// valid for its consumer. A batch disposed twice, or on another thread, gives its array back once; one that outlives
    /// its database stays valid (the released pool drops returns). A batch never disposed is collected with its array
    /// (counted as collected): no finalizer recycles it, as something that can still read it may outlive the batch. In
    /// poison mode (<see cref="DatabricksMemoryOptions.PoisonReturnedArraysKey"/>) a returned array is overwritten with
    /// <see cref="PoisonByte"/>, so a reader that could still see it would show the pattern.
    /// </para>
    /// <para>
    /// Every allocation is zeroed, as Apache.Arrow's own allocator does: the stream reader overwrites the whole body,
    /// but other users of an allocator (array concatenation, dictionary deltas) may rely on zeroed memory.
    /// </para>
    /// </remarks>
    internal sealed class ScopedArrowAllocator : MemoryAllocator
    {
        /// <summary>What poison mode writes over a returned array: a value no test data set produces in a run of bytes.</summary>
        public const byte PoisonByte = 0xDB;

        private readonly bool _poisonReturnedArrays;

        public ScopedArrowAllocator(Lz4BufferPool pool, bool poisonReturnedArrays)
        {
            Pool = pool ?? throw new ArgumentNullException(nameof(pool));
            _poisonReturnedArrays = poisonReturnedArrays;
        }

        public Lz4BufferPool Pool { get; }

        /// <summary>The pooled array behind <paramref name="memory"/> if it is a live batch body of this allocator's kind (for tests and diagnostics).</summary>
        internal static bool TryGetBodyArray(ReadOnlyMemory<byte> memory, out byte[]? array)
        {
            array = MemoryMarshal.TryGetMemoryManager(memory, out BatchMemory? body) ? body!.ArrayOrNull : null;
            return array != null;
        }

        protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
        {
            PooledArray rental = Pool.Rent(length);
            // The bytes this batch holds on to: the whole array, not only the body it asked for.
            bytesAllocated = rental.Length;
            System.Array.Clear(rental.Array, 0, length);
            return new BatchMemory(rental, length, _poisonReturnedArrays);
        }

        /// <summary>One record batch body (see the remarks above): its rental goes back once, when disposed and unpinned.</summary>
        internal sealed class BatchMemory : MemoryManager<byte>
        {
            private readonly object _gate = new object();
            private readonly int _length;
            private readonly bool _poison;
            private byte[]? _array;
            private PooledArray? _rental;
            private int _pins;

            public BatchMemory(PooledArray rental, int length, bool poison)
            {
                _rental = rental;
                _array = rental.Array;
                _length = length;
                _poison = poison;
            }

            /// <summary>The array while the batch is not disposed; null after.</summary>
            internal byte[]? ArrayOrNull => System.Threading.Volatile.Read(ref _array);

            public override Span<byte> GetSpan() => new Span<byte>(ArrayOrNull ?? throw Disposed(), 0, _length);

#if !NETCOREAPP
            /// <summary>
            /// Off .NET Core only, the body's array while the batch is not disposed. Apache.Arrow's netstandard2.0 and .NET
            /// Framework builds read a body without an array through a temporary <c>ArrayPool&lt;byte&gt;.Shared</c> array of
            /// its size, which that pool does not keep above 1 MiB: a fresh large object per body (Mono 6.8, 11.5 M rows over
            /// http: 49 full collections and 123 s, against 3 and 7 s with the array: docs/decisions.md). Apache.Arrow asks
            /// only within a stream read or write; any other caller must not use the array after the batch is disposed.
            /// .NET Core's Apache.Arrow reads through <c>Stream.Read(Span)</c> and never asks.
            /// </summary>
            protected override bool TryGetArray(out ArraySegment<byte> segment)
            {
                byte[]? array = ArrayOrNull;
                segment = array == null ? default : new ArraySegment<byte>(array, 0, _length);
                return array != null;
            }
#endif

            public override unsafe MemoryHandle Pin(int elementIndex = 0)
            {
                if ((uint)elementIndex > (uint)_length)
                {
                    throw new ArgumentOutOfRangeException(nameof(elementIndex), elementIndex, $"must be from 0 to the body's length {_length}");
                }

                lock (_gate)
                {
                    byte[] array = _array ?? throw Disposed();
                    GCHandle handle = GCHandle.Alloc(array, GCHandleType.Pinned);
                    _pins++;
                    return new MemoryHandle((byte*)handle.AddrOfPinnedObject() + elementIndex, handle, this);
                }
            }

            /// <summary>Called once per <see cref="Pin"/>, by the <see cref="MemoryHandle"/>'s Dispose (which frees the GC handle first).</summary>
            public override void Unpin()
            {
                PooledArray? giveBack = null;
                lock (_gate)
                {
                    if (_pins == 0)
                    {
                        return; // not ours to count: every Pin is matched by one Unpin
                    }

                    _pins--;
                    giveBack = TakeRentalOnceFree();
                }

                GiveBack(giveBack);
            }

            protected override void Dispose(bool disposing)
            {
                PooledArray? giveBack = null;
                lock (_gate)
                {
                    if (_array == null)
                    {
                        return;
                    }

                    _array = null;
                    giveBack = TakeRentalOnceFree();
                }

                GiveBack(giveBack);
            }

            /// <summary>Under <see cref="_gate"/>: the rental to give back once the batch is disposed and unpinned, once.</summary>
            private PooledArray? TakeRentalOnceFree()
            {
                PooledArray? rental = _pins == 0 && _array == null ? _rental : null;
                _rental = rental == null ? _rental : null;
                return rental;
            }

            private void GiveBack(PooledArray? rental)
            {
                if (rental == null)
                {
                    return;
                }

                if (_poison)
                {
                    rental.Array.AsSpan().Fill(PoisonByte);
                }

                rental.Dispose();
            }

            private static ObjectDisposedException Disposed() =>
                new ObjectDisposedException(nameof(ScopedArrowAllocator) + " batch memory", "The record batch was disposed; its memory may belong to another batch now.");
        }
    }
}
