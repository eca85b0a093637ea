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
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The wait a stopping CloudFetch download loop gives the downloads it started: until each has ended, but never
    /// longer than a bound.
    /// </summary>
    /// <remarks>
    /// Why a bound: the reader's <c>Dispose</c> waits for the loop, and a download observes the cancellation only if the
    /// body read does: .NET's socket streams end a cancelled read within milliseconds, .NET Framework's (Power BI Desktop)
    /// ignore the token, so an unbounded wait held Dispose for as long as a stall lasted (7.3-7.7 s with an 8 s stall). A
    /// download still running after the bound gives its buffer back when it ends (<see cref="InFlightDownloads"/>).
    /// </remarks>
    internal static class DownloadDrain
    {
        /// <summary>
        /// How long a stopping loop waits for its downloads: ample for downloads that honour cancellation (they end in
        /// milliseconds), short enough that a disposal never looks hung.
        /// </summary>
        public static readonly TimeSpan DisposeWaitBound = TimeSpan.FromSeconds(1);

        /// <summary>
        /// Waits until every one of <paramref name="downloads"/> has ended, or <paramref name="bound"/> has passed.
        /// True when all ended. Never throws: how each download ended is its result's business.
        /// </summary>
        public static async Task<bool> WaitAsync(IReadOnlyCollection<Task> downloads, TimeSpan bound)
        {
            if (downloads.Count == 0)
            {
                return true;
            }

            Task all = Task.WhenAll(downloads);
            _ = ObserveFaultAsync(all);
            using (var timer = new CancellationTokenSource())
            {
                Task first = await Task.WhenAny(all, Task.Delay(bound, timer.Token)).ConfigureAwait(false);
                timer.Cancel();
                return first == all;
            }
        }

        /// <summary>
        /// Observes a fault that comes after the bound, so it never reaches <c>TaskScheduler.UnobservedTaskException</c>.
        /// An await rather than <c>ContinueWith</c>: the systematic tests' scheduler (Coyote) controls awaits, not continuations.
        /// </summary>
        private static async Task ObserveFaultAsync(Task task)
        {
            try
            {
                await task.ConfigureAwait(false);
            }
            catch
            {
                // how each download ended is its result's business (see WaitAsync)
            }
        }
    }
}
