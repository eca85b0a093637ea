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
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// One reader's adaptive prefetch: the files it lets ahead of the reader, what the reader's takes and the downloads'
    /// completions change, what its meter shows, and how a body is paid for: the first file ahead of the reader whole, every
    /// other download as its bytes arrive, both within the budget until the reader takes the file and waits for it.
    /// </summary>
    public class AdaptivePrefetchTest
    {
        private long _now;

        [Fact]
        public async Task StartAsync_FilesAheadOfTheReader_StartsOnlyWhileFewerThanTheWindow()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            object[] files = { "file 0", "file 1", "file 2" };
            for (int i = 0; i < 2; i++)
            {
                await prefetch.StartAsync(files[i], MiB, CancellationToken.None);
            }

            // Act and Assert
            Task third = prefetch.StartAsync(files[2], MiB, CancellationToken.None);
            prefetch.Ended(files[0], completed: true); // downloaded, still ahead of the reader
            Assert.Equal((2, 1, 1), (prefetch.Limit, prefetch.InFlight, prefetch.Waiting));
            Assert.False(third.IsCompleted, "a third file started while two were ahead of the reader");

            prefetch.Taken(files[0], ready: true);
            await WithinAsync(third, Liveness, "the third file's start");
            Assert.Equal((2, 0), (prefetch.InFlight, prefetch.Waiting));
        }

        [Fact]
        public async Task Taken_ReaderFindsFilesWaiting_NarrowsTheWindowToOneFileAhead()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            List<object> files = new List<object>();
            for (int i = 0; i < 2; i++)
            {
                files.Add($"file {i}");
                await prefetch.StartAsync(files[i], MiB, CancellationToken.None);
                prefetch.Ended(files[i], completed: true);
            }

            // Act and Assert
            prefetch.Taken(files[0], ready: true); // two were waiting

            Assert.Equal(1, prefetch.Limit);
            Assert.Equal(1, prefetch.Waiting);
            Task next = prefetch.StartAsync("file 2", MiB, CancellationToken.None);
            Assert.False(next.IsCompleted, "a download started while a file waited and the window is one");
            prefetch.Taken(files[1], ready: true);
            await WithinAsync(next, Liveness, "the next file's start");
        }

        [Fact]
        public async Task Meter_FilesInFlightWaitingAndTheWindow_ShownAndBackToZeroOnDispose()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            int scope = lease.Scope.Id;
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            await prefetch.StartAsync("a", MiB, CancellationToken.None);
            await prefetch.StartAsync("b", MiB, CancellationToken.None);
            prefetch.Ended("a", completed: true);

            // Act and Assert
            Assert.Equal(1, metrics.Sum(scope, DatabricksMemoryMetricNames.PrefetchInFlight));
            Assert.Equal(1, metrics.Sum(scope, DatabricksMemoryMetricNames.PrefetchWaiting));
            Assert.Equal(2, metrics.Sum(scope, DatabricksMemoryMetricNames.PrefetchWindow));

            prefetch.Dispose();
            prefetch.Dispose();
            Assert.Equal(0, metrics.Sum(scope, DatabricksMemoryMetricNames.PrefetchInFlight));
            Assert.Equal(0, metrics.Sum(scope, DatabricksMemoryMetricNames.PrefetchWaiting));
            Assert.Equal(0, metrics.Sum(scope, DatabricksMemoryMetricNames.PrefetchWindow));
        }

        [Fact]
        public async Task StartAsync_WaitCancelledOrPipelineDisposed_EndsTheWait()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            AdaptivePrefetch prefetch = new AdaptivePrefetch(lease.Scope, account, maxFiles: 1, Clock);
            await prefetch.StartAsync("a", MiB, CancellationToken.None);
            using CancellationTokenSource cancel = new CancellationTokenSource();

            // Act and Assert
            Task cancelled = prefetch.StartAsync("b", MiB, cancel.Token);
            cancel.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(cancelled, Liveness, "the cancelled wait to start"));

            Task closed = prefetch.StartAsync("b", MiB, CancellationToken.None);
            prefetch.Dispose();
            await Assert.ThrowsAsync<ObjectDisposedException>(() => WithinAsync(closed, Liveness, "the wait to start ended by Dispose"));
            await Assert.ThrowsAsync<ObjectDisposedException>(() => prefetch.StartAsync("c", MiB, CancellationToken.None));
        }

        [Fact]
        public async Task ReadContentAsync_TheNextFile_ChargedWholeBeforeItsBodyAndExactlyItsSizeWhenRead()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            MemoryBudget budget = lease.Scope.Budget;
            using MemoryBudgetAccount account = budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            byte[] body = Compressible(3 * MiB + 5, seed: 1);
            GatedContent content = new GatedContent(body, openUpTo: 100_000);
            await prefetch.StartAsync("next", body.Length, CancellationToken.None);

            // Act and Assert
            Task<PooledBuffer> read = prefetch.ReadContentAsync("next", content, CancellationToken.None);
            await WithinAsync(content.AtGate, Liveness, "the read reaching its gate");
            Assert.Equal(body.Length, account.Held);

            content.Open(int.MaxValue);
            using PooledBuffer buffer = await ReadWholeAsync(read, body, "the body read");
            Assert.Equal(body.Length, account.Held);
        }

        [Fact]
        public async Task ReadContentAsync_ALaterFile_ChargedWholeBeforeItsFirstByte()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            await prefetch.StartAsync("next", 10, CancellationToken.None); // the first file ahead, not read here
            byte[] body = Compressible(8 * MiB + 123, seed: 2);
            GatedContent content = new GatedContent(body, openUpTo: 0);
            await prefetch.StartAsync("later", body.Length, CancellationToken.None);

            // Act and Assert
            Task<PooledBuffer> read = prefetch.ReadContentAsync("later", content, CancellationToken.None);
            await WithinAsync(content.AtGate, Liveness, "the read reaching its gate");
            Assert.Equal(body.Length, account.Held); // one pooled array for the whole body: charged whole

            content.Open(int.MaxValue);
            using PooledBuffer buffer = await ReadWholeAsync(read, body, "the body read");
            Assert.Equal(body.Length, account.Held); // exactly its size, what its result gives back
        }

        [Fact]
        public async Task ReadContentAsync_FileLargerThanTheReadersLimit_WaitsUntilTakenThenReadOverTheLimit()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(2 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            byte[] body = Compressible(3 * MiB, seed: 7);
            GatedContent content = new GatedContent(body, openUpTo: int.MaxValue);
            await prefetch.StartAsync("large", body.Length, CancellationToken.None);

            // Act and Assert
            Task<PooledBuffer> read = prefetch.ReadContentAsync("large", content, CancellationToken.None);
            await Task.Delay(50);
            Assert.False(read.IsCompleted); // no grant could ever fit 3 MiB into 2
            Assert.Equal(0, content.Delivered);

            prefetch.Taken("large", ready: false);
            using PooledBuffer buffer = await ReadWholeAsync(read, body, "the body read");
            Assert.Equal(body.Length, account.Held);
        }

        [Fact]
        public async Task ReadContentAsync_FirstFileAheadWhileTheReaderHoldsAnother_WaitsForTheBudgetUntilTaken()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "4"));
            MemoryBudget budget = lease.Scope.Budget;
            using MemoryBudgetAccount other = budget.OpenAccount(200 * MiB);
            using MemoryBudgetAccount account = budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            Assert.True(other.TryAcquire(3 * MiB)); // another reader of the database holds most of it
            byte[] file = Compressible(2 * MiB, seed: 3);
            await prefetch.StartAsync("first", file.Length, CancellationToken.None);
            prefetch.Taken("first", ready: false); // the reader waits for it: taken over the limit
            (await WithinAsync(prefetch.ReadContentAsync("first", new GatedContent(file, int.MaxValue), CancellationToken.None), Liveness, "the body read")).Dispose();
            prefetch.Ended("first", completed: true);
            await prefetch.StartAsync("second", file.Length, CancellationToken.None);
            GatedContent content = new GatedContent(file, int.MaxValue);

            // Act and Assert
            Task<PooledBuffer> second = prefetch.ReadContentAsync("second", content, CancellationToken.None);
            await UntilAsync(() => budget.Waiters == 1, Liveness, "a download waiting for the budget"); // the reader still holds the first file: 5 + 2 MiB would not fit in 4
            Assert.Equal(0, content.Delivered);

            prefetch.Taken("second", ready: false); // the reader waits for it
            using PooledBuffer buffer = await ReadWholeAsync(second, file, "the second file's read");
            Assert.Equal(2 * file.Length, account.Held);
            Assert.Equal(0, budget.Waiters);
        }

        [Fact]
        public async Task ReadContentAsync_FileAheadOfTheOneTheReaderWaitsFor_WaitsForTheBudgetAlthoughNothingIsHeld()
        {
            // Arrange: the budget's one-file rule would grant it over the limit, and the file the reader waits for after it: two
            // files beyond the budget. Only the reader's next file goes over.
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "4"));
            MemoryBudget budget = lease.Scope.Budget;
            using MemoryBudgetAccount other = budget.OpenAccount(200 * MiB);
            using MemoryBudgetAccount account = budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            Assert.True(other.TryAcquire(4 * MiB));
            byte[] next = Compressible(2 * MiB, seed: 8);
            byte[] ahead = Compressible(2 * MiB, seed: 9);
            GatedContent aheadContent = new GatedContent(ahead, int.MaxValue);
            await prefetch.StartAsync("next", next.Length, CancellationToken.None);
            await prefetch.StartAsync("ahead", ahead.Length, CancellationToken.None);

            // Act and Assert
            Task<PooledBuffer> aheadRead = prefetch.ReadContentAsync("ahead", aheadContent, CancellationToken.None);
            await UntilAsync(() => budget.Waiters == 1, Liveness, "a download waiting for the budget");
            Assert.Equal(0, account.Held);
            Assert.Equal(0, aheadContent.Delivered);

            prefetch.Taken("next", ready: false);
            (await ReadWholeAsync(prefetch.ReadContentAsync("next", new GatedContent(next, int.MaxValue), CancellationToken.None), next, "the next file's read")).Dispose();

            Assert.Equal(next.Length, account.Held); // over the database's limit: the file the reader waits for
            Assert.False(aheadRead.IsCompleted);

            other.Release(4 * MiB);
            using PooledBuffer aheadBuffer = await ReadWholeAsync(aheadRead, ahead, "the read ahead");
        }

        [Fact]
        public async Task ReadContentAsync_ALaterDownload_WaitsForTheBudgetBeforeItsFirstByte()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "4"));
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            byte[] first = Compressible(3 * MiB, seed: 3);
            byte[] second = Compressible(3 * MiB, seed: 4);
            GatedContent secondContent = new GatedContent(second, openUpTo: int.MaxValue);
            await prefetch.StartAsync("first", first.Length, CancellationToken.None);
            await prefetch.StartAsync("second", second.Length, CancellationToken.None);

            // Act and Assert
            PooledBuffer firstBuffer = await WithinAsync(prefetch.ReadContentAsync("first", new GatedContent(first, int.MaxValue), CancellationToken.None), Liveness, "the body read");
            prefetch.Ended("first", completed: true);
            Task<PooledBuffer> secondRead = prefetch.ReadContentAsync("second", secondContent, CancellationToken.None);
            await UntilAsync(() => lease.Scope.Budget.Waiters == 1, Liveness, "a download waiting for the budget"); // 3 + 3 MiB would not fit in 4
            Assert.Equal(0, secondContent.Delivered);
            Assert.Equal(first.Length, account.Held);

            prefetch.Taken("first", ready: true);
            firstBuffer.Dispose();
            account.Release(first.Length); // the reader is done with it: the second fits now
            using PooledBuffer secondBuffer = await ReadWholeAsync(secondRead, second, "the second file's read");
            Assert.Equal(second.Length, account.Held);
        }

        [Fact]
        public async Task ReadContentAsync_ReaderNotRead_HoldsNoMoreThanTheBudgetAllows()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "4"));
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            byte[] file = Compressible(3 * MiB, seed: 5);
            await prefetch.StartAsync("first", file.Length, CancellationToken.None);
            using (PooledBuffer unused = await WithinAsync(prefetch.ReadContentAsync("first", new GatedContent(file, int.MaxValue), CancellationToken.None), Liveness, "the body read"))
            {
                prefetch.Ended("first", completed: true); // downloaded; the application does not read the reader
            }

            // Act and Assert
            await prefetch.StartAsync("second", file.Length, CancellationToken.None);
            GatedContent secondContent = new GatedContent(file, int.MaxValue);
            Task<PooledBuffer> second = prefetch.ReadContentAsync("second", secondContent, CancellationToken.None);

            await UntilAsync(() => lease.Scope.Budget.Waiters == 1, Liveness, "a download waiting for the budget");
            Assert.Equal(file.Length, account.Held); // the first file: 3 + 3 MiB would not fit in 4
            Assert.Equal(0, secondContent.Delivered);
            prefetch.Dispose();
            account.Dispose(); // the reader's pipeline disposed: the wait ends
            await Assert.ThrowsAnyAsync<ObjectDisposedException>(() => WithinAsync(second, Liveness, "the second file's read"));
        }

        [Fact]
        public async Task ReadContentAsync_BodyReadFails_GivesBackWhatItWasCharged()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            byte[] body = Compressible(3 * MiB, seed: 6);
            await prefetch.StartAsync("next", body.Length, CancellationToken.None);
            await prefetch.StartAsync("later", body.Length, CancellationToken.None);
            using CancellationTokenSource cancel = new CancellationTokenSource();
            GatedContent nextContent = new GatedContent(body, openUpTo: MiB);
            GatedContent laterContent = new GatedContent(body, openUpTo: MiB + 1);

            // Act and Assert
            Task<PooledBuffer> next = prefetch.ReadContentAsync("next", nextContent, cancel.Token);
            Task<PooledBuffer> later = prefetch.ReadContentAsync("later", laterContent, cancel.Token);
            await WithinAsync(Task.WhenAll(nextContent.AtGate, laterContent.AtGate), Liveness, "both reads at their gates");
            cancel.Cancel();

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(next, Liveness, "the next file's read"));
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(later, Liveness, "the later file's read"));
            Assert.Equal(0, account.Held);
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [Fact]
        public async Task ReadContentAsync_RetryAfterAnAttemptCancelledWaitingForTheBudget_WaitsAgainAndCompletes()
        {
            // Arrange: the downloader cancels one attempt (a straggler, a body timeout) and retries with a new token: the retry must
            // wait for the budget as the first attempt did, not fail at once because that attempt's cancellation ended it.
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "4"));
            using MemoryBudgetAccount other = lease.Scope.Budget.OpenAccount(200 * MiB);
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);
            using AdaptivePrefetch prefetch = NewPrefetch(lease.Scope, account);
            Assert.True(other.TryAcquire(3 * MiB));
            byte[] first = Compressible(MiB, seed: 6);
            byte[] body = Compressible(2 * MiB, seed: 7);
            await prefetch.StartAsync("first", first.Length, CancellationToken.None);
            await prefetch.StartAsync("later", body.Length, CancellationToken.None);
            using PooledBuffer firstBuffer = await WithinAsync(prefetch.ReadContentAsync("first", new GatedContent(first, int.MaxValue), CancellationToken.None), Liveness, "the body read");

            // Act and Assert
            using (CancellationTokenSource attempt = new CancellationTokenSource())
            {
                Task<PooledBuffer> cancelled = prefetch.ReadContentAsync("later", new GatedContent(body, int.MaxValue), attempt.Token);
                await UntilAsync(() => lease.Scope.Budget.Waiters == 1, Liveness, "a download waiting for the budget");
                attempt.Cancel();
                await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(cancelled, Liveness, "the cancelled attempt"));
            }

            Task<PooledBuffer> retry = prefetch.ReadContentAsync("later", new GatedContent(body, int.MaxValue), CancellationToken.None);
            await UntilAsync(() => lease.Scope.Budget.Waiters == 1, Liveness, "a download waiting for the budget");
            Assert.False(retry.IsCompleted);

            other.Release(3 * MiB);
            using PooledBuffer buffer = await ReadWholeAsync(retry, body, "the retry");
            Assert.Equal(first.Length + body.Length, account.Held);
        }

        [Fact]
        public void ForReader_HostSettingsAndTheDatabasesSwitch_BoundItOrTurnItOff()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            using DatabricksMemoryLease off = CreateScope((DatabricksMemoryOptions.AdaptivePrefetchKey, "false"));
            using MemoryBudgetAccount account = lease.Scope.Budget.OpenAccount(200 * MiB);

            // Act and Assert
            Assert.Null(AdaptivePrefetch.ForReader(off.Scope, account, null, null));
            Assert.Equal(PrefetchRule.DefaultMaxFiles, MaxFiles(null, null));
            Assert.Equal(5, MaxFiles(5, null));
            Assert.Equal(32, MaxFiles(32, null));
            Assert.Equal(4, MaxFiles(null, 2));
            Assert.Equal(2, MaxFiles(3, 1));

            int MaxFiles(int? parallelDownloads, int? prefetchCount)
            {
                using AdaptivePrefetch prefetch = AdaptivePrefetch.ForReader(lease.Scope, account, parallelDownloads, prefetchCount)!;
                return prefetch.MaxFiles;
            }
        }

        /// <summary>Awaits a body read within the liveness bound and checks that it holds exactly <paramref name="expected"/>.</summary>
        private static async Task<PooledBuffer> ReadWholeAsync(Task<PooledBuffer> read, byte[] expected, string what)
        {
            PooledBuffer buffer = await WithinAsync(read, Liveness, what);
            Assert.True(buffer.Span.SequenceEqual(expected), $"{what} gave other bytes than the body");
            return buffer;
        }

        private AdaptivePrefetch NewPrefetch(DatabricksMemoryScope scope, MemoryBudgetAccount account) =>
            new AdaptivePrefetch(scope, account, PrefetchRule.DefaultMaxFiles, Clock);

        private long Clock() => Interlocked.Increment(ref _now);
    }
}
