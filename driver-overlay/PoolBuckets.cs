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
    /// <summary>
    /// How an <see cref="Lz4BufferPool"/> rounds a request up to the length of an array it keeps: the sizes of its
    /// buckets, whether requests below the smallest bucket are pooled, and how far up a rent may look for a free array.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Both pools of a scope have four buckets per doubling: an array is at most 1.25x its request (the first step above
    /// a power of two is the widest: 80 KiB for 64 KiB + 1). Power-of-two buckets held up to 2x: a CloudFetch file of
    /// 8.1 MB compressed and 20.5 MB decoded took 16 MB and 32 MB arrays. Measured with scripts/verify on the 1 GB
    /// result (tag 21, 3 runs each): the patched driver's peak GC heap fell from 135 to 87 MB, its peak working set from
    /// 148 to 141 MB and its allocations from 135 to 87 MB; on csharp/v1.1.7 likewise (141 MB peak working set).
    /// </para>
    /// <para>
    /// They differ where the two kinds of memory live differently. LZ4 buffers live while the driver reads one file: a
    /// rent may take a larger free array (<see cref="LargerBucketsToTry"/>), and small requests are pooled at 64 KiB.
    /// Record batch bodies live as long as the application keeps the batch, which pays its slack for the whole result:
    /// a rent takes its own bucket only, and bodies below 64 KiB are exact unpooled arrays, as Apache.Arrow's own gives.
    /// </para>
    /// </remarks>
    internal sealed class PoolBuckets
    {
        /// <summary>The smallest pooled array.</summary>
        public const int MinimumArrayLength = 64 * 1024;

        public static readonly PoolBuckets Lz4Buffers = new PoolBuckets(stepsPerDoubling: 4, largerBucketsToTry: 4, poolsSmallRequests: true);

        public static readonly PoolBuckets RecordBatches = new PoolBuckets(stepsPerDoubling: 4, largerBucketsToTry: 0, poolsSmallRequests: false);

        private PoolBuckets(int stepsPerDoubling, int largerBucketsToTry, bool poolsSmallRequests)
        {
            StepsPerDoubling = stepsPerDoubling;
            LargerBucketsToTry = largerBucketsToTry;
            PoolsSmallRequests = poolsSmallRequests;
        }

        /// <summary>Buckets between two powers of two (1: the powers of two only).</summary>
        public int StepsPerDoubling { get; }

        /// <summary>
        /// How many buckets above its own a rent looks in for a free array before allocating. Why the LZ4 pool looks:
        /// a result's last file is usually smaller than the others, and taking an idle larger array already in memory
        /// costs nothing, where allocating its own bucket's size added ~8-10 MB to the peak working set at the end of
        /// every 1 GB query (scripts/verify on tag 21, power-of-two buckets: patched peak 161.7 MB before, 151.9-152.6 MB after).
        /// </summary>
        public int LargerBucketsToTry { get; }

        /// <summary>Whether a request below <see cref="MinimumArrayLength"/> gets a pooled array of that length (else an exact, unpooled one).</summary>
        public bool PoolsSmallRequests { get; }

        /// <summary>The bucket of the smallest array that holds <paramref name="length"/> bytes (1 to <see cref="Lz4BufferPool.MaximumArrayLength"/>).</summary>
        public int IndexOf(int length)
        {
            if (length <= MinimumArrayLength)
            {
                return 0;
            }

            int doublings = 0;
            while ((long)MinimumArrayLength << (doublings + 1) < length)
            {
                doublings++;
            }

            // MinimumArrayLength << doublings < length <= MinimumArrayLength << (doublings + 1): the step above it.
            long below = (long)MinimumArrayLength << doublings;
            long step = below / StepsPerDoubling;
            long steps = (length - below + step - 1) / step;
            return (doublings * StepsPerDoubling) + (int)steps;
        }

        /// <summary>The array length of bucket <paramref name="index"/>.</summary>
        public int SizeOf(int index)
        {
            int doublings = index / StepsPerDoubling;
            int below = MinimumArrayLength << doublings;
            return below + ((below / StepsPerDoubling) * (index % StepsPerDoubling));
        }
    }
}
