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

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The one definition of every name the overlay's meter publishes: the meter, its instruments, their tags and the
    /// tag values. <see cref="DatabricksMemoryMetrics"/> creates the instruments from these; the overlay's tests use them
    /// directly; the harness and the memory probe compile this file in (they cannot see the driver's internals); the
    /// verify report (scripts/report/metric_names.py) reads the names from this file's text, so each stays a plain
    /// <c>public const string Name = "value";</c> on one line.
    /// </summary>
    internal static class DatabricksMemoryMetricNames
    {
        public const string MeterName = "Apache.Arrow.Adbc.Drivers.Databricks.Memory";

        // Instruments.
        public const string Rented = "adbc.databricks.memory.rented";
        public const string Returned = "adbc.databricks.memory.returned";
        public const string InUse = "adbc.databricks.memory.in_use";
        public const string Retained = "adbc.databricks.memory.retained";
        public const string Allocated = "adbc.databricks.memory.allocated";
        public const string Dropped = "adbc.databricks.memory.dropped";
        public const string Trimmed = "adbc.databricks.memory.trimmed";
        public const string Unpooled = "adbc.databricks.memory.unpooled";
        public const string Collected = "adbc.databricks.memory.collected";
        public const string Lz4Decoded = "adbc.databricks.lz4.decoded";
        public const string Lz4Frames = "adbc.databricks.lz4.frames";
        public const string Lz4DecodedInPlace = "adbc.databricks.lz4.decoded_in_place";
        public const string Lz4Fallbacks = "adbc.databricks.lz4.fallbacks";
        public const string LiveScopes = "adbc.databricks.memory.scopes";
        public const string BudgetLimit = "adbc.databricks.memory.budget.limit";
        public const string BudgetInUse = "adbc.databricks.memory.budget.in_use";
        public const string BudgetWaiters = "adbc.databricks.memory.budget.waiters";
        public const string BudgetWaits = "adbc.databricks.memory.budget.waits";
        public const string BudgetWaitTime = "adbc.databricks.memory.budget.wait_time";
        public const string PrefetchInFlight = "adbc.databricks.prefetch.in_flight";
        public const string PrefetchWaiting = "adbc.databricks.prefetch.waiting";
        public const string PrefetchWindow = "adbc.databricks.prefetch.window";

        // Tags.
        public const string ScopeTag = "scope";
        public const string PoolTag = "pool";
        public const string ReasonTag = "reason";

        // Values of the pool tag.
        public const string Lz4BuffersPool = "lz4_buffers";
        public const string ArrowBatchesPool = "arrow_batches";

        // Values of the reason tag (trimmed: why free bytes went; lz4.fallbacks: why a decode failed).
        public const string IdleReason = "idle";
        public const string Gen2IdleReason = "gen2_idle";
        public const string MemoryPressureReason = "memory_pressure";
        public const string ErrorReason = "error";
    }
}
