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
using Xunit.Abstractions;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// The bounded drain of a stopping download loop (<see cref="DownloadDrain"/>) under Coyote's scheduler.
    /// </summary>
    /// <remarks>
    /// The queues' asynchronous waits (<see cref="BlockingQueueAsyncWaits"/>) are not explored here: their process-wide
    /// sweep runs on a <see cref="System.Threading.Timer"/>, which Coyote does not control, and its callbacks crashed
    /// the test host once an iteration had ended. Their example tests run in DriverOverlay.Tests.
    /// </remarks>
    public class DrainScheduleTests(ITestOutputHelper output)
    {
        [Fact]
        public void DrainOfDownloadsEndingFailingOrStalled_ReturnsAtTheBoundWithoutWaitingForTheStall()
        {
            SystematicTest.Run(async () =>
            {
                TaskCompletionSource<bool> honours = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                TaskCompletionSource<bool> fails = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                TaskCompletionSource<bool> stalls = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                Task[] downloads = { honours.Task, fails.Task, stalls.Task };

                Task<bool> drain = DownloadDrain.WaitAsync(downloads, TimeSpan.FromMilliseconds(10));
                Task ends = Task.Run(() => honours.SetResult(true));
                Task faults = Task.Run(() => fails.SetException(new System.IO.IOException("reset")));
                bool allEnded = await drain; // the stalled one never ends (a body read that ignores cancellation)
                await Task.WhenAll(new[] { ends, faults });

                Specification.Assert(!allEnded, "the drain said every download ended while one still ran");
            }, output);
        }
    }
}
