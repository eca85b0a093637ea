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
using Microsoft.IO;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The RecyclableMemoryStream pool of one <see cref="DatabricksMemoryScope"/>: decompressed CloudFetch files
    /// live in its contiguous large buffers until the Arrow reader disposes the stream.
    /// </summary>
    /// <remarks>
    /// The manager's free pools are capped (the library's default of 0 means unbounded, a leak in a long-lived
    /// host such as Power BI) and buffers return on growth as well as on dispose (AggressiveBufferReturn), so a
    /// regrown stream does not hold two buffers. The manager has no Clear method, so <see cref="Release"/> drops
    /// the pool's only reference to it: streams still open keep it alive until they are disposed, then everything
    /// becomes garbage. After release, streams are plain MemoryStreams.
    /// </remarks>
    internal sealed class RecyclableStreamPool
    {
        private const string StreamTag = "databricks-lz4";

        private readonly PoolMeter _meter;
        private readonly object _accountingLock = new object();
        private RecyclableMemoryStreamManager? _manager;
        private long _publishedInUse;
        private long _publishedRetained;

        public RecyclableStreamPool(DatabricksMemoryOptions options, PoolMeter meter)
        {
            _meter = meter;
            if (!options.PoolingEnabled)
            {
                return;
            }

            // The library reads a free-bytes limit of 0 as "unbounded". Our 0 MiB means "keep nothing", so pass 1 byte:
            // no large buffer fits in it, and the small pool keeps at most one block (it checks its total before adding).
            var managerOptions = new RecyclableMemoryStreamManager.Options
            {
                BlockSize = DatabricksMemoryOptions.StreamBlockSize,
                LargeBufferMultiple = DatabricksMemoryOptions.StreamLargeBufferMultiple,
                MaximumBufferSize = options.StreamPoolMaxBufferLength,
                UseExponentialLargeBuffer = false,
                MaximumSmallPoolFreeBytes = Math.Max(1, options.StreamPoolMaxFreeSmallBytes),
                MaximumLargePoolFreeBytes = Math.Max(1, options.StreamPoolMaxFreeLargeBytes),
                AggressiveBufferReturn = true,
            };
            var manager = new RecyclableMemoryStreamManager(managerOptions);
            manager.BlockCreated += (sender, args) => _meter.Allocated(DatabricksMemoryOptions.StreamBlockSize);
            manager.LargeBufferCreated += (sender, args) => _meter.Allocated(args.RequiredSize);
            manager.UsageReport += (sender, args) => PublishUsage((RecyclableMemoryStreamManager)sender!);
            _manager = manager;
        }

        /// <summary>The manager while the pool is live; null once released (or when pooling is disabled).</summary>
        public RecyclableMemoryStreamManager? Manager => Volatile.Read(ref _manager);

        public bool IsReleased => Manager == null;

        /// <summary>A stream whose buffer is one contiguous array of at least <paramref name="capacity"/> bytes.</summary>
        public MemoryStream GetContiguousStream(int capacity, out bool pooled)
        {
            RecyclableMemoryStreamManager? manager = Manager;
            if (manager == null)
            {
                pooled = false;
                _meter.Unpooled(capacity);
                return new MemoryStream(capacity);
            }

            pooled = true;
            MemoryStream stream = manager.GetStream(StreamTag, capacity, asContiguousBuffer: true);
            PublishUsage(manager);
            return stream;
        }

        /// <summary>Re-reads the manager's counters after a stream changed size outside the manager's own reporting.</summary>
        public void PublishUsage()
        {
            RecyclableMemoryStreamManager? manager = Manager;
            if (manager != null)
            {
                PublishUsage(manager);
            }
        }

        /// <summary>Drops the pool's reference to the manager so its free buffers can be collected. Idempotent.</summary>
        public void Release()
        {
            if (Interlocked.Exchange(ref _manager, null) == null)
            {
                return;
            }

            lock (_accountingLock)
            {
                // The scope no longer keeps anything: the retained bytes belong to an unreachable manager now.
                _meter.Retained(-_publishedRetained);
                _meter.Dropped(_publishedRetained);
                _publishedRetained = 0;
            }
        }

        private void PublishUsage(RecyclableMemoryStreamManager manager)
        {
            lock (_accountingLock)
            {
                long inUse = manager.SmallPoolInUseSize + manager.LargePoolInUseSize;
                long inUseDelta = inUse - _publishedInUse;
                if (inUseDelta != 0)
                {
                    _meter.InUse(inUseDelta);
                    if (inUseDelta > 0)
                    {
                        _meter.Rented(inUseDelta);
                    }
                    else
                    {
                        _meter.Returned(-inUseDelta);
                    }

                    _publishedInUse = inUse;
                }

                // Streams opened before release report their returns here; their free bytes are no longer the scope's.
                if (ReferenceEquals(manager, _manager))
                {
                    long retained = manager.SmallPoolFreeSize + manager.LargePoolFreeSize;
                    if (retained != _publishedRetained)
                    {
                        _meter.Retained(retained - _publishedRetained);
                        _publishedRetained = retained;
                    }
                }
            }
        }
    }
}
