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

using Microsoft.Coyote.Specifications;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// What must hold for a <see cref="MemoryBudget"/> under every interleaving of grant, release, charge, cancel and
    /// close, stated once here and checked by every schedule test:
    /// <list type="number">
    /// <item>in use is never negative, and is 0 once every account is closed and every charge given back;</item>
    /// <item>in use stays within the limit plus one file per reader (a reader holding nothing is always granted its next
    /// file) plus the charged decode working memory;</item>
    /// <item>every wait ends: granted, cancelled (<see cref="OperationCanceledException"/>) or closed
    /// (<see cref="ObjectDisposedException"/>); a closed account is never granted;</item>
    /// <item>among live waiters held back by the database's limit, first come, first served: a later one is never granted
    /// while an earlier one still waits.</item>
    /// </list>
    /// </summary>
    internal static class BudgetInvariants
    {
        /// <summary>Invariant 2, and the first half of 1, at any moment.</summary>
        public static void InUseWithinBounds(MemoryBudget budget, int readers, long largestFile, long charged)
        {
            long inUse = budget.InUse;
            Specification.Assert(inUse >= 0, "in use went negative: {0}", inUse);
            long bound = budget.Limit + (readers * largestFile) + charged;
            Specification.Assert(inUse <= bound, "in use {0} over the limit plus one file per reader plus the charges ({1})", inUse, bound);
        }

        /// <summary>Invariant 1 at the end: every account closed, every charge given back.</summary>
        public static void AllGivenBack(MemoryBudget budget)
        {
            Specification.Assert(budget.InUse == 0, "{0} bytes still in use after every account was closed", budget.InUse);
            Specification.Assert(budget.Waiters == 0, "{0} waits still queued after every account was closed", budget.Waiters);
        }

        /// <summary>
        /// Invariant 3: how the wait ended (true granted, false cancelled or closed); a hang is Coyote's to find. A wait of
        /// a test asserts that a closed account was not granted from the account's holdings.
        /// </summary>
        public static async Task<bool> EndOf(Task wait)
        {
            try
            {
                await wait;
                return true;
            }
            catch (OperationCanceledException)
            {
                return false;
            }
            catch (ObjectDisposedException)
            {
                return false;
            }
        }

        /// <summary>A wait, or how it ended at once: a closed account refuses the call itself.</summary>
        public static Task Acquire(MemoryBudgetAccount account, long bytes, CancellationToken cancellationToken)
        {
            try
            {
                return account.AcquireAsync(bytes, cancellationToken);
            }
            catch (ObjectDisposedException closed)
            {
                return Task.FromException(closed);
            }
        }

        /// <summary>
        /// Invariant 4, as an observer can see it: <paramref name="later"/> granted while <paramref name="earlier"/> still
        /// waits. Grants of one step complete in arrival order, so reading the later wait first makes the check exact.
        /// </summary>
        public static void FirstComeFirstServed(Task earlier, Task later)
        {
            bool laterGranted = later.Status == TaskStatus.RanToCompletion;
            bool earlierWaiting = !earlier.IsCompleted;
            Specification.Assert(!(laterGranted && earlierWaiting), "a later wait was granted while an earlier one still waited");
        }
    }
}
