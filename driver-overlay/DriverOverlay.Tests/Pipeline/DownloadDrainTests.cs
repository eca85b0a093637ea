namespace DriverOverlay.Tests.Pipeline
{
    /// <summary>The bounded wait of a stopping download loop: true only when every download ended; never throws.</summary>
    public class DownloadDrainTests
    {
        private static readonly TimeSpan Liveness = TimeSpan.FromSeconds(30);

        [Fact]
        public async Task ReturnsTrueOnceEveryDownloadHasEndedHoweverItEnded()
        {
            var ok = new TaskCompletionSource<bool>();
            var failed = new TaskCompletionSource<bool>();
            var cancelled = new TaskCompletionSource<bool>();
            Task<bool> wait = DownloadDrain.WaitAsync(new Task[] { ok.Task, failed.Task, cancelled.Task }, Liveness);
            ok.SetResult(true);
            failed.SetException(new InvalidOperationException("HTTP 500"));
            cancelled.SetCanceled();

            Assert.True(await wait.WaitAsync(Liveness));
        }

        [Fact]
        public async Task ReturnsFalseAtTheBoundWhileADownloadIsStillRunningAndObservesItsLaterFault()
        {
            var stalled = new TaskCompletionSource<bool>();
            int unobserved = 0;
            EventHandler<UnobservedTaskExceptionEventArgs> count = (_, e) => { if (e.Exception.InnerException is IOException) Interlocked.Increment(ref unobserved); };
            TaskScheduler.UnobservedTaskException += count;
            try
            {
                Assert.False(await DownloadDrain.WaitAsync(new Task[] { stalled.Task }, TimeSpan.FromMilliseconds(50)).WaitAsync(Liveness));
                stalled.SetException(new IOException("the stall ended with an error"));
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                Assert.Equal(0, unobserved);
            }
            finally
            {
                TaskScheduler.UnobservedTaskException -= count;
            }
        }

        [Fact]
        public async Task NothingToWaitForEndsAtOnce()
        {
            Task<bool> wait = DownloadDrain.WaitAsync(Array.Empty<Task>(), Liveness);
            Assert.True(wait.IsCompleted);
            Assert.True(await wait);
        }
    }
}
