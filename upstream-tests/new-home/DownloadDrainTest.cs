/*
* Copyright (c) 2025 ADBC Drivers Contributors
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The bounded wait of a stopping download loop (<see cref="DownloadDrain"/>): true only once every download has
    /// ended, false at the bound while one still runs, and never an exception, now or later.
    /// </summary>
    public class DownloadDrainTest
    {
        [Fact]
        public async Task WaitAsync_EveryDownloadEnded_ReturnsTrueHoweverEachEnded()
        {
            // Arrange
            TaskCompletionSource<bool> succeeded = new TaskCompletionSource<bool>();
            TaskCompletionSource<bool> failed = new TaskCompletionSource<bool>();
            TaskCompletionSource<bool> cancelled = new TaskCompletionSource<bool>();

            // Act
            Task<bool> wait = DownloadDrain.WaitAsync(new Task[] { succeeded.Task, failed.Task, cancelled.Task }, Liveness);
            Assert.False(wait.IsCompleted, "the drain returned while downloads were running");
            succeeded.SetResult(true);
            failed.SetException(new InvalidOperationException("HTTP 500"));
            cancelled.SetCanceled();

            // Assert
            Assert.True(await WithinAsync(wait, Liveness, "the drain"));
        }

        [Fact]
        public void WaitAsync_DownloadStillRunningAtTheBound_ReturnsFalseAndObservesItsLaterFault()
        {
            // Arrange
            IOException lateFault = new IOException("the stall ended with an error");
            int unobserved = 0;
            EventHandler<UnobservedTaskExceptionEventArgs> count = (_, e) =>
            {
                // This fault only: the event is process-wide, and other tests' tasks may be collected meanwhile.
                if (e.Exception != null && e.Exception.InnerExceptions.Contains(lateFault))
                {
                    Interlocked.Increment(ref unobserved);
                }
            };
            TaskScheduler.UnobservedTaskException += count;
            try
            {
                // Act
                bool ended = DrainADownloadThatFailsAfterTheBound(lateFault);
                for (int i = 0; i < 3; i++)
                {
                    // A fault nobody observed is reported when its task is finalized.
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                }

                // Assert
                Assert.False(ended);
                Assert.Equal(0, unobserved);
            }
            finally
            {
                TaskScheduler.UnobservedTaskException -= count;
            }
        }

        [Fact]
        public async Task WaitAsync_NothingToWaitFor_CompletesAtOnce()
        {
            // Act
            Task<bool> wait = DownloadDrain.WaitAsync(Array.Empty<Task>(), Liveness);

            // Assert
            Assert.True(wait.IsCompleted);
            Assert.True(await wait);
        }

        /// <summary>
        /// A drain bounded at 50 ms over a download that fails after it. Not inlined, so that nothing of it stays
        /// reachable from the test's frame and the drain's tasks can be collected.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static bool DrainADownloadThatFailsAfterTheBound(IOException fault)
        {
            TaskCompletionSource<bool> stalled = new TaskCompletionSource<bool>();
            bool ended = DownloadDrain.WaitAsync(new Task[] { stalled.Task }, TimeSpan.FromMilliseconds(50)).GetAwaiter().GetResult();
            stalled.SetException(fault);
            return ended;
        }
    }
}
