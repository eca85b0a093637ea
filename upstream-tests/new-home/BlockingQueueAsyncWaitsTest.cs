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
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The CloudFetch queues' asynchronous waits (<see cref="BlockingQueueAsyncWaits"/>): a take from an empty queue or
    /// an add to a full one returns a pending task instead of blocking, and ends when the queue changes (through these
    /// methods or, found by the sweep, the blocking ones), when it is completed, or when the wait is cancelled, with the
    /// blocking methods' semantics; a waiter never wakes while its queue does not change, and a queue shut down under a
    /// waiter ends the wait as shutdown, never with <see cref="ObjectDisposedException"/>.
    /// </summary>
    public class BlockingQueueAsyncWaitsTest
    {
        public static TheoryData<bool> ShutdownWithWake() => new TheoryData<bool> { false, true };

        [Fact]
        public async Task TakeAsync_EmptyQueue_ReturnsAPendingTaskThatTheNextAddCompletes()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(4);

            // Act
            Task<string> take = queue.TakeAsync(CancellationToken.None);
            bool pendingBeforeTheAdd = !take.IsCompleted;
            await queue.AddAsync("file-0", CancellationToken.None);

            // Assert
            Assert.True(pendingBeforeTheAdd, "the take returned before there was an item");
            Assert.Equal("file-0", await WithinAsync(take, Liveness, "the take"));
            Assert.Empty(queue);
        }

        [Fact]
        public async Task AddAsync_FullQueue_ReturnsAPendingTaskThatATakeCompletes()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(2);
            await queue.AddAsync("a", CancellationToken.None);
            await queue.AddAsync("b", CancellationToken.None);

            // Act
            Task add = queue.AddAsync("c", CancellationToken.None);
            bool pendingBeforeTheTake = !add.IsCompleted;
            int countWhileWaiting = queue.Count;
            string taken = await queue.TakeAsync(CancellationToken.None);

            // Assert
            Assert.True(pendingBeforeTheTake, "the add returned while the queue was full");
            Assert.Equal(2, countWhileWaiting);
            Assert.Equal("a", taken);
            await WithinAsync(add, Liveness, "the add");
            Assert.Equal(new[] { "b", "c" }, queue.ToArray());
        }

        [Fact]
        public async Task TakeAsync_ItemAddedWithTheBlockingAdd_IsSeen()
        {
            // Arrange: upstream's tests and code outside the series fill the queues with the blocking Add, which does not signal
            using BlockingCollection<string> queue = new BlockingCollection<string>(4);
            Task<string> take = queue.TakeAsync(CancellationToken.None);
            Assert.False(take.IsCompleted);

            // Act
            queue.Add("added-blocking");

            // Assert
            Assert.Equal("added-blocking", await WithinAsync(take, Liveness, "the take"));
        }

        [Fact]
        public async Task AddAsync_RoomMadeWithTheBlockingTake_IsSeen()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(1);
            queue.Add("first");
            Task add = queue.AddAsync("second", CancellationToken.None);
            Assert.False(add.IsCompleted);

            // Act
            string taken = queue.Take();

            // Assert
            Assert.Equal("first", taken);
            await WithinAsync(add, Liveness, "the add");
            Assert.Equal("second", queue.Take());
        }

        [Fact]
        public async Task TakeOrNullWhenCompletedAsync_QueueCompletedWhileWaiting_ReturnsNull()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(4);
            Task<string?> take = queue.TakeOrNullWhenCompletedAsync(CancellationToken.None);
            Assert.False(take.IsCompleted);

            // Act: the plain CompleteAdding, which does not signal (code outside the series may call it): the sweep finds it
            queue.CompleteAdding();

            // Assert
            Assert.Null(await WithinAsync(take, Liveness, "the take"));
        }

        [Fact]
        public async Task CompleteAddingAndWake_SeveralWaiters_EndsEveryWaitAsEndOfResults()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(1);
            Task<string?>[] takes = Enumerable.Range(0, 4).Select(_ => queue.TakeOrNullWhenCompletedAsync(CancellationToken.None)).ToArray();

            // Act
            queue.CompleteAddingAndWake();

            // Assert
            Assert.All(await WithinAsync(Task.WhenAll(takes), Liveness, "the takes"), Assert.Null);
            Assert.True(queue.IsCompleted);
            Assert.Throws<InvalidOperationException>(() => queue.Add("late"));
        }

        [Fact]
        public async Task TakeAsyncAndAddAsync_CompletedQueue_HandOutWhatIsLeftThenThrowAsTheBlockingMethods()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(4);
            await queue.AddAsync("last", CancellationToken.None);
            queue.CompleteAdding();

            // Act
            string last = await queue.TakeAsync(CancellationToken.None);

            // Assert
            Assert.Equal("last", last);
            InvalidOperationException blockingTake = Assert.Throws<InvalidOperationException>(() => queue.Take());
            InvalidOperationException asyncTake = await Assert.ThrowsAsync<InvalidOperationException>(() => queue.TakeAsync(CancellationToken.None));
            Assert.Equal(blockingTake.Message, asyncTake.Message);
            Assert.Null(await queue.TakeOrNullWhenCompletedAsync(CancellationToken.None));
            InvalidOperationException blockingAdd = Assert.Throws<InvalidOperationException>(() => queue.Add("x"));
            InvalidOperationException asyncAdd = await Assert.ThrowsAsync<InvalidOperationException>(() => queue.AddAsync("x", CancellationToken.None));
            Assert.Equal(blockingAdd.Message, asyncAdd.Message);
        }

        [Fact]
        public async Task TakeAsyncAndAddAsync_CancelledWhileWaiting_EndWithoutTakingOrAdding()
        {
            // Arrange
            using BlockingCollection<string> empty = new BlockingCollection<string>(1);
            using BlockingCollection<string> full = new BlockingCollection<string>(1);
            full.Add("occupied");
            using CancellationTokenSource cancel = new CancellationTokenSource();
            Task<string> take = empty.TakeAsync(cancel.Token);
            Task add = full.AddAsync("waiting", cancel.Token);
            Assert.False(take.IsCompleted);
            Assert.False(add.IsCompleted);

            // Act
            cancel.Cancel();

            // Assert
            OperationCanceledException takeCancelled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(take, Liveness, "the take"));
            OperationCanceledException addCancelled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(add, Liveness, "the add"));
            Assert.Equal(cancel.Token, takeCancelled.CancellationToken);
            Assert.Equal(cancel.Token, addCancelled.CancellationToken);
            Assert.Empty(empty);
            Assert.Equal(new[] { "occupied" }, full.ToArray());
        }

        [Fact]
        public async Task TakeAsyncAndAddAsync_TokenAlreadyCancelled_ThrowBeforeTouchingTheQueue()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(4);
            queue.Add("kept");
            using CancellationTokenSource cancel = new CancellationTokenSource();
            cancel.Cancel();

            // Act and Assert
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => queue.TakeAsync(cancel.Token));
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => queue.AddAsync("not added", cancel.Token));
            Assert.Equal(new[] { "kept" }, queue.ToArray());
        }

        [Fact]
        public async Task TakeAsyncAndAddAsync_DisposedQueue_ThrowObjectDisposedAsTheBlockingMethods()
        {
            // Arrange
            BlockingCollection<string> queue = new BlockingCollection<string>(1);

            // Act
            queue.Dispose();

            // Assert
            Assert.Throws<ObjectDisposedException>(() => queue.Take());
            await Assert.ThrowsAsync<ObjectDisposedException>(() => queue.TakeAsync(CancellationToken.None));
            await Assert.ThrowsAsync<ObjectDisposedException>(() => queue.AddAsync("x", CancellationToken.None));
        }

        [Theory]
        [MemberData(nameof(ShutdownWithWake))]
        public async Task TakeAsyncAndAddAsync_QueueShutDownUnderTheWaiters_EndAsEndOfResultsOrCancellationNeverObjectDisposed(bool wake)
        {
            // Arrange: the download manager's shutdown while a reader waits: complete, drain, dispose, right after one another
            BlockingCollection<string> empty = new BlockingCollection<string>(2);
            BlockingCollection<string> full = new BlockingCollection<string>(1);
            full.Add("queued");
            Task<string?> takeOrNull = empty.TakeOrNullWhenCompletedAsync(CancellationToken.None);
            Task<string> take = empty.TakeAsync(CancellationToken.None);
            Task add = full.AddAsync("waiting", CancellationToken.None);

            // Act
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

            // Assert: seen complete before the dispose, the blocking method's InvalidOperationException; after it, cancellation
            Assert.Null(await WithinAsync(takeOrNull, Liveness, "the take-or-null"));
            Exception takeEnded = await Assert.ThrowsAnyAsync<Exception>(() => WithinAsync(take, Liveness, "the take"));
            Assert.True(takeEnded is InvalidOperationException || takeEnded is OperationCanceledException, $"TakeAsync ended with {takeEnded}");
            Assert.IsNotType<ObjectDisposedException>(takeEnded);
            Exception addEnded = await Assert.ThrowsAnyAsync<Exception>(() => WithinAsync(add, Liveness, "the add"));
            Assert.True(addEnded is InvalidOperationException || addEnded is OperationCanceledException, $"AddAsync ended with {addEnded}");
            Assert.IsNotType<ObjectDisposedException>(addEnded);
        }

        [Fact]
        public async Task TakeAsyncAndAddAsync_ThreeStagePipelineOverSmallQueues_DeliverEveryItemOnceAndInOrder()
        {
            // Arrange: the driver's shape: fetcher -> download queue -> downloader -> result queue -> reader, capacity 4
            // each (upstream's prefetch count 2, doubled), the end marked by a guard item as upstream does
            const int Items = 2_000;
            const string EndGuard = "end";
            using BlockingCollection<string> downloadQueue = new BlockingCollection<string>(4);
            using BlockingCollection<string> resultQueue = new BlockingCollection<string>(4);
            List<string> read = new List<string>();

            // Act
            Task fetcher = Task.Run(async () =>
            {
                for (int i = 0; i < Items; i++)
                {
                    await downloadQueue.AddAsync("file-" + i, CancellationToken.None).ConfigureAwait(false);
                }

                await downloadQueue.AddAsync(EndGuard, CancellationToken.None).ConfigureAwait(false);
            });
            Task downloader = Task.Run(async () =>
            {
                string? item;
                while ((item = await downloadQueue.TakeOrNullWhenCompletedAsync(CancellationToken.None).ConfigureAwait(false)) != null)
                {
                    await resultQueue.AddAsync(item, CancellationToken.None).ConfigureAwait(false);
                    if (item == EndGuard)
                    {
                        break;
                    }
                }
            });
            while (true)
            {
                string item = await WithinAsync(resultQueue.TakeAsync(CancellationToken.None), Liveness, "the reader's take");
                if (item == EndGuard)
                {
                    break;
                }

                read.Add(item);
            }

            // Assert
            await WithinAsync(Task.WhenAll(fetcher, downloader), Liveness, "the fetcher and the downloader");
            Assert.Equal(Enumerable.Range(0, Items).Select(i => "file-" + i), read);
            Assert.Empty(downloadQueue);
            Assert.Empty(resultQueue);
        }

        [Fact]
        public async Task TakeAsync_ManyWaitersOnOneQueue_EachGetsOneDistinctItem()
        {
            // Arrange
            const int Waiters = 16;
            using BlockingCollection<int> queue = new BlockingCollection<int>(Waiters);
            Task<int>[] takes = Enumerable.Range(0, Waiters).Select(_ => queue.TakeAsync(CancellationToken.None)).ToArray();
            Assert.All(takes, take => Assert.False(take.IsCompleted));

            // Act
            for (int i = 0; i < Waiters; i++)
            {
                await queue.AddAsync(i, CancellationToken.None);
            }

            // Assert
            int[] taken = await WithinAsync(Task.WhenAll(takes), Liveness, "the takes");
            Assert.Equal(Enumerable.Range(0, Waiters), taken.OrderBy(value => value));
            Assert.Empty(queue);
        }

        [Fact]
        public async Task TakeAsync_HundredsOfWaitersOnSeparateQueues_EachGetsItsOwnItem()
        {
            // Arrange: every queue has its own signal: an add wakes that queue's waiter, never another queue's
            const int Waiters = 256;
            BlockingCollection<int>[] queues = Enumerable.Range(0, Waiters).Select(_ => new BlockingCollection<int>(1)).ToArray();
            try
            {
                Task<int>[] takes = queues.Select(queue => queue.TakeAsync(CancellationToken.None)).ToArray();

                // Act
                for (int i = 0; i < Waiters; i++)
                {
                    await queues[i].AddAsync(i, CancellationToken.None);
                }

                // Assert
                Assert.Equal(Enumerable.Range(0, Waiters), await WithinAsync(Task.WhenAll(takes), Liveness, "the takes"));
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
        public async Task TakeAsyncAndAddAsync_IdleWaiters_NeverWakeUntilTheirQueueChanges()
        {
            // Arrange: an observation window, not a speed bound: a waiter that woke on a timer of its own would show here
            const int Waiters = 100;
            BlockingCollection<string>[] empty = Enumerable.Range(0, Waiters).Select(_ => new BlockingCollection<string>(2)).ToArray();
            BlockingCollection<string>[] full = Enumerable.Range(0, Waiters).Select(_ => new BlockingCollection<string>(1)).ToArray();
            try
            {
                Array.ForEach(full, queue => queue.Add("occupied"));
                Task<string>[] takes = empty.Select(queue => queue.TakeAsync(CancellationToken.None)).ToArray();
                Task[] adds = full.Select(queue => queue.AddAsync("waiting", CancellationToken.None)).ToArray();

                // Act
                await Task.Delay(TimeSpan.FromSeconds(1));

                // Assert
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

                Assert.Equal(Enumerable.Range(0, Waiters).Select(i => $"item {i}"), await WithinAsync(Task.WhenAll(takes), Liveness, "the takes"));
                await WithinAsync(Task.WhenAll(adds), Liveness, "the adds");
                Assert.All(empty, queue => Assert.Equal(1, BlockingQueueAsyncWaits.WakeUps(queue)));
                Assert.All(full, queue => Assert.Equal(new[] { "waiting" }, queue.ToArray()));
            }
            finally
            {
                Array.ForEach(empty, queue => queue.Dispose());
                Array.ForEach(full, queue => queue.Dispose());
            }
        }
    }
}
