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
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// One budget of bytes in use per database, shared by its readers (<see cref="MemoryBudget"/>): first come first
    /// served, a reader's own limit holds back only that reader, a reader holding nothing always gets a file, a wait ends
    /// on the release that makes room (no poll), and cancelling or closing gives everything back.
    /// </summary>
    public class MemoryBudgetTest
    {
        [Fact]
        public async Task AcquireAsync_FitsTheLimit_GrantedAtOnceAndReleaseGivesItBack()
        {
            // Arrange
            MemoryBudget budget = new MemoryBudget(100);
            using MemoryBudgetAccount reader = budget.OpenAccount(1000);

            // Act
            await reader.AcquireAsync(60, CancellationToken.None);
            bool second = reader.TryAcquire(40);
            bool overTheLimit = reader.TryAcquire(1);

            // Assert
            Assert.True(second);
            Assert.False(overTheLimit);
            Assert.Equal(100, budget.InUse);
            Assert.Equal(100, reader.Held);
            reader.Release(60);
            reader.Release(40);
            Assert.Equal(0, budget.InUse);
            Assert.Equal(0, reader.Held);
            InvalidOperationException overRelease = Assert.Throws<InvalidOperationException>(() => reader.Release(1));
            Assert.Equal("Memory buffer manager released more memory than was acquired.", overRelease.Message); // upstream's manager's words
            Assert.Equal(0, budget.InUse);
        }

        [Fact]
        public async Task AcquireAsync_SeveralWaiters_ServedInArrivalOrderAndALaterSmallerRequestDoesNotOvertake()
        {
            // Arrange
            MemoryBudget budget = new MemoryBudget(100);
            using MemoryBudgetAccount a = budget.OpenAccount(1000);
            using MemoryBudgetAccount b = budget.OpenAccount(1000);
            using MemoryBudgetAccount c = budget.OpenAccount(1000);
            await a.AcquireAsync(70, CancellationToken.None);
            await b.AcquireAsync(10, CancellationToken.None);
            await c.AcquireAsync(10, CancellationToken.None);

            // Act
            Task bNext = b.AcquireAsync(50, CancellationToken.None); // first in line
            Task cNext = c.AcquireAsync(15, CancellationToken.None); // fits after a 20-byte release, but b is ahead
            bool newRequestWhileBWaits = a.TryAcquire(5); // fits the limit, but b is ahead
            a.Release(20);

            // Assert
            Assert.False(newRequestWhileBWaits, "a new request overtook a waiter");
            Assert.False(bNext.IsCompleted);
            Assert.False(cNext.IsCompleted, "a later, smaller request overtook the one ahead of it");
            Assert.Equal(2, budget.Waiters);
            a.Release(50); // 20 in use: b's 50 fits, then c's 15
            Assert.True(bNext.IsCompleted, "the wait did not end on the release that made room");
            Assert.True(cNext.IsCompleted);
            Assert.Equal(85, budget.InUse);
            Assert.Equal(60, b.Held);
            Assert.Equal(25, c.Held);
            Assert.Equal(0, budget.Waiters);
        }

        [Fact]
        public async Task AcquireAsync_ReaderHoldingNothing_GetsItsFileEvenWhenAnotherReaderFilledTheBudget()
        {
            // Arrange: the application stopped reading "stalled", whose pipeline filled the budget; another query starts.
            MemoryBudget budget = new MemoryBudget(100);
            using MemoryBudgetAccount stalled = budget.OpenAccount(1000);
            using MemoryBudgetAccount fresh = budget.OpenAccount(1000);
            await stalled.AcquireAsync(100, CancellationToken.None);
            Task stalledNext = stalled.AcquireAsync(30, CancellationToken.None);

            // Act
            Task first = fresh.AcquireAsync(40, CancellationToken.None);
            Task second = fresh.AcquireAsync(40, CancellationToken.None);

            // Assert
            Assert.Equal(TaskStatus.RanToCompletion, first.Status);
            Assert.False(second.IsCompleted, "a reader that holds a file waits for its next like anyone");
            Assert.False(stalledNext.IsCompleted);
            Assert.Equal(140, budget.InUse);
            fresh.Release(40); // fresh holds nothing again: its waiting file is granted, ahead of the queue
            Assert.Equal(TaskStatus.RanToCompletion, second.Status);
            Assert.False(stalledNext.IsCompleted);
        }

        [Fact]
        public async Task AcquireAsync_WaiterHeldBackByItsOwnReaderLimit_DoesNotHoldBackOthers()
        {
            // Arrange
            MemoryBudget budget = new MemoryBudget(1000);
            using MemoryBudgetAccount small = budget.OpenAccount(50); // upstream's memory_buffer_size_mb, per reader
            using MemoryBudgetAccount other = budget.OpenAccount(1000);
            await small.AcquireAsync(40, CancellationToken.None);
            await other.AcquireAsync(10, CancellationToken.None);

            // Act
            Task smallNext = small.AcquireAsync(20, CancellationToken.None);
            Task otherNext = other.AcquireAsync(100, CancellationToken.None);

            // Assert
            Assert.False(smallNext.IsCompleted);
            Assert.Equal(TaskStatus.RanToCompletion, otherNext.Status);
            Assert.Throws<ArgumentOutOfRangeException>(() => { _ = small.AcquireAsync(51, CancellationToken.None); });
            small.Release(40);
            Assert.Equal(TaskStatus.RanToCompletion, smallNext.Status);
        }

        [Fact]
        public async Task AcquireAsync_Cancelled_LeavesTheQueueAndNoLongerHoldsAnyoneBack()
        {
            // Arrange
            MemoryBudget budget = new MemoryBudget(100);
            using MemoryBudgetAccount a = budget.OpenAccount(1000);
            using MemoryBudgetAccount b = budget.OpenAccount(1000);
            using MemoryBudgetAccount c = budget.OpenAccount(1000);
            await a.AcquireAsync(80, CancellationToken.None);
            await b.AcquireAsync(10, CancellationToken.None);
            await c.AcquireAsync(5, CancellationToken.None);
            using CancellationTokenSource cancel = new CancellationTokenSource();
            Task bNext = b.AcquireAsync(50, cancel.Token);
            Task cNext = c.AcquireAsync(5, CancellationToken.None); // fits, but behind b
            Assert.False(cNext.IsCompleted);

            // Act
            cancel.Cancel();

            // Assert
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(bNext, Liveness, "the cancelled wait"));
            await WithinAsync(cNext, Liveness, "the wait behind the cancelled one");
            Assert.Equal(100, budget.InUse);
            Assert.Equal(10, b.Held);
            Assert.Equal(10, c.Held);
            Assert.Equal(0, budget.Waiters);
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => b.AcquireAsync(1, new CancellationToken(canceled: true)));
            Assert.Equal(10, b.Held); // a token cancelled already takes nothing
        }

        [Fact]
        public async Task Dispose_AccountThatHoldsAndWaits_GivesBackWhatItHeldAndEndsItsWait()
        {
            // Arrange
            MemoryBudget budget = new MemoryBudget(100);
            MemoryBudgetAccount closing = budget.OpenAccount(1000);
            using MemoryBudgetAccount other = budget.OpenAccount(1000);
            await closing.AcquireAsync(90, CancellationToken.None);
            await other.AcquireAsync(10, CancellationToken.None);
            Task closingNext = closing.AcquireAsync(50, CancellationToken.None);
            Task otherNext = other.AcquireAsync(60, CancellationToken.None);

            // Act
            closing.Dispose();

            // Assert
            await Assert.ThrowsAsync<ObjectDisposedException>(() => WithinAsync(closingNext, Liveness, "the closed account's wait"));
            await WithinAsync(otherNext, Liveness, "the other reader's wait");
            Assert.Equal(70, budget.InUse);
            closing.Release(90); // a download that ended after the close: nothing left to give back, no error
            closing.Dispose();
            Assert.Equal(70, budget.InUse);
            Assert.Throws<ObjectDisposedException>(() => { _ = closing.AcquireAsync(1, CancellationToken.None); });
        }

        [Fact]
        public async Task Dispose_AccountWithTwoWaits_EndsBothAndALaterReleaseGrantsItNothing()
        {
            // Arrange: a reader whose pipeline asked twice (series 1.5.0 remembered only the last wait of an account)
            MemoryBudget budget = new MemoryBudget(100);
            MemoryBudgetAccount closing = budget.OpenAccount(1000);
            MemoryBudgetAccount other = budget.OpenAccount(1000);
            await other.AcquireAsync(100, CancellationToken.None);
            await closing.AcquireAsync(10, CancellationToken.None);
            Task first = closing.AcquireAsync(10, CancellationToken.None);
            Task second = closing.AcquireAsync(10, CancellationToken.None);

            // Act
            closing.Dispose();
            other.Release(100);

            // Assert
            await Assert.ThrowsAsync<ObjectDisposedException>(() => WithinAsync(first, Liveness, "the first wait of the closed account"));
            await Assert.ThrowsAsync<ObjectDisposedException>(() => WithinAsync(second, Liveness, "the second wait of the closed account"));
            Assert.Equal(0, budget.Waiters);
            other.Dispose();
            Assert.Equal(0, budget.InUse);
        }

        [Fact]
        public async Task Release_RacingTheCancellationOfTheWaitItGrants_NeverDeadlocks()
        {
            // Arrange: a reader disposed (its wait cancelled) while another reader reads past a file (its release grants
            // that wait). Series 1.5.0 disposed the granted wait's registration under the budget's lock while the
            // cancellation callback waited for that lock: both threads hung, and with them every reader of the database.
            for (int i = 0; i < RacesPerTest; i++)
            {
                MemoryBudget budget = new MemoryBudget(100);
                MemoryBudgetAccount reading = budget.OpenAccount(1000);
                MemoryBudgetAccount disposed = budget.OpenAccount(1000);
                await reading.AcquireAsync(100, CancellationToken.None);
                await disposed.AcquireAsync(10, CancellationToken.None);
                using CancellationTokenSource dispose = new CancellationTokenSource();
                Task wait = disposed.AcquireAsync(10, dispose.Token);

                // Act
                Task race = RaceAsync(() => dispose.Cancel(), () => reading.Release(100));

                // Assert
                await WithinAsync(race, Liveness, $"a release racing a cancellation (race {i})");
                await WithinAsync(wait.ContinueWith(_ => { }, TaskScheduler.Default), Liveness, "the raced wait");
                reading.Dispose();
                disposed.Dispose();
                Assert.Equal(0, budget.InUse);
            }
        }

        [Fact]
        public async Task Charge_DecodeWorkingMemory_NeverWaitsAndFilesWaitUntilItIsGivenBack()
        {
            // Arrange
            MemoryBudget budget = new MemoryBudget(100);
            using MemoryBudgetAccount reader = budget.OpenAccount(1000);
            await reader.AcquireAsync(50, CancellationToken.None);

            // Act
            budget.Charge(80); // a decode's scratch block: over the limit, at once
            Task next = reader.AcquireAsync(10, CancellationToken.None);

            // Assert
            Assert.Equal(130, budget.InUse);
            Assert.False(next.IsCompleted);
            budget.Uncharge(80);
            Assert.Equal(TaskStatus.RanToCompletion, next.Status);
            Assert.Equal(60, budget.InUse);
        }

        [Fact]
        public async Task AcquireAsync_ScopesBudget_PublishesLimitInUseWaitersWaitsAndWaitTimeOnTheMeter()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "1"));
            DatabricksMemoryScope scope = owner.Scope;
            MemoryBudget budget = scope.Budget;
            using (MemoryBudgetAccount a = budget.OpenAccount(long.MaxValue))
            using (MemoryBudgetAccount b = budget.OpenAccount(long.MaxValue))
            {
                await a.AcquireAsync(MiB, CancellationToken.None);
                await b.AcquireAsync(10, CancellationToken.None);

                // Act
                Task waiting = b.AcquireAsync(20, CancellationToken.None);

                // Assert
                Assert.Equal(1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetWaiters));
                Assert.Equal(MiB + 10, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetInUse));
                Thread.Sleep(50); // the wait lasts at least this long: its time on the meter must show it
                a.Release(MiB);
                await WithinAsync(waiting, Liveness, "the wait");
            }

            Assert.Equal(MiB, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetLimit));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetInUse));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetWaiters));
            Assert.Equal(1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetWaits));
            Assert.InRange(metrics.SumDouble(scope.Id, DatabricksMemoryMetricNames.BudgetWaitTime), 0.04, 30);
            owner.Dispose();
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetLimit)); // the released scope's limit is gone
        }

        [Fact]
        public async Task AcquireAsync_SixteenReadersOnASmallBudget_AllFinishAndEverythingComesBack()
        {
            // Arrange: each reader is a pipeline: a download loop takes 30 files of 1-20 KiB in turn, at most four queued,
            // and the application reads and releases them at its own pace. 16 of them on a 64 KiB budget, the first eight
            // read only after the other eight have finished (a host reading partitions one after another).
            const int Readers = 16;
            const int FilesPerReader = 30;
            MemoryBudget budget = new MemoryBudget(64 * KiB);
            long peak = 0;
            TaskCompletionSource<bool> laterHalfDone = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            int laterHalfRemaining = Readers / 2;

            async Task ReadAsync(int r)
            {
                Random random = new Random(r);
                using MemoryBudgetAccount account = budget.OpenAccount(long.MaxValue);
                ConcurrentQueue<long> queued = new ConcurrentQueue<long>();
                using SemaphoreSlim room = new SemaphoreSlim(4);
                using SemaphoreSlim ready = new SemaphoreSlim(0);
                Task download = Task.Run(async () =>
                {
                    for (int file = 0; file < FilesPerReader; file++)
                    {
                        long size = random.Next(KiB, 20 * KiB);
                        await account.AcquireAsync(size, CancellationToken.None).ConfigureAwait(false);
                        InterlockedMax(ref peak, budget.InUse);
                        await room.WaitAsync().ConfigureAwait(false);
                        queued.Enqueue(size);
                        ready.Release();
                    }
                });

                if (r < Readers / 2)
                {
                    await laterHalfDone.Task.ConfigureAwait(false);
                }

                for (int file = 0; file < FilesPerReader; file++)
                {
                    await ready.WaitAsync().ConfigureAwait(false);
                    Assert.True(queued.TryDequeue(out long size));
                    await Task.Yield();
                    account.Release(size);
                    room.Release();
                }

                await download.ConfigureAwait(false);
                if (r >= Readers / 2 && Interlocked.Decrement(ref laterHalfRemaining) == 0)
                {
                    laterHalfDone.SetResult(true);
                }
            }

            // Act
            Task all = Task.WhenAll(Enumerable.Range(0, Readers).Select(r => Task.Run(() => ReadAsync(r))));

            // Assert: no reader starves, nothing is left in use, and in use never exceeds the budget by more than one
            // file per reader
            await WithinAsync(all, Liveness, "16 readers");
            Assert.Equal(0, budget.InUse);
            Assert.Equal(0, budget.Waiters);
            Assert.InRange(peak, 1, (64 * KiB) + (Readers * 20 * KiB));
        }

        /// <summary>
        /// Races per test: on series 1.5.0 this test hung in 1 of 2 runs (the systematic test of the overlay's
        /// concurrency project finds it in its first schedules; this one shows it on the real scheduler).
        /// </summary>
        private const int RacesPerTest = 3000;

        /// <summary>Runs both actions at once on two threads released together.</summary>
        private static async Task RaceAsync(Action first, Action second)
        {
            using Barrier start = new Barrier(2);
            Task a = Task.Factory.StartNew(() => { start.SignalAndWait(); first(); }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
            Task b = Task.Factory.StartNew(() => { start.SignalAndWait(); second(); }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
            await Task.WhenAll(a, b).ConfigureAwait(false);
        }

        private static void InterlockedMax(ref long target, long value)
        {
            long current;
            while (value > (current = Interlocked.Read(ref target)) && Interlocked.CompareExchange(ref target, value, current) != current)
            {
            }
        }
    }
}
