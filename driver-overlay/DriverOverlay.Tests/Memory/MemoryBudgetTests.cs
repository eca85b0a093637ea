using System.Linq;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// One budget of bytes in use per database, shared by its readers: first come first served, a reader's own limit
    /// held back only that reader, a reader holding nothing always gets a file, waits end on a release (no poll), and
    /// cancellation and closing give everything back. Published on the scope's meter.
    /// </summary>
    public class MemoryBudgetTests
    {
        private static readonly TimeSpan Liveness = TimeSpan.FromSeconds(30);

        [Fact]
        public async Task FilesThatFitAreGrantedAtOnceAndReleasesGiveThemBack()
        {
            var budget = new MemoryBudget(100);
            using MemoryBudgetAccount reader = budget.OpenAccount(1000);

            await reader.AcquireAsync(60, CancellationToken.None);
            Assert.True(reader.TryAcquire(40));
            Assert.False(reader.TryAcquire(1));
            Assert.Equal((100, 100), (budget.InUse, reader.Held));

            reader.Release(60);
            reader.Release(40);
            Assert.Equal((0, 0), (budget.InUse, reader.Held));
            Assert.Equal("Memory buffer manager released more memory than was acquired.", Assert.Throws<InvalidOperationException>(() => reader.Release(1)).Message);
        }

        [Fact]
        public async Task WaitersAreServedInArrivalOrderAndALaterSmallerFileDoesNotOvertake()
        {
            var budget = new MemoryBudget(100);
            using MemoryBudgetAccount a = budget.OpenAccount(1000);
            using MemoryBudgetAccount b = budget.OpenAccount(1000);
            using MemoryBudgetAccount c = budget.OpenAccount(1000);
            await a.AcquireAsync(70, CancellationToken.None);
            await b.AcquireAsync(10, CancellationToken.None);
            await c.AcquireAsync(10, CancellationToken.None);

            Task bNext = b.AcquireAsync(50, CancellationToken.None); // first in line
            Task cNext = c.AcquireAsync(15, CancellationToken.None); // would fit after a 20-byte release, but b is ahead
            a.Release(20);
            Assert.False(bNext.IsCompleted);
            Assert.False(cNext.IsCompleted, "a later, smaller request overtook the one ahead of it");
            Assert.Equal(2, budget.Waiters);

            a.Release(50); // 20 in use by b and c: b's 50 fits, then c's 15
            Assert.True(bNext.IsCompleted, "the wait did not end on the release (a poll would end it later)");
            Assert.True(cNext.IsCompleted);
            Assert.Equal((85, 60, 25), (budget.InUse, b.Held, c.Held));
            Assert.Equal(0, budget.Waiters);
        }

        [Fact]
        public async Task AReaderThatHoldsNothingAlwaysGetsItsNextFileSoAnUnreadReaderNeverStarvesAnother()
        {
            // The application stopped reading reader "stalled", whose pipeline filled the budget; another query starts.
            var budget = new MemoryBudget(100);
            using MemoryBudgetAccount stalled = budget.OpenAccount(1000);
            using MemoryBudgetAccount fresh = budget.OpenAccount(1000);
            await stalled.AcquireAsync(100, CancellationToken.None);
            Task stalledNext = stalled.AcquireAsync(30, CancellationToken.None);

            Task first = fresh.AcquireAsync(40, CancellationToken.None);
            Task second = fresh.AcquireAsync(40, CancellationToken.None);

            Assert.True(first.IsCompletedSuccessfully, "a reader holding nothing waited");
            Assert.False(second.IsCompleted); // its second file waits like anyone's
            Assert.False(stalledNext.IsCompleted);
            Assert.Equal(140, budget.InUse);

            fresh.Release(40); // fresh holds nothing again: its waiting file is granted, ahead of the queue
            Assert.True(second.IsCompletedSuccessfully);
            Assert.False(stalledNext.IsCompleted);
        }

        [Fact]
        public async Task AWaiterHeldBackByItsOwnReadersLimitDoesNotHoldBackOthers()
        {
            var budget = new MemoryBudget(1000);
            using MemoryBudgetAccount small = budget.OpenAccount(50); // memory_buffer_size_mb of its own
            using MemoryBudgetAccount other = budget.OpenAccount(1000);
            await small.AcquireAsync(40, CancellationToken.None);
            await other.AcquireAsync(10, CancellationToken.None);

            Task smallNext = small.AcquireAsync(20, CancellationToken.None);
            Task otherNext = other.AcquireAsync(100, CancellationToken.None);

            Assert.False(smallNext.IsCompleted);
            Assert.True(otherNext.IsCompletedSuccessfully);
            Assert.Throws<ArgumentOutOfRangeException>(() => { _ = small.AcquireAsync(51, CancellationToken.None); });
            small.Release(40);
            Assert.True(smallNext.IsCompletedSuccessfully);
        }

        [Fact]
        public async Task ACancelledWaitLeavesTheQueueAndNoLongerHoldsAnyoneBack()
        {
            var budget = new MemoryBudget(100);
            using MemoryBudgetAccount a = budget.OpenAccount(1000);
            using MemoryBudgetAccount b = budget.OpenAccount(1000);
            using MemoryBudgetAccount c = budget.OpenAccount(1000);
            await a.AcquireAsync(80, CancellationToken.None);
            await b.AcquireAsync(10, CancellationToken.None);
            await c.AcquireAsync(5, CancellationToken.None);
            using var cancel = new CancellationTokenSource();
            Task bNext = b.AcquireAsync(50, cancel.Token);
            Task cNext = c.AcquireAsync(5, CancellationToken.None); // fits, but behind b

            Assert.False(cNext.IsCompleted);
            cancel.Cancel();

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => bNext.WaitAsync(Liveness));
            await cNext.WaitAsync(Liveness);
            Assert.Equal((100, 10, 10), (budget.InUse, b.Held, c.Held));
            Assert.Equal(0, budget.Waiters);
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => b.AcquireAsync(1, new CancellationToken(canceled: true)));
        }

        [Fact]
        public async Task ClosingAnAccountGivesBackWhatItHeldAndEndsItsWait()
        {
            var budget = new MemoryBudget(100);
            MemoryBudgetAccount closing = budget.OpenAccount(1000);
            using MemoryBudgetAccount other = budget.OpenAccount(1000);
            await closing.AcquireAsync(90, CancellationToken.None);
            await other.AcquireAsync(10, CancellationToken.None);
            Task closingNext = closing.AcquireAsync(50, CancellationToken.None);
            Task otherNext = other.AcquireAsync(60, CancellationToken.None);

            closing.Dispose();

            await Assert.ThrowsAsync<ObjectDisposedException>(() => closingNext.WaitAsync(Liveness));
            await otherNext.WaitAsync(Liveness);
            Assert.Equal(70, budget.InUse);
            closing.Release(90); // a download that ended after the close: nothing left to give back, no error
            closing.Dispose();
            Assert.Equal(70, budget.InUse);
            Assert.Throws<ObjectDisposedException>(() => { _ = closing.AcquireAsync(1, CancellationToken.None); });
        }

        [Fact]
        public async Task WorkingMemoryIsChargedWithoutWaitingAndFilesWaitUntilItIsGivenBack()
        {
            var budget = new MemoryBudget(100);
            using MemoryBudgetAccount reader = budget.OpenAccount(1000);
            await reader.AcquireAsync(50, CancellationToken.None);
            budget.Charge(80); // a decode's scratch block: over the limit, at once

            Task next = reader.AcquireAsync(10, CancellationToken.None);
            Assert.Equal(130, budget.InUse);
            Assert.False(next.IsCompleted);

            budget.Uncharge(80);
            Assert.True(next.IsCompletedSuccessfully);
            Assert.Equal(60, budget.InUse);
        }

        [Fact]
        public async Task TheScopesBudgetIsPublishedOnItsMeter()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope(("adbc.databricks.memory.budget_mb", "1"));
            DatabricksMemoryScope scope = owner.Scope;
            MemoryBudget budget = scope.Budget;
            using (MemoryBudgetAccount a = budget.OpenAccount(long.MaxValue))
            using (MemoryBudgetAccount b = budget.OpenAccount(long.MaxValue))
            {
                await a.AcquireAsync(MiB, CancellationToken.None);
                await b.AcquireAsync(10, CancellationToken.None);
                Task waiting = b.AcquireAsync(20, CancellationToken.None);
                Assert.Equal(1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetWaiters));
                Assert.Equal(MiB + 10, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetInUse));
                Thread.Sleep(50);
                a.Release(MiB);
                await waiting.WaitAsync(Liveness);
            }

            Assert.Equal(MiB, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetLimit));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetInUse));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetWaiters));
            Assert.Equal(1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetWaits));
            Assert.InRange(metrics.SumDouble(scope.Id, DatabricksMemoryMetricNames.BudgetWaitTime), 0.04, 30);
            owner.Dispose();
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.BudgetLimit));
        }

        [Fact]
        public async Task SixteenReadersOnASmallBudgetAllFinishAndEverythingComesBack()
        {
            // Each reader is a pipeline: a download loop takes 30 files of 1-20 KB in turn, at most four queued, and the
            // application reads and releases them at its own pace. 16 of them on a 64 KB budget, the first eight read
            // only after the other eight have finished (a host reading partitions one after another): no reader
            // starves, nothing is left in use, and in use never exceeds the budget by more than one file per reader.
            var budget = new MemoryBudget(64 * KiB);
            long peak = 0;
            var laterHalfDone = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            int laterHalfRemaining = 8;

            async Task Reader(int r)
            {
                var random = new Random(r);
                using MemoryBudgetAccount account = budget.OpenAccount(long.MaxValue);
                var queue = System.Threading.Channels.Channel.CreateBounded<long>(4);
                Task download = Task.Run(async () =>
                {
                    for (int file = 0; file < 30; file++)
                    {
                        long size = random.Next(KiB, 20 * KiB);
                        await account.AcquireAsync(size, CancellationToken.None);
                        InterlockedMax(ref peak, budget.InUse);
                        await queue.Writer.WriteAsync(size);
                    }

                    queue.Writer.Complete();
                });

                if (r < 8)
                {
                    await laterHalfDone.Task;
                }

                await foreach (long size in queue.Reader.ReadAllAsync())
                {
                    await Task.Yield();
                    account.Release(size);
                }

                await download;
                if (r >= 8 && Interlocked.Decrement(ref laterHalfRemaining) == 0)
                {
                    laterHalfDone.SetResult(true);
                }
            }

            await Task.WhenAll(Enumerable.Range(0, 16).Select(r => Task.Run(() => Reader(r)))).WaitAsync(Liveness);

            Assert.Equal(0, budget.InUse);
            Assert.Equal(0, budget.Waiters);
            Assert.InRange(peak, 1, (64 * KiB) + (16 * 20 * KiB));
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
