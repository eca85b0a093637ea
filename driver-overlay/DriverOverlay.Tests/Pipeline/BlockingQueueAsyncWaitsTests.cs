using System.Collections.Concurrent;
using System.Linq;

namespace DriverOverlay.Tests.Pipeline
{
    /// <summary>
    /// The CloudFetch queues' asynchronous waits: they return an incomplete task instead of blocking the caller, wake
    /// on changes made through them and (by the process-wide sweep) on changes made with the blocking methods, never
    /// while nothing changes, and keep the blocking methods' order, completion and cancellation semantics; a queue
    /// disposed under a waiter ends the wait as shutdown, never with ObjectDisposedException.
    /// </summary>
    public class BlockingQueueAsyncWaitsTests
    {
        // A liveness bound, not a performance one: far above any wake-up these tests wait for.
        private static readonly TimeSpan Liveness = TimeSpan.FromSeconds(30);

        [Fact]
        public async Task TakeFromAnEmptyQueueReturnsAnIncompleteTaskAndCompletesWithTheNextAddedItem()
        {
            using var queue = new BlockingCollection<string>(4);

            Task<string> take = queue.TakeAsync(CancellationToken.None);
            // A blocking wait (upstream's Task.Run(() => queue.Take())) would hold a thread here; this returns at once.
            Assert.False(take.IsCompleted);

            await queue.AddAsync("file-0", CancellationToken.None);
            Assert.Equal("file-0", await take.WaitAsync(Liveness));
            Assert.Empty(queue);
        }

        [Fact]
        public async Task AddToAFullQueueReturnsAnIncompleteTaskAndCompletesWhenATakeMakesRoom()
        {
            using var queue = new BlockingCollection<string>(2);
            await queue.AddAsync("a", CancellationToken.None);
            await queue.AddAsync("b", CancellationToken.None);

            Task add = queue.AddAsync("c", CancellationToken.None);
            Assert.False(add.IsCompleted);
            Assert.Equal(2, queue.Count);

            Assert.Equal("a", await queue.TakeAsync(CancellationToken.None));
            await add.WaitAsync(Liveness);
            Assert.Equal(new[] { "b", "c" }, queue.ToArray());
        }

        [Fact]
        public async Task ItemsAddedWithTheBlockingMethodsAreSeenByAWaitingTake()
        {
            // Upstream's tests fill the queues with the blocking Add, which does not signal: the waiter's poll finds it.
            using var queue = new BlockingCollection<string>(4);
            Task<string> take = queue.TakeAsync(CancellationToken.None);
            Assert.False(take.IsCompleted);

            queue.Add("added-blocking");
            Assert.Equal("added-blocking", await take.WaitAsync(Liveness));
        }

        [Fact]
        public async Task RoomMadeWithTheBlockingTakeIsSeenByAWaitingAdd()
        {
            using var queue = new BlockingCollection<string>(1);
            queue.Add("first");
            Task add = queue.AddAsync("second", CancellationToken.None);
            Assert.False(add.IsCompleted);

            Assert.Equal("first", queue.Take());
            await add.WaitAsync(Liveness);
            Assert.Equal("second", queue.Take());
        }

        [Fact]
        public async Task ACompletedQueueStillHandsOutItsItemsThenBehavesAsTheBlockingTake()
        {
            using var queue = new BlockingCollection<string>(4);
            await queue.AddAsync("last", CancellationToken.None);
            queue.CompleteAdding();

            Assert.Equal("last", await queue.TakeAsync(CancellationToken.None));
            InvalidOperationException blocking = Assert.Throws<InvalidOperationException>(() => queue.Take());
            InvalidOperationException asynchronous = await Assert.ThrowsAsync<InvalidOperationException>(() => queue.TakeAsync(CancellationToken.None));
            Assert.Equal(blocking.Message, asynchronous.Message);
            Assert.Null(await queue.TakeOrNullWhenCompletedAsync(CancellationToken.None));
        }

        [Fact]
        public async Task AWaitingTakeEndsWhenTheQueueIsCompletedWhileItWaits()
        {
            using var queue = new BlockingCollection<string>(4);
            Task<string?> take = queue.TakeOrNullWhenCompletedAsync(CancellationToken.None);
            Assert.False(take.IsCompleted);

            // CompleteAdding does not signal (code outside the series may call it): the sweep finds it.
            queue.CompleteAdding();
            Assert.Null(await take.WaitAsync(Liveness));
        }

        [Fact]
        public async Task AddToACompletedQueueThrowsAsTheBlockingAdd()
        {
            using var queue = new BlockingCollection<string>(4);
            queue.CompleteAdding();

            InvalidOperationException blocking = Assert.Throws<InvalidOperationException>(() => queue.Add("x"));
            InvalidOperationException asynchronous = await Assert.ThrowsAsync<InvalidOperationException>(() => queue.AddAsync("x", CancellationToken.None));
            Assert.Equal(blocking.Message, asynchronous.Message);
        }

        [Fact]
        public async Task CancellationEndsAWaitingTakeAndAWaitingAdd()
        {
            using var empty = new BlockingCollection<string>(1);
            using var full = new BlockingCollection<string>(1);
            full.Add("occupied");
            using var cancel = new CancellationTokenSource();

            Task<string> take = empty.TakeAsync(cancel.Token);
            Task add = full.AddAsync("waiting", cancel.Token);
            Assert.False(take.IsCompleted);
            Assert.False(add.IsCompleted);

            cancel.Cancel();
            OperationCanceledException takeCancelled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => take.WaitAsync(Liveness));
            OperationCanceledException addCancelled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => add.WaitAsync(Liveness));
            Assert.Equal(cancel.Token, takeCancelled.CancellationToken);
            Assert.Equal(cancel.Token, addCancelled.CancellationToken);
            // Nothing was taken or added by the cancelled calls.
            Assert.Empty(empty);
            Assert.Equal(new[] { "occupied" }, full.ToArray());
        }

        [Fact]
        public async Task AnAlreadyCancelledTokenThrowsBeforeTouchingTheQueue()
        {
            using var queue = new BlockingCollection<string>(4);
            queue.Add("kept");
            using var cancel = new CancellationTokenSource();
            cancel.Cancel();

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => queue.TakeAsync(cancel.Token));
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => queue.AddAsync("not added", cancel.Token));
            Assert.Equal(new[] { "kept" }, queue.ToArray());
        }

        [Fact]
        public async Task AThreeStagePipelineOverSmallQueuesDeliversEveryItemOnceAndInOrder()
        {
            // The driver's shape: fetcher -> download queue -> downloader -> result queue -> reader, capacity 4 each
            // (upstream's prefetch count 2, doubled), the end marked by a guard item as upstream does.
            const int Items = 2_000;
            const string EndGuard = "end";
            using var downloadQueue = new BlockingCollection<string>(4);
            using var resultQueue = new BlockingCollection<string>(4);

            Task fetcher = Task.Run(async () =>
            {
                for (int i = 0; i < Items; i++)
                {
                    await downloadQueue.AddAsync("file-" + i, CancellationToken.None);
                }

                await downloadQueue.AddAsync(EndGuard, CancellationToken.None);
            });
            Task downloader = Task.Run(async () =>
            {
                while (await downloadQueue.TakeOrNullWhenCompletedAsync(CancellationToken.None) is string item)
                {
                    await resultQueue.AddAsync(item, CancellationToken.None);
                    if (item == EndGuard)
                    {
                        break;
                    }
                }
            });

            var read = new List<string>();
            while (true)
            {
                string item = await resultQueue.TakeAsync(CancellationToken.None).WaitAsync(Liveness);
                if (item == EndGuard)
                {
                    break;
                }

                read.Add(item);
            }

            await Task.WhenAll(fetcher, downloader).WaitAsync(Liveness);
            Assert.Equal(Enumerable.Range(0, Items).Select(i => "file-" + i), read);
            Assert.Empty(downloadQueue);
            Assert.Empty(resultQueue);
        }

        [Fact]
        public async Task ManyWaitersOnOneQueueEachGetOneDistinctItem()
        {
            const int Waiters = 16;
            using var queue = new BlockingCollection<int>(Waiters);
            Task<int>[] takes = Enumerable.Range(0, Waiters).Select(_ => queue.TakeAsync(CancellationToken.None)).ToArray();
            Assert.All(takes, t => Assert.False(t.IsCompleted));

            for (int i = 0; i < Waiters; i++)
            {
                await queue.AddAsync(i, CancellationToken.None);
            }

            int[] taken = await Task.WhenAll(takes).WaitAsync(Liveness);
            Assert.Equal(Enumerable.Range(0, Waiters), taken.OrderBy(v => v));
            Assert.Empty(queue);
        }
        [Fact]
        public async Task HundredsOfWaitersOnSeparateQueuesEachGetTheirOwnItem()
        {
            // Every queue has its own signal: an add wakes that queue's waiter, never another queue's.
            const int Waiters = 256;
            BlockingCollection<int>[] queues = Enumerable.Range(0, Waiters).Select(_ => new BlockingCollection<int>(1)).ToArray();
            try
            {
                Task<int>[] takes = queues.Select(q => q.TakeAsync(CancellationToken.None)).ToArray();
                for (int i = 0; i < Waiters; i++)
                {
                    await queues[i].AddAsync(i, CancellationToken.None);
                }

                Assert.Equal(Enumerable.Range(0, Waiters), await Task.WhenAll(takes).WaitAsync(Liveness));
            }
            finally
            {
                foreach (BlockingCollection<int> queue in queues)
                {
                    queue.Dispose();
                }
            }
        }

        [Fact]
        public async Task IdleWaitersNeverWakeUntilTheirQueueChanges()
        {
            // An observation window, not a speed bound: a waiter that woke on a timer of its own would show here.
            const int Waiters = 100;
            BlockingCollection<string>[] empty = Enumerable.Range(0, Waiters).Select(_ => new BlockingCollection<string>(2)).ToArray();
            BlockingCollection<string>[] full = Enumerable.Range(0, Waiters).Select(_ => new BlockingCollection<string>(1)).ToArray();
            try
            {
                Array.ForEach(full, queue => queue.Add("occupied"));
                Task<string>[] takes = empty.Select(queue => queue.TakeAsync(CancellationToken.None)).ToArray();
                Task[] adds = full.Select(queue => queue.AddAsync("waiting", CancellationToken.None)).ToArray();
                await Task.Delay(TimeSpan.FromSeconds(1));

                Assert.All(takes, take => Assert.False(take.IsCompleted));
                Assert.All(adds, add => Assert.False(add.IsCompleted));
                Assert.All(empty, queue => Assert.Equal(0, BlockingQueueAsyncWaits.WakeUps(queue)));
                Assert.All(full, queue => Assert.Equal(0, BlockingQueueAsyncWaits.WakeUps(queue)));

                // One change each: each waiter wakes once and finishes.
                for (int i = 0; i < Waiters; i++)
                {
                    await empty[i].AddAsync($"item {i}", CancellationToken.None);
                    Assert.Equal("occupied", await full[i].TakeAsync(CancellationToken.None));
                }

                Assert.Equal(Enumerable.Range(0, Waiters).Select(i => $"item {i}"), await Task.WhenAll(takes).WaitAsync(Liveness));
                await Task.WhenAll(adds).WaitAsync(Liveness);
                Assert.All(empty, queue => Assert.Equal(1, BlockingQueueAsyncWaits.WakeUps(queue)));
                Assert.All(full, queue => Assert.Equal(new[] { "waiting" }, queue.ToArray()));
            }
            finally
            {
                Array.ForEach(empty, queue => queue.Dispose());
                Array.ForEach(full, queue => queue.Dispose());
            }
        }

        [Fact]
        public async Task CompleteAddingAndWakeEndsEveryWaiterOfTheQueue()
        {
            using var queue = new BlockingCollection<string>(1);
            Task<string?>[] takes = Enumerable.Range(0, 4).Select(_ => queue.TakeOrNullWhenCompletedAsync(CancellationToken.None)).ToArray();

            queue.CompleteAddingAndWake();

            Assert.All(await Task.WhenAll(takes).WaitAsync(Liveness), Assert.Null);
            Assert.True(queue.IsCompleted);
            Assert.Throws<InvalidOperationException>(() => queue.Add("late"));
        }

        public static TheoryData<bool> ShutdownOrders() => new TheoryData<bool> { false, true };

        [Theory]
        [MemberData(nameof(ShutdownOrders))]
        public async Task AQueueShutDownUnderItsWaitersEndsThemAsEndOfResultsOrCancellationNeverObjectDisposed(bool wake)
        {
            // The download manager's shutdown while a reader waits: complete, drain, dispose, right after one another.
            var empty = new BlockingCollection<string>(2);
            var full = new BlockingCollection<string>(1);
            full.Add("queued");
            Task<string?> takeOrNull = empty.TakeOrNullWhenCompletedAsync(CancellationToken.None);
            Task<string> take = empty.TakeAsync(CancellationToken.None);
            Task add = full.AddAsync("waiting", CancellationToken.None);

            foreach (BlockingCollection<string> queue in new[] { empty, full })
            {
                if (wake)
                {
                    queue.CompleteAddingAndWake();
                }
                else
                {
                    queue.CompleteAdding();
                }

                foreach (string drained in queue.GetConsumingEnumerable(CancellationToken.None))
                {
                    Assert.Equal("queued", drained);
                }

                queue.Dispose();
            }

            Assert.Null(await takeOrNull.WaitAsync(Liveness));
            // Seen complete before the dispose: the blocking Take's InvalidOperationException; after it: cancellation.
            Exception takeEnded = await Assert.ThrowsAnyAsync<Exception>(() => take.WaitAsync(Liveness));
            Assert.True(takeEnded is InvalidOperationException || takeEnded is OperationCanceledException, $"TakeAsync ended with {takeEnded}");
            Assert.IsNotType<ObjectDisposedException>(takeEnded);
            Exception addEnded = await Assert.ThrowsAnyAsync<Exception>(() => add.WaitAsync(Liveness));
            Assert.True(addEnded is InvalidOperationException || addEnded is OperationCanceledException, $"AddAsync ended with {addEnded}");
            Assert.IsNotType<ObjectDisposedException>(addEnded);
        }

        [Fact]
        public async Task CallingOnAnAlreadyDisposedQueueThrowsObjectDisposedAsTheBlockingMethods()
        {
            var queue = new BlockingCollection<string>(1);
            queue.Dispose();
            Assert.Throws<ObjectDisposedException>(() => queue.Take());
            await Assert.ThrowsAsync<ObjectDisposedException>(() => queue.TakeAsync(CancellationToken.None));
            await Assert.ThrowsAsync<ObjectDisposedException>(() => queue.AddAsync("x", CancellationToken.None));
        }
    }
}
