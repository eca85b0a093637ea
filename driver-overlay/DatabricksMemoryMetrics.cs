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

using System.Diagnostics.Metrics;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The meter through which every <see cref="DatabricksMemoryScope"/> publishes its pool accounting, so that
    /// <c>dotnet-counters monitor --counters Apache.Arrow.Adbc.Drivers.Databricks.Memory</c> shows it live in any host
    /// and tests can assert on it with a MeterListener, without reflection or InternalsVisibleTo.
    /// </summary>
    /// <remarks>
    /// One process-wide meter with a <c>scope</c> tag rather than a meter per scope: a Meter stays registered until
    /// it is disposed, so a per-scope meter would leak whenever an application forgets to dispose a database.
    /// Every instrument is push-based (no observable callbacks) for the same reason: nothing here holds a scope.
    /// Byte counts carry a <c>pool</c> tag (<see cref="DatabricksMemoryMetricNames.Lz4BuffersPool"/>,
    /// <see cref="DatabricksMemoryMetricNames.ArrowBatchesPool"/>), so another pool can be added without renaming
    /// instruments. Every name is defined once, in <see cref="DatabricksMemoryMetricNames"/>.
    /// </remarks>
    internal static class DatabricksMemoryMetrics
    {
        private static readonly Meter s_meter = new Meter(DatabricksMemoryMetricNames.MeterName, "1.0.0");

        public static readonly Counter<long> Rented = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Rented, "By", "Bytes handed out by the scope's pool.");

        public static readonly Counter<long> Returned = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Returned, "By", "Bytes given back to the scope's pool.");

        /// <summary>Rented and not yet returned. Returns to 0 when every reader is done.</summary>
        public static readonly UpDownCounter<long> InUse = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.InUse, "By", "Pooled bytes currently in use.");

        /// <summary>Free bytes a pool keeps for reuse. Returns to 0 when the scope is released.</summary>
        public static readonly UpDownCounter<long> Retained = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.Retained, "By", "Free bytes kept by the scope's pool for reuse.");

        public static readonly Counter<long> Allocated = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Allocated, "By", "Bytes newly allocated by the scope's pool.");

        /// <summary>Returned bytes a pool did not keep (its cap was reached, or the scope was released).</summary>
        public static readonly Counter<long> Dropped = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Dropped, "By", "Returned bytes the scope's pool let go to the GC.");

        /// <summary>
        /// Free bytes a pool gave back to the GC while its scope lives: <c>reason=idle</c> (unused for the idle trim
        /// period), <c>reason=memory_pressure</c> (a Gen2 under high memory load) or <c>reason=gen2_idle</c> (unused
        /// across Gen2s for 10 s, on netstandard2.0/.NET Framework where the memory load is unknown).
        /// Also counted in <see cref="Dropped"/>.
        /// </summary>
        public static readonly Counter<long> Trimmed = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Trimmed, "By", "Free bytes the scope's pool gave back while idle or short of memory.");

        /// <summary>
        /// Bytes served without pooling: scope released, pooling disabled, larger than the pool's largest size, or (record
        /// batch bodies) smaller than its smallest.
        /// </summary>
        public static readonly Counter<long> Unpooled = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Unpooled, "By", "Bytes allocated outside the pool.");

        /// <summary>
        /// Rented bytes the GC collected without their rental being disposed: record batches the application never
        /// disposed, a body Apache.Arrow's reader allocated for a message it then found truncated, a dictionary batch's
        /// body (the reader keeps the dictionary, never disposes it). Also taken off <see cref="InUse"/>, so that gauge
        /// does not drift; the array itself never goes back to the pool (something may still read it).
        /// </summary>
        public static readonly Counter<long> Collected = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Collected, "By", "Rented bytes collected by the GC without being returned.");

        public static readonly Counter<long> Lz4DecodedBytes = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Lz4Decoded, "By", "Bytes produced by the LZ4 frame decoder.");

        public static readonly Counter<long> Lz4Frames = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Lz4Frames, "{frame}", "LZ4 frames decoded.");

        /// <summary>Of the decoded bytes, those decoded into the reader's buffer (a record batch body), not through scratch.</summary>
        public static readonly Counter<long> Lz4DecodedInPlaceBytes = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Lz4DecodedInPlace, "By", "LZ4 bytes decoded straight into the reader's buffer.");

        /// <summary>Decodes that failed: <c>reason=error</c> (malformed or truncated input).</summary>
        public static readonly Counter<long> Lz4Fallbacks = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.Lz4Fallbacks, "{event}", "LZ4 decodes that left the fast path.");

        /// <summary>The database's budget of bytes in use for results (see <see cref="MemoryBudget"/>); goes to 0 when the scope is released.</summary>
        public static readonly UpDownCounter<long> BudgetLimit = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.BudgetLimit, "By", "The database's budget of bytes in use for results.");

        /// <summary>Bytes of the budget in use: CloudFetch files downloading or waiting (compressed size) and decode working memory.</summary>
        public static readonly UpDownCounter<long> BudgetInUse = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.BudgetInUse, "By", "Bytes of the database's result budget in use.");

        public static readonly UpDownCounter<long> BudgetWaiters = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.BudgetWaiters, "{reader}", "Readers waiting for the database's result budget.");

        public static readonly Counter<long> BudgetWaits = s_meter.CreateCounter<long>(
            DatabricksMemoryMetricNames.BudgetWaits, "{wait}", "Budget grants that had to wait.");

        public static readonly Counter<double> BudgetWaitTime = s_meter.CreateCounter<double>(
            DatabricksMemoryMetricNames.BudgetWaitTime, "s", "Time readers waited for the database's result budget.");

        /// <summary>Under adaptive prefetch (<c>AdaptivePrefetch</c>), summed over the scope's readers.</summary>
        public static readonly UpDownCounter<long> PrefetchInFlight = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.PrefetchInFlight, "{file}", "CloudFetch downloads in progress.");

        public static readonly UpDownCounter<long> PrefetchWaiting = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.PrefetchWaiting, "{file}", "CloudFetch files downloaded and waiting for their reader.");

        /// <summary>The adaptive prefetch's window (<c>PrefetchRule.Limit</c>, downloading or waiting), summed over the scope's readers.</summary>
        public static readonly UpDownCounter<long> PrefetchWindow = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.PrefetchWindow, "{file}", "Files the CloudFetch readers may have ahead of them.");

        public static readonly UpDownCounter<long> LiveScopes = s_meter.CreateUpDownCounter<long>(
            DatabricksMemoryMetricNames.LiveScopes, "{scope}", "Memory scopes created and not yet released.");
    }
}
