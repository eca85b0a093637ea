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

using System.Threading;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>Ending a cancellation registration whose callback may be running on another thread.</summary>
    internal static class CancellationRegistration
    {
        /// <summary>
        /// Unregisters the callback without waiting for a run of it already under way where the runtime can
        /// (<c>Unregister</c>, .NET Core 3.0 and later); <c>Dispose</c> elsewhere, which waits for that run.
        /// </summary>
        /// <remarks>
        /// <c>Dispose</c> blocks until a callback running on another thread returns: called while holding a lock that
        /// callback takes, it deadlocks (issue 32, defect 1). The overlay's callbacks need no such wait: they take their
        /// lock, find the work done, and return. Callers still never call this under a lock, so the .NET Framework path,
        /// which has only <c>Dispose</c>, waits at most for a callback that can finish.
        /// </remarks>
        public static void DisposeWithoutWaiting(this CancellationTokenRegistration registration)
        {
#if NETCOREAPP3_0_OR_GREATER
            registration.Unregister();
#else
            registration.Dispose();
#endif
        }
    }
}
