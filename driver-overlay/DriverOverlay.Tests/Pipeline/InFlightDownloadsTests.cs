using System.Linq;

namespace DriverOverlay.Tests.Pipeline
{
    /// <summary>
    /// What a stopping CloudFetch download loop leaves behind: a drain waits for every download it started, whatever
    /// their end (at most its bound), and then disposes, once each, the results it never handed to the reader's queue (no one else will);
    /// results handed over are the reader's and are not touched.
    /// </summary>
    public class InFlightDownloadsTests
    {
        // A liveness bound, not a performance one.
        private static readonly TimeSpan Liveness = TimeSpan.FromSeconds(30);

        [Fact]
        public async Task ADrainWaitsUntilEveryStartedDownloadHasEnded()
        {
            var downloads = new InFlightDownloads();
            var files = Enumerable.Range(0, 3).Select(_ => new FakeDownload()).ToArray();
            foreach (FakeDownload file in files)
            {
                _ = downloads.Started(file.Result, file.Task);
                downloads.HandedOver(file.Result);
            }

            Task drain = downloads.DrainAsync(Liveness);
            files[0].Succeed();
            files[2].Succeed();
            await Task.Delay(50);
            Assert.False(drain.IsCompleted, "the drain ended while a download was still running");
            Assert.Equal(1, downloads.Running);

            files[1].Succeed();
            await drain.WaitAsync(Liveness);
            Assert.Equal(0, downloads.Running);
            Assert.All(files, file => Assert.Equal(0, file.Result.Disposals));
        }

        [Fact]
        public async Task ResultsNeverHandedOverAreDisposedOnceAfterTheirDownloadEnded()
        {
            var downloads = new InFlightDownloads();
            var handed = new FakeDownload();
            var stuck = new FakeDownload(); // downloaded, but the add to the full reader queue was cancelled
            _ = downloads.Started(handed.Result, handed.Task);
            downloads.HandedOver(handed.Result);
            _ = downloads.Started(stuck.Result, stuck.Task);

            Task drain = downloads.DrainAsync(Liveness);
            await Task.Delay(50);
            Assert.Equal(0, stuck.Result.Disposals);
            handed.Succeed();
            stuck.Succeed();
            await drain.WaitAsync(Liveness);

            Assert.Equal(1, stuck.Result.Disposals);
            Assert.True(stuck.Result.DownloadEndedAtDispose, "disposed while its download could still write into it");
            Assert.Equal(0, handed.Result.Disposals);
            Assert.Equal(0, downloads.NotHandedOver);

            await downloads.DrainAsync(Liveness).WaitAsync(Liveness);
            Assert.Equal(1, stuck.Result.Disposals);
        }

        [Fact]
        public async Task FailedAndCancelledDownloadsEndADrainWithoutAnExceptionAndTheirResultsAreStillDisposed()
        {
            var downloads = new InFlightDownloads();
            var failed = new FakeDownload();
            var cancelled = new FakeDownload();
            _ = downloads.Started(failed.Result, failed.Task);
            _ = downloads.Started(cancelled.Result, cancelled.Task);

            Task drain = downloads.DrainAsync(Liveness);
            failed.Fail(new InvalidOperationException("HTTP 500"));
            cancelled.Cancel();
            await drain.WaitAsync(Liveness);

            Assert.Equal((1, 1), (failed.Result.Disposals, cancelled.Result.Disposals));
            Assert.True(failed.Task.IsFaulted && cancelled.Task.IsCanceled);
        }

        [Fact]
        public async Task EndedDownloadsLeaveAtOnceAndADrainWithNothingRunningEndsAtOnce()
        {
            var downloads = new InFlightDownloads();
            var file = new FakeDownload();
            _ = downloads.Started(file.Result, file.Task);
            Assert.Equal((1, 1), (downloads.Running, downloads.NotHandedOver));

            file.Succeed();
            Assert.Equal((0, 1), (downloads.Running, downloads.NotHandedOver));
            downloads.HandedOver(file.Result);

            Task drain = downloads.DrainAsync(Liveness);
            Assert.True(drain.IsCompleted, "nothing was running, yet the drain waited");
            await drain;
            Assert.Equal(0, file.Result.Disposals);
        }

        [Fact]
        public async Task ADownloadThatIgnoresCancellationHoldsTheDrainOnlyUntilTheBound()
        {
            // A body read that ignores the token (.NET Framework's HTTP streams): the drain gives up after its bound,
            // reports it, and still disposes the result it never handed over; the download gives its data back itself
            // when it ends (a result disposed first disposes what it is handed).
            var downloads = new InFlightDownloads();
            var stalled = new FakeDownload();
            _ = downloads.Started(stalled.Result, stalled.Task);

            bool allEnded = await downloads.DrainAsync(TimeSpan.FromMilliseconds(100)).WaitAsync(Liveness);

            Assert.False(allEnded);
            Assert.False(stalled.Task.IsCompleted);
            Assert.Equal(1, stalled.Result.Disposals);
            stalled.Fail(new IOException("the stall ended"));
            Assert.Equal((0, 0), (downloads.Running, downloads.NotHandedOver));
        }

        [Fact]
        public async Task TheBoundDoesNotCutADrainWhoseDownloadsEndInTime()
        {
            var downloads = new InFlightDownloads();
            var file = new FakeDownload();
            _ = downloads.Started(file.Result, file.Task);
            Task<bool> drain = downloads.DrainAsync(Liveness);
            file.Succeed();

            Assert.True(await drain.WaitAsync(Liveness));
            Assert.True(file.Result.DownloadEndedAtDispose);
        }

        [Fact]
        public void MisuseIsRefusedWithAClearError()
        {
            var downloads = new InFlightDownloads();
            var file = new FakeDownload();

            Assert.Equal("result", Assert.Throws<ArgumentNullException>(() => { _ = downloads.Started(null!, file.Task); }).ParamName);
            Assert.Equal("download", Assert.Throws<ArgumentNullException>(() => { _ = downloads.Started(file.Result, null!); }).ParamName);
            Assert.Equal("This download result was not started, or was already handed over.",
                Assert.Throws<InvalidOperationException>(() => downloads.HandedOver(file.Result)).Message);

            Assert.Same(file.Task, downloads.Started(file.Result, file.Task));
            Assert.Equal("This download result was already started.",
                Assert.Throws<InvalidOperationException>(() => { _ = downloads.Started(file.Result, file.Task); }).Message);
            downloads.HandedOver(file.Result);
            Assert.Equal("This download result was not started, or was already handed over.",
                Assert.Throws<InvalidOperationException>(() => downloads.HandedOver(file.Result)).Message);
        }

        [Fact]
        public async Task DownloadsStartedAndHandedOverFromManyThreadsAreAllDrained()
        {
            var downloads = new InFlightDownloads();
            var files = Enumerable.Range(0, 400).Select(i => new FakeDownload { HandedOver = i % 2 == 0 }).ToArray();
            Parallel.ForEach(files, file =>
            {
                _ = downloads.Started(file.Result, file.Task);
                if (file.HandedOver)
                {
                    downloads.HandedOver(file.Result);
                }
            });

            Task drain = downloads.DrainAsync(Liveness);
            Parallel.ForEach(files, file => file.Succeed());
            await drain.WaitAsync(Liveness);

            Assert.All(files, file => Assert.Equal(file.HandedOver ? 0 : 1, file.Result.Disposals));
            Assert.Equal((0, 0), (downloads.Running, downloads.NotHandedOver));
        }

        /// <summary>One file's download, ended by the test, and the result it fills.</summary>
        private sealed class FakeDownload
        {
            private readonly TaskCompletionSource<bool> _download = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

            public FakeDownload()
            {
                Result = new FakeResult(_download.Task);
            }

            public FakeResult Result { get; }

            public Task Task => _download.Task;

            public bool HandedOver { get; init; }

            public void Succeed() => _download.SetResult(true);

            public void Fail(Exception error) => _download.SetException(error);

            public void Cancel() => _download.SetCanceled();
        }

        private sealed class FakeResult : IDisposable
        {
            private readonly Task _download;
            private int _disposals;

            public FakeResult(Task download)
            {
                _download = download;
            }

            public int Disposals => Volatile.Read(ref _disposals);

            public bool DownloadEndedAtDispose { get; private set; }

            public void Dispose()
            {
                DownloadEndedAtDispose = _download.IsCompleted;
                Interlocked.Increment(ref _disposals);
            }
        }
    }
}
