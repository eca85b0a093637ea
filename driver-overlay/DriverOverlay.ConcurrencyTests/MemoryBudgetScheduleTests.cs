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
using static DriverOverlay.ConcurrencyTests.BudgetInvariants;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// <see cref="MemoryBudget"/> under every interleaving Coyote finds of what its readers do at once: a release that
    /// grants a wait as the wait is cancelled (a reader disposed while another reads past a file), a close as a release
    /// grants its wait, waits cancelled together, and readers that acquire, release, charge, cancel and close at random.
    /// </summary>
    public class MemoryBudgetScheduleTests(ITestOutputHelper output)
    {
        [Fact]
        public void AReleaseGrantingAWaitAsTheWaitIsCancelled_NeitherDeadlocksNorLosesBytes()
        {
            SystematicTest.Run(async () =>
            {
                (MemoryBudget budget, MemoryBudgetAccount reading, MemoryBudgetAccount disposed) = TwoReaders(firstHolds: 100, secondHolds: 10);
                using CancellationTokenSource dispose = new CancellationTokenSource();
                Task wait = disposed.AcquireAsync(10, dispose.Token);

                await AtOnce(() => dispose.Cancel(), () => reading.Release(100));

                bool granted = await EndOf(wait);
                Specification.Assert(disposed.Held == (granted ? 20 : 10), "the disposed reader holds {0}", disposed.Held);
                InUseWithinBounds(budget, readers: 2, largestFile: 100, charged: 0);
                reading.Dispose();
                disposed.Dispose();
                AllGivenBack(budget);
            }, output);
        }

        [Fact]
        public void TwoWaitsCancelledAtOnce_WhereOneLeavingGrantsTheOther_BothEndWithoutDeadlock()
        {
            SystematicTest.Run(async () =>
            {
                (MemoryBudget budget, MemoryBudgetAccount a, MemoryBudgetAccount b) = TwoReaders(firstHolds: 80, secondHolds: 10);
                using CancellationTokenSource disposeA = new CancellationTokenSource();
                using CancellationTokenSource disposeB = new CancellationTokenSource();
                Task aWait = a.AcquireAsync(50, disposeA.Token); // held back by the database's limit
                Task bWait = b.AcquireAsync(5, disposeB.Token); // fits, but behind a: granted when a's wait leaves

                await AtOnce(() => disposeA.Cancel(), () => disposeB.Cancel());

                Specification.Assert(!await EndOf(aWait), "a cancelled wait that never fitted was granted");
                bool bGranted = await EndOf(bWait);
                Specification.Assert(b.Held == (bGranted ? 15 : 10), "b holds {0}", b.Held);
                InUseWithinBounds(budget, readers: 2, largestFile: 80, charged: 0);
                a.Dispose();
                b.Dispose();
                AllGivenBack(budget);
            }, output);
        }

        [Fact]
        public void ACloseAsAReleaseGrantsItsWait_TheClosedAccountIsNeverGranted()
        {
            SystematicTest.Run(async () =>
            {
                (MemoryBudget budget, MemoryBudgetAccount reading, MemoryBudgetAccount closing) = TwoReaders(firstHolds: 100, secondHolds: 10);
                Task wait = closing.AcquireAsync(10, CancellationToken.None);

                await AtOnce(() => closing.Dispose(), () => reading.Release(100));

                await EndOf(wait); // granted before the close, or ended by it: either way the close gave it back
                Specification.Assert(closing.Held == 0, "the closed account holds {0}", closing.Held);
                reading.Dispose();
                AllGivenBack(budget);
            }, output);
        }

        [Fact]
        public void LaterWaitsHeldBackByTheLimit_AreNeverGrantedBeforeEarlierOnes()
        {
            SystematicTest.Run(async () =>
            {
                MemoryBudget budget = new MemoryBudget(100);
                MemoryBudgetAccount full = budget.OpenAccount(1000);
                MemoryBudgetAccount first = budget.OpenAccount(1000);
                MemoryBudgetAccount second = budget.OpenAccount(1000);
                MemoryBudgetAccount cancelled = budget.OpenAccount(1000);
                Specification.Assert(full.TryAcquire(85) && first.TryAcquire(5) && second.TryAcquire(5) && cancelled.TryAcquire(5), "setup");
                using CancellationTokenSource cancel = new CancellationTokenSource();
                Task firstWait = first.AcquireAsync(10, CancellationToken.None);
                Task cancelledWait = cancelled.AcquireAsync(10, cancel.Token);
                Task secondWait = second.AcquireAsync(10, CancellationToken.None);

                Task observer = Task.Run(async () =>
                {
                    for (int look = 0; look < 6; look++)
                    {
                        FirstComeFirstServed(firstWait, secondWait);
                        FirstComeFirstServed(firstWait, cancelledWait);
                        FirstComeFirstServed(cancelledWait, secondWait);
                        await Task.Yield();
                    }
                });
                await Task.WhenAll(new[]
                {
                    Task.Run(() => full.Release(10)),
                    Task.Run(() => full.Release(10)),
                    Task.Run(() => full.Release(10)),
                    Task.Run(() => cancel.Cancel()),
                    observer,
                });

                Specification.Assert(await EndOf(firstWait) && await EndOf(secondWait), "three releases of 10 made room for every wait");
                await EndOf(cancelledWait);
                foreach (MemoryBudgetAccount account in new[] { full, first, second, cancelled })
                {
                    account.Dispose();
                }

                AllGivenBack(budget);
            }, output);
        }

        [Fact]
        public void ReadersThatAcquireReleaseChargeCancelAndClose_KeepEveryInvariant()
        {
            SystematicTest.Run(async () =>
            {
                const int Readers = 3;
                const long LargestFile = 40;
                const long Block = 8;
                MemoryBudget budget = new MemoryBudget(60);
                Microsoft.Coyote.Random.Generator choose = Microsoft.Coyote.Random.Generator.Create();
                List<Task> readers = new List<Task>();
                for (int i = 0; i < Readers; i++)
                {
                    MemoryBudgetAccount account = budget.OpenAccount(80);
                    CancellationTokenSource dispose = new CancellationTokenSource();
                    bool disposeEarly = choose.NextBoolean();
                    readers.Add(Task.Run(async () =>
                    {
                        Queue<long> held = new Queue<long>();
                        for (int file = 0; file < 3 && !dispose.IsCancellationRequested; file++)
                        {
                            long size = 10 + (10 * choose.NextInteger(4)); // 10..40
                            if (!await EndOf(Acquire(account, size, dispose.Token)))
                            {
                                break;
                            }

                            held.Enqueue(size);
                            InUseWithinBounds(budget, Readers, LargestFile, Readers * Block);
                            if (choose.NextBoolean())
                            {
                                budget.Charge(Block); // decoding the oldest file, then done with it
                                InUseWithinBounds(budget, Readers, LargestFile, Readers * Block);
                                budget.Uncharge(Block);
                                account.Release(held.Dequeue());
                            }
                        }
                    }));
                    readers.Add(Task.Run(() =>
                    {
                        if (disposeEarly)
                        {
                            dispose.Cancel(); // the application disposes the reader mid-result
                        }

                        account.Dispose();
                    }));
                }

                await Task.WhenAll(readers.ToArray());
                AllGivenBack(budget);
            }, output);
        }

        /// <summary>A budget of 100 bytes and two readers' accounts (each limited to 1000), holding what the test says.</summary>
        private static (MemoryBudget Budget, MemoryBudgetAccount First, MemoryBudgetAccount Second) TwoReaders(long firstHolds, long secondHolds)
        {
            MemoryBudget budget = new MemoryBudget(100);
            MemoryBudgetAccount first = budget.OpenAccount(1000);
            MemoryBudgetAccount second = budget.OpenAccount(1000);
            Specification.Assert(first.TryAcquire(firstHolds) && second.TryAcquire(secondHolds), "setup");
            return (budget, first, second);
        }

        /// <summary>Runs two actions on two tasks, for Coyote to interleave in every order it explores.</summary>
        private static Task AtOnce(Action one, Action other) => Task.WhenAll(new[] { Task.Run(one), Task.Run(other) });
    }
}
