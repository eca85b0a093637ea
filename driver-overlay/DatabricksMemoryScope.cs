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
using Apache.Arrow.Memory;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The pooled memory of one <c>DatabricksDatabase</c>: a bounded <see cref="Lz4BufferPool"/> for every LZ4
    /// buffer (downloaded files, decode scratch), the <see cref="Lz4"/> entry points that use it, the pool of record batch
    /// bodies, and the <see cref="Budget"/> that bounds what the database's readers hold in use.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Reference counted through <see cref="DatabricksMemoryLease"/>s (the database's from <see cref="Create"/>, each
    /// connection's from <see cref="AcquireLease"/>): disposing the last releases the scope, and the pool drops every free
    /// array even while the application still holds the disposed database object (hosts do). Disposal in any order is
    /// safe: after release a rent is unpooled, a return dropped and a new lease detached, so nothing throws mid-read.
    /// </para>
    /// <para>
    /// Scopes are never process-wide: pooled arrays are not cleared, so a pool must not outlive or cross the
    /// database (tenant) that filled it.
    /// </para>
    /// </remarks>
    internal sealed class DatabricksMemoryScope
    {
        private static int s_lastId;

        private int _references;

        private DatabricksMemoryScope(DatabricksMemoryOptions options, bool live = true)
        {
            Id = Interlocked.Increment(ref s_lastId);
            IdTag = Id;
            Options = options;
            BufferPool = new Lz4BufferPool(
                options.BufferPoolMaxArrayLength,
                options.PoolingEnabled ? options.BufferPoolMaxRetainedBytes : 0,
                new PoolMeter(IdTag, DatabricksMemoryMetricNames.Lz4BuffersPool),
                options.BufferPoolIdleTrimPeriod);
            Budget = new MemoryBudget(options.BudgetBytes, live ? IdTag : null);
            Lz4 = new ScopedLz4Decompressor(this);
            ArrowBatchPool = new Lz4BufferPool(
                options.BufferPoolMaxArrayLength,
                options.PoolingEnabled && options.ArrowBatchesPooled ? options.ArrowBatchPoolMaxRetainedBytes : 0,
                new PoolMeter(IdTag, DatabricksMemoryMetricNames.ArrowBatchesPool),
                options.BufferPoolIdleTrimPeriod, // an idle database gives its free batch arrays back too
                PoolBuckets.RecordBatches); // batches the application keeps hold at most 1.25x their bytes
            BatchAllocator = options.ArrowBatchesPooled
                ? new ScopedArrowAllocator(ArrowBatchPool, options.PoisonReturnedArrays)
                : MemoryAllocator.Default.Value;
            _references = live ? 1 : 0;
            if (live)
            {
                DatabricksMemoryMetrics.LiveScopes.Add(1, new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, IdTag));
            }
            else
            {
                BufferPool.Release();
                ArrowBatchPool.Release();
            }
        }

        /// <summary>
        /// For a component built without a connection's scope (upstream's tests build them so): released from the start,
        /// so every buffer is an ordinary GC allocation, and never published (a scope created and then released read, on
        /// the meter, as a second live scope and budget beside the database's).
        /// </summary>
        public static DatabricksMemoryScope Unpooled { get; } = CreateUnpooled();

        /// <summary>A new scope like <see cref="Unpooled"/>; the driver uses that one.</summary>
        internal static DatabricksMemoryScope CreateUnpooled() => new DatabricksMemoryScope(DatabricksMemoryOptions.FromProperties(null), live: false);

        /// <summary>Process-unique id, published as the <c>scope</c> tag of every measurement.</summary>
        public int Id { get; }

        public DatabricksMemoryOptions Options { get; }

        public Lz4BufferPool BufferPool { get; }

        public MemoryBudget Budget { get; }

        public ScopedLz4Decompressor Lz4 { get; }

        /// <summary>
        /// The pool of record batch bodies: a second pool, not <see cref="BufferPool"/>, because batches live as long
        /// as the application keeps them (LZ4 buffers only while the driver reads one file), so they must neither eat
        /// into nor be capped by the LZ4 pool's budget, and their bytes show apart on the meter (pool=arrow_batches).
        /// </summary>
        public Lz4BufferPool ArrowBatchPool { get; }

        /// <summary>
        /// The allocator for the record batches the driver's stream readers hand to the application: the scope's
        /// <see cref="ScopedArrowAllocator"/>, or Apache.Arrow's default when arrow_batches_pooled is false.
        /// </summary>
        public MemoryAllocator BatchAllocator { get; }

        /// <summary>True once the last lease is gone and the pool has dropped its memory.</summary>
        public bool IsReleased => LeaseCount == 0;

        /// <summary>Current number of leases (the owner's included); 0 once released.</summary>
        public int LeaseCount => Volatile.Read(ref _references);

        internal object IdTag { get; }

        /// <summary>
        /// Creates a scope configured from connection properties and returns its owner's lease (the database's,
        /// or a connection's when it was constructed directly and owns a private scope).
        /// </summary>
        public static DatabricksMemoryLease Create(IReadOnlyDictionary<string, string>? properties) =>
            new DatabricksMemoryLease(new DatabricksMemoryScope(DatabricksMemoryOptions.FromProperties(properties)));

        /// <summary>
        /// A lease for a connection the database opens with <c>Connect(connectOptions)</c>, whose memory keys are checked
        /// first (<see cref="DatabricksMemoryOptions.CheckConnectOptions"/>).
        /// </summary>
        public DatabricksMemoryLease AcquireLease(IReadOnlyDictionary<string, string>? connectOptions)
        {
            DatabricksMemoryOptions.CheckConnectOptions(connectOptions, Options);
            return AcquireLease();
        }

        /// <summary>
        /// One more reference for a user of the scope (a connection). On a released scope the lease is detached:
        /// it works, every rent is unpooled, and disposing it does nothing.
        /// </summary>
        public DatabricksMemoryLease AcquireLease()
        {
            while (true)
            {
                int current = Volatile.Read(ref _references);
                if (current == 0)
                {
                    return DatabricksMemoryLease.Detached(this);
                }

                if (Interlocked.CompareExchange(ref _references, current + 1, current) == current)
                {
                    return new DatabricksMemoryLease(this);
                }
            }
        }

        /// <summary>Called once per non-detached lease by <see cref="DatabricksMemoryLease.Dispose"/>.</summary>
        internal void ReleaseReference()
        {
            int remaining = Interlocked.Decrement(ref _references);
            if (remaining == 0)
            {
                BufferPool.Release();
                ArrowBatchPool.Release();
                Budget.Unpublish();
                DatabricksMemoryMetrics.LiveScopes.Add(-1, new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, IdTag));
            }
            else if (remaining < 0)
            {
                // A lease releases at most once, so this cannot happen; restore the count rather than corrupt it.
                Interlocked.Increment(ref _references);
            }
        }
    }
}
