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
    /// <summary>
    /// One reference to a <see cref="DatabricksMemoryScope"/>. The database holds one, each open connection one
    /// more; disposing the last releases the scope's pooled memory. Dispose is idempotent and thread-safe.
    /// </summary>
    internal sealed class DatabricksMemoryLease : IDisposable
    {
        private int _disposed;

        internal DatabricksMemoryLease(DatabricksMemoryScope scope)
        {
            Scope = scope;
        }

        public DatabricksMemoryScope Scope { get; }

        /// <summary>True for a lease handed out by an already released scope: it holds no reference.</summary>
        public bool IsDetached { get; private set; }

        internal static DatabricksMemoryLease Detached(DatabricksMemoryScope scope) =>
            new DatabricksMemoryLease(scope) { _disposed = 1, IsDetached = true };

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) == 0)
            {
                Scope.ReleaseReference();
            }
        }
    }
}
