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

using System.Runtime.CompilerServices;
using Microsoft.Coyote.Specifications;
using Xunit.Abstractions;
using static DriverOverlay.ConcurrencyTests.BudgetInvariants;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// <see cref="AdaptivePrefetch"/> under every interleaving Coyote finds of what calls it at once: a reader's download
    /// loop starting files, the downloads' bodies charged and read and their completions, the reader taking files, and a
    /// disposal mid-result, on one database budget smaller than the files ahead, one reader or two (one of them not read).
    /// What must hold: every file arrives whole and in order to a reader that reads (no deadlock: each reader's file it
    /// waits for always gets its bytes); the budget's in use stays within its limit plus one file per reader; a reader
    /// never has more files ahead than its bound; and once every file is given back, or the pipeline and its account are
    /// disposed, nothing stays charged or counted. No timer and no clock: timestamps come from a counter.
    /// </summary>
    public class AdaptivePrefetchScheduleTests
    {
        private const long BudgetLimit = 160 * 1024;
        private static readonly int[] s_sizes = { 20 * 1024, 50 * 1024, 90 * 1024, 170 * 1024 }; // the last over the whole budget

        /// <summary>
        /// Schedules for the whole-pipeline tests, fewer than <see cref="SystematicTest.Schedules"/>: each schedule runs a
        /// reader's five files read 8 KiB at a time (hundreds of scheduling points), 1000 of them took 1-3 minutes per test on
        /// the shared 2-core machine, and a hang of a CancellationTokenSource disposed while its parent cancelled (a
        /// rejected variant of the body charge) failed all of them within the first 63 schedules.
        /// </summary>
        private const uint PipelineSchedules = 250;

        private readonly ITestOutputHelper _output;

        public AdaptivePrefetchScheduleTests(ITestOutputHelper output)
        {
            _output = output;

            // DatabricksMemoryScope's static Unpooled scope has default options, so a pool trimmer and its timer: created
            // here, outside Coyote, not as an uncontrolled invocation in whichever schedule first touches the type.
            RuntimeHelpers.RunClassConstructor(typeof(DatabricksMemoryScope).TypeHandle);
        }

        /// <summary>
        /// Runs a whole-pipeline test for <see cref="PipelineSchedules"/> schedules, each with a fresh budget, Coyote's
        /// choices and a scope without timers.
        /// </summary>
        private void RunPipelineSchedules(Func<MemoryBudget, Microsoft.Coyote.Random.Generator, DatabricksMemoryScope, Task> test) =>
            SystematicTest.Run(async () =>
            {
                MemoryBudget budget = new MemoryBudget(BudgetLimit);
                Microsoft.Coyote.Random.Generator choose = Microsoft.Coyote.Random.Generator.Create();
                using DatabricksMemoryLease lease = ScopeWithoutTimers();
                await test(budget, choose, lease.Scope);
            }, _output, PipelineSchedules);

        [Fact]
        public void AReaderAndItsDownloadsOnABudgetSmallerThanTheFilesAhead_GetEveryFileAndGiveEverythingBack()
        {
            RunPipelineSchedules(async (budget, choose, scope) =>
            {
                ReaderPipeline reader = new ReaderPipeline(scope, budget, choose, files: 5, readers: 1);

                await reader.RunAsync(readFiles: 5);

                Specification.Assert(reader.Account.Held == 0 && budget.InUse == 0, "{0} bytes still charged after every file was given back", budget.InUse);
                Specification.Assert(reader.Prefetch.InFlight == 0 && reader.Prefetch.Waiting == 0, "files still counted after every file was taken");
                reader.Dispose();
                AllGivenBack(budget);
            });
        }

        [Fact]
        public void AReaderDisposedMidResult_AsItsDownloadsChargeAndComplete_LeavesNothingChargedOrWaiting()
        {
            RunPipelineSchedules(async (budget, choose, scope) =>
            {
                ReaderPipeline reader = new ReaderPipeline(scope, budget, choose, files: 5, readers: 1);

                await reader.RunAsync(readFiles: choose.NextInteger(5)); // then the application disposes the reader

                AllGivenBack(budget);
                Specification.Assert(reader.Prefetch.InFlight == 0 && reader.Prefetch.Waiting == 0, "files still counted after the pipeline was disposed");
            });
        }

        [Fact]
        public void TwoReadersOnOneBudget_OneNotRead_TheOtherStillGetsEveryFile()
        {
            RunPipelineSchedules(async (budget, choose, scope) =>
            {
                ReaderPipeline unread = new ReaderPipeline(scope, budget, choose, files: 4, readers: 2);
                ReaderPipeline read = new ReaderPipeline(scope, budget, choose, files: 4, readers: 2);

                Task unreadLoop = unread.StartLoop(); // the application opened it and reads the other first
                await read.RunAsync(readFiles: 4);
                await unread.RunAsync(readFiles: 4, unreadLoop);

                Specification.Assert(budget.InUse == 0, "{0} bytes still charged after both readers gave every file back", budget.InUse);
                read.Dispose();
                unread.Dispose();
                AllGivenBack(budget);
            });
        }

        [Fact]
        public void ALaterDownloadWaitingForTheBudget_AsTheReaderTakesItAReleaseGrantsItAndItIsCancelled_HoldsExactlyWhatItKept()
        {
            SystematicTest.Run(async () =>
            {
                MemoryBudget budget = new MemoryBudget(BudgetLimit);
                MemoryBudgetAccount other = budget.OpenAccount(long.MaxValue);
                MemoryBudgetAccount account = budget.OpenAccount(long.MaxValue);
                using DatabricksMemoryLease scope = ScopeWithoutTimers();
                AdaptivePrefetch prefetch = new AdaptivePrefetch(scope.Scope, account, 16, new Counter().Next);
                Specification.Assert(other.TryAcquire(BudgetLimit), "setup");
                byte[] body = Body(32 * 1024, seed: 1);
                await prefetch.StartAsync("first", 1, CancellationToken.None);
                await prefetch.StartAsync("later", body.Length, CancellationToken.None);
                using CancellationTokenSource cancel = new CancellationTokenSource();
                Task<PooledBuffer> later = prefetch.ReadContentAsync("later", new YieldingContent(body), cancel.Token);

                await Task.WhenAll(new[]
                {
                    Task.Run(() => prefetch.Taken("first", ready: true)),
                    Task.Run(() => prefetch.Taken("later", ready: false)),
                    Task.Run(() => other.Release(BudgetLimit)),
                    Task.Run(() => cancel.Cancel()),
                });

                PooledBuffer? buffer = await Outcome(later);
                Specification.Assert(account.Held == (buffer == null ? 0 : body.Length), "the later file holds {0} bytes", account.Held);
                buffer?.Dispose();
                prefetch.Dispose();
                account.Dispose();
                other.Dispose();
                AllGivenBack(budget);
            }, _output);
        }

        [Fact]
        public void ALoopWaitingToStart_AsDownloadsEndTheReaderTakesAndThePipelineIsDisposed_EndsEveryWay()
        {
            SystematicTest.Run(async () =>
            {
                MemoryBudget budget = new MemoryBudget(BudgetLimit);
                MemoryBudgetAccount account = budget.OpenAccount(long.MaxValue);
                using DatabricksMemoryLease scope = ScopeWithoutTimers();
                AdaptivePrefetch prefetch = new AdaptivePrefetch(scope.Scope, account, 2, new Counter().Next);
                await prefetch.StartAsync("a", 1, CancellationToken.None);
                await prefetch.StartAsync("b", 1, CancellationToken.None);
                using CancellationTokenSource cancel = new CancellationTokenSource();
                Task start = prefetch.StartAsync("c", 1, cancel.Token);

                await Task.WhenAll(new[]
                {
                    Task.Run(() => prefetch.Ended("a", completed: true)),
                    Task.Run(() => prefetch.Taken("a", ready: false)),
                    Task.Run(() => prefetch.Ended("b", completed: false)),
                    Task.Run(() => cancel.Cancel()),
                    Task.Run(() => prefetch.Dispose()),
                });

                try
                {
                    await start;
                }
                catch (OperationCanceledException)
                {
                }
                catch (ObjectDisposedException)
                {
                }

                Specification.Assert(prefetch.InFlight == 0 && prefetch.Waiting == 0, "a disposed prefetch still counts files");
                account.Dispose();
                AllGivenBack(budget);
            }, _output);
        }

        /// <summary>
        /// A scope for the bodies (its own budget unused: each test's is smaller) that keeps nothing, so no idle-trim timer
        /// or Gen2 callback starts: Coyote controls neither.
        /// </summary>
        private static DatabricksMemoryLease ScopeWithoutTimers() =>
            DatabricksMemoryScope.Create(new Dictionary<string, string> { [DatabricksMemoryOptions.PoolingEnabledKey] = "false" });

        private static byte[] Body(int length, int seed)
        {
            byte[] body = new byte[length];
            for (int i = 0; i < length; i++)
            {
                body[i] = (byte)((i * 31) + seed);
            }

            return body;
        }

        /// <summary>The buffer a read ended with, or null when it was cancelled or its pipeline disposed.</summary>
        private static async Task<PooledBuffer?> Outcome(Task<PooledBuffer> read)
        {
            try
            {
                return await read;
            }
            catch (OperationCanceledException)
            {
                return null;
            }
            catch (ObjectDisposedException)
            {
                return null;
            }
        }

        /// <summary>Timestamps for the rule: a counter, so a schedule decides the same way on every run.</summary>
        private sealed class Counter
        {
            private long _now;

            public long Next() => Interlocked.Increment(ref _now);
        }

        /// <summary>
        /// One reader's pipeline as the driver wires it: a download loop starting files in order through the prefetch, a
        /// download per file (its body read through the prefetch, its data handed over before its end is reported, as the
        /// downloader's continuation does), and the reader taking files in order and giving each back when done.
        /// </summary>
        private sealed class ReaderPipeline : IDisposable
        {
            private readonly MemoryBudget _budget;
            private readonly int _readers;
            private readonly byte[][] _bodies;
            private readonly string[] _files;
            private readonly TaskCompletionSource<bool>[] _started;
            private readonly TaskCompletionSource<PooledBuffer>[] _data;
            private readonly List<Task> _downloads = new List<Task>();
            private readonly CancellationTokenSource _stop = new CancellationTokenSource();

            public ReaderPipeline(DatabricksMemoryScope scope, MemoryBudget budget, Microsoft.Coyote.Random.Generator choose, int files, int readers)
            {
                _budget = budget;
                _readers = readers;
                Account = budget.OpenAccount(long.MaxValue);
                Prefetch = new AdaptivePrefetch(scope, Account, 16, new Counter().Next);
                _bodies = new byte[files][];
                _files = new string[files];
                _started = new TaskCompletionSource<bool>[files];
                _data = new TaskCompletionSource<PooledBuffer>[files];
                for (int i = 0; i < files; i++)
                {
                    _bodies[i] = Body(s_sizes[choose.NextInteger(s_sizes.Length)], seed: i);
                    _files[i] = $"file {i}";
                    _started[i] = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                    _data[i] = new TaskCompletionSource<PooledBuffer>(TaskCreationOptions.RunContinuationsAsynchronously);
                }
            }

            public MemoryBudgetAccount Account { get; }

            public AdaptivePrefetch Prefetch { get; }

            public Task StartLoop() => Task.Run(LoopAsync);

            /// <summary>Reads <paramref name="readFiles"/> files in order, then disposes the pipeline and waits for everything it started.</summary>
            public async Task RunAsync(int readFiles, Task? loop = null)
            {
                loop ??= StartLoop();
                for (int i = 0; i < readFiles; i++)
                {
                    await _started[i].Task;
                    Prefetch.Taken(_files[i], _data[i].Task.IsCompleted);
                    PooledBuffer buffer = await _data[i].Task;
                    Specification.Assert(buffer.Span.SequenceEqual(_bodies[i]), "file {0} arrived with other bytes", i);
                    InUseWithinBounds(_budget, _readers, s_sizes[s_sizes.Length - 1], 0);
                    buffer.Dispose();
                    Account.Release(_bodies[i].Length); // the reader is done with it (its result's Dispose)
                }

                if (readFiles < _files.Length)
                {
                    Dispose(); // the application disposes the reader mid-result: the loop stops, the account closes
                }

                await EndOf(loop);
                Task[] downloads;
                lock (_downloads)
                {
                    downloads = _downloads.ToArray();
                }

                await Task.WhenAll(downloads);
                for (int i = readFiles; i < _files.Length; i++)
                {
                    if (_data[i].Task.Status == TaskStatus.RanToCompletion)
                    {
                        _data[i].Task.Result.Dispose(); // downloaded and never read: the pipeline's shutdown disposes it
                    }
                }
            }

            public void Dispose()
            {
                _stop.Cancel();
                Prefetch.Dispose();
                Account.Dispose();
            }

            private async Task LoopAsync()
            {
                for (int i = 0; i < _files.Length; i++)
                {
                    await Prefetch.StartAsync(_files[i], _bodies[i].Length, _stop.Token);
                    Specification.Assert(Prefetch.InFlight + Prefetch.Waiting <= Prefetch.MaxFiles, "more files ahead than the bound");
                    int file = i;
                    Task download = Task.Run(() => DownloadAsync(file));
                    lock (_downloads)
                    {
                        _downloads.Add(download);
                    }

                    _started[i].SetResult(true);
                }
            }

            private async Task DownloadAsync(int file)
            {
                try
                {
                    PooledBuffer buffer = await Prefetch.ReadContentAsync(_files[file], new YieldingContent(_bodies[file]), _stop.Token);
                    _data[file].SetResult(buffer);
                    Prefetch.Ended(_files[file], completed: true);
                }
                catch (Exception ex) when (ex is OperationCanceledException || ex is ObjectDisposedException)
                {
                    _data[file].SetException(ex);
                    Prefetch.Ended(_files[file], completed: false);
                }
            }

            /// <summary>How the loop ended does not matter (stopped or done); that it ended does.</summary>
            private static async Task EndOf(Task loop)
            {
                try
                {
                    await loop;
                }
                catch (OperationCanceledException)
                {
                }
                catch (ObjectDisposedException)
                {
                }
            }
        }
    }
}
