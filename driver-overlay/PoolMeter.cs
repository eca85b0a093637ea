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

using System.Collections.Generic;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>Publishes one pool's accounting with its scope and pool tags (pre-built so no measurement allocates).</summary>
    internal sealed class PoolMeter
    {
        private static readonly KeyValuePair<string, object?> s_idle = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ReasonTag, DatabricksMemoryMetricNames.IdleReason);
        private static readonly KeyValuePair<string, object?> s_gen2Idle = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ReasonTag, DatabricksMemoryMetricNames.Gen2IdleReason);
        private static readonly KeyValuePair<string, object?> s_memoryPressure = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ReasonTag, DatabricksMemoryMetricNames.MemoryPressureReason);

        private readonly KeyValuePair<string, object?> _scope;
        private readonly KeyValuePair<string, object?> _pool;

        public PoolMeter(object scopeId, string pool)
        {
            _scope = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, scopeId);
            _pool = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.PoolTag, pool);
        }

        public void Rented(long bytes) => DatabricksMemoryMetrics.Rented.Add(bytes, _scope, _pool);

        public void Returned(long bytes) => DatabricksMemoryMetrics.Returned.Add(bytes, _scope, _pool);

        public void InUse(long delta) => DatabricksMemoryMetrics.InUse.Add(delta, _scope, _pool);

        public void Retained(long delta) => DatabricksMemoryMetrics.Retained.Add(delta, _scope, _pool);

        public void Allocated(long bytes) => DatabricksMemoryMetrics.Allocated.Add(bytes, _scope, _pool);

        public void Dropped(long bytes) => DatabricksMemoryMetrics.Dropped.Add(bytes, _scope, _pool);

        public void Unpooled(long bytes) => DatabricksMemoryMetrics.Unpooled.Add(bytes, _scope, _pool);

        public void Collected(long bytes) => DatabricksMemoryMetrics.Collected.Add(bytes, _scope, _pool);

        public void Trimmed(long bytes, Lz4TrimReason reason) =>
            DatabricksMemoryMetrics.Trimmed.Add(bytes, _scope, _pool, reason == Lz4TrimReason.Idle ? s_idle : reason == Lz4TrimReason.IdleAcrossGen2 ? s_gen2Idle : s_memoryPressure);
    }
}
