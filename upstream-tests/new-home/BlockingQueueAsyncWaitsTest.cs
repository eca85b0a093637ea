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
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The CloudFetch queues' asynchronous waits (<see cref="BlockingQueueAsyncWaits"/>): a take from an empty queue or
    /// an add to a full one returns a pending task instead of blocking, and ends when the queue changes, when it is
    /// completed, or when the wait is cancelled, with the blocking methods' semantics.
    /// </summary>
    public class BlockingQueueAsyncWaitsTest
    {
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
            string taken = await queue.TakeAsync(CancellationToken.None);

            // Assert
            Assert.True(pendingBeforeTheTake, "the add returned while the queue was full");
            Assert.Equal("a", taken);
            await WithinAsync(add, Liveness, "the add");
            Assert.Equal(new[] { "b", "c" }, queue.ToArray());
        }

        [Fact]
        public async Task TakeAsync_ItemAddedWithTheBlockingAdd_IsSeen()
        {
            // Upstream's tests and code outside the series fill the queues with the blocking Add, which does not signal.
            using BlockingCollection<string> queue = new BlockingCollection<string>(4);
            Task<string> take = queue.TakeAsync(CancellationToken.None);

            queue.Add("added-blocking");

            Assert.Equal("added-blocking", await WithinAsync(take, Liveness, "the take"));
        }

        [Fact]
        public async Task TakeOrNullWhenCompletedAsync_QueueCompletedWhileWaiting_ReturnsNull()
        {
            // Arrange
            using BlockingCollection<string> queue = new BlockingCollection<string>(4);
            Task<string?> take = queue.TakeOrNullWhenCompletedAsync(CancellationToken.None);

            // Act: the plain CompleteAdding (code outside the series may call it)
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
        }

        [Fact]
        public async Task TakeAsyncAndAddAsync_CompletedQueue_ThrowAsTheBlockingMethods()
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
        public async Task TakeAsync_QueueShutDownUnderTheWaiter_EndsAsCancellationOrEndNeverObjectDisposed()
        {
            // Arrange: the download manager's shutdown while a reader waits: complete, drain, dispose in a row
            BlockingCollection<string> queue = new BlockingCollection<string>(2);
            Task<string?> takeOrNull = queue.TakeOrNullWhenCompletedAsync(CancellationToken.None);
            Task<string> take = queue.TakeAsync(CancellationToken.None);

            // Act
            queue.CompleteAddingAndWake();
            queue.Dispose();

            // Assert
            Assert.Null(await WithinAsync(takeOrNull, Liveness, "the take-or-null"));
            Exception ended = await Assert.ThrowsAnyAsync<Exception>(() => WithinAsync(take, Liveness, "the take"));
            Assert.True(ended is InvalidOperationException || ended is OperationCanceledException, $"TakeAsync ended with {ended}");
            Assert.IsNotType<ObjectDisposedException>(ended);
        }
    }
}
