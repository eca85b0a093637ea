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

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// One database's budget of bytes in use for results: the CloudFetch files its readers download and keep waiting
    /// (counted at their compressed size, as upstream's per-reader budget counts them) and their decode working memory,
    /// shared by every reader of every connection of the database.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Why: each reader had only its own budget (<c>memory_buffer_size_mb</c>, 200 MB of compressed files), so a host
    /// that refreshes many partitions at once on one database held many times one query. Readers take file bytes
    /// through an account (<see cref="OpenAccount"/>) that also keeps that per-reader limit: a file is granted when it
    /// fits both.
    /// </para>
    /// <para>
    /// Fair and live: waiters are served first come, first served (arrow-adbc #3756's lesson); a waiter held back only by
    /// its own reader's limit does not hold back the others; and a reader that holds nothing is always granted its next
    /// file, over the limit if need be, so a reader the application does not read never starves another. Waits are
    /// tasks completed by a release, never a poll. Decode working memory is charged without waiting
    /// (<see cref="Charge"/>): a reader must always be able to decode what it holds, which is what frees it. Closing an
    /// account gives back everything it holds and ends its wait, so an abandoned download never keeps budget.
    /// </para>
    /// </remarks>
    internal sealed class MemoryBudget
    {
        private readonly object _gate = new object();
        private readonly LinkedList<Waiter> _waiters = new LinkedList<Waiter>();
        private readonly KeyValuePair<string, object?>[] _tags;
        private long _inUse;

        /// <param name="limit">Bytes in use beyond which readers that already hold a file wait.</param>
        /// <param name="scopeTag">The scope's meter tag; null: not published (a budget of its own for a component built without a scope).</param>
        public MemoryBudget(long limit, object? scopeTag = null)
        {
            if (limit <= 0)
            {
                throw new ArgumentOutOfRangeException(nameof(limit), limit, "must be positive");
            }

            Limit = limit;
            _tags = scopeTag == null
                ? System.Array.Empty<KeyValuePair<string, object?>>()
                : new[] { new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, scopeTag) };
            Publish(DatabricksMemoryMetrics.BudgetLimit, limit);
        }

        public long Limit { get; }

        /// <summary>Bytes granted and charged, not yet given back.</summary>
        public long InUse => Interlocked.Read(ref _inUse);

        /// <summary>Readers waiting for a grant.</summary>
        public int Waiters
        {
            get
            {
                lock (_gate)
                {
                    return _waiters.Count;
                }
            }
        }

        /// <summary>An account for one reader, which may hold at most <paramref name="readerLimit"/> bytes of files.</summary>
        public MemoryBudgetAccount OpenAccount(long readerLimit) => new MemoryBudgetAccount(this, readerLimit);

        /// <summary>Charges a decode's scratch block (needed to make progress): never waits, may go over the limit; files wait until <see cref="Uncharge"/>.</summary>
        public void Charge(long bytes)
        {
            lock (_gate)
            {
                AddInUse(bytes);
            }

            Publish(DatabricksMemoryMetrics.BudgetInUse, bytes);
        }

        public void Uncharge(long bytes)
        {
            WaiterEnds ends = default;
            lock (_gate)
            {
                AddInUse(-bytes);
                GrantWaiters(ref ends);
            }

            Publish(DatabricksMemoryMetrics.BudgetInUse, -bytes);
            ends.Run(this);
        }

        /// <summary>Gives the released scope's limit back to the meter (the scope's lifetime ends).</summary>
        internal void Unpublish() => Publish(DatabricksMemoryMetrics.BudgetLimit, -Limit);

        internal bool TryAcquire(MemoryBudgetAccount account, long bytes) => Acquire(account, bytes, evenOverLimits: false);

        /// <summary>
        /// Grants <paramref name="bytes"/> at once, over the reader's limit and the database's if need be: for what a reader
        /// must have to make progress (the download it waits for, a file already received), as the one-file rule grants a
        /// reader that holds nothing. Later requests of every reader wait until it is given back.
        /// </summary>
        internal void AcquireNow(MemoryBudgetAccount account, long bytes) => Acquire(account, bytes, evenOverLimits: true);

        /// <param name="account">The reader's account.</param>
        /// <param name="bytes">What it takes.</param>
        /// <param name="cancellationToken">Ends the wait.</param>
        /// <param name="oneFileRule">
        /// Whether the one-file rule grants it at once when its reader holds nothing. Adaptive prefetch asks without it: it
        /// charges files out of the reader's order, and makes progress otherwise (the file the reader waits for is taken
        /// at once), so by the rule a file ahead would go over the limit besides that one.
        /// </param>
        internal Task AcquireAsync(MemoryBudgetAccount account, long bytes, CancellationToken cancellationToken, bool oneFileRule = true)
        {
            Waiter? waiter = null;
            lock (_gate)
            {
                account.ThrowIfClosed();
                if (cancellationToken.IsCancellationRequested)
                {
                    return Task.FromCanceled(cancellationToken);
                }

                if (CanGrantNow(account, bytes, oneFileRule))
                {
                    Grant(account, bytes);
                }
                else
                {
                    waiter = new Waiter(account, bytes, cancellationToken, oneFileRule);
                    waiter.Node = _waiters.AddLast(waiter);
                }
            }

            if (waiter == null)
            {
                Publish(DatabricksMemoryMetrics.BudgetInUse, bytes);
                return Task.CompletedTask;
            }

            Publish(DatabricksMemoryMetrics.BudgetWaiters, 1);
            if (cancellationToken.CanBeCanceled)
            {
                // Outside the lock: a token cancelled already runs Abandon right here, and Abandon takes the lock.
                waiter.AttachRegistration(cancellationToken.Register(state => Abandon((Waiter)state!), waiter));
            }

            return waiter.Completion.Task;
        }

        internal void Release(MemoryBudgetAccount account, long bytes)
        {
            WaiterEnds ends = default;
            lock (_gate)
            {
                if (account.IsClosed)
                {
                    return; // closing gave everything back; a download that ended later has nothing left to return
                }

                if (bytes > account.Held)
                {
                    // Restore nothing: the caller's accounting is wrong, as upstream's manager says in this case.
                    throw new InvalidOperationException("Memory buffer manager released more memory than was acquired.");
                }

                account.Held -= bytes;
                AddInUse(-bytes);
                GrantWaiters(ref ends);
            }

            Publish(DatabricksMemoryMetrics.BudgetInUse, -bytes);
            ends.Run(this);
        }

        /// <summary>
        /// Closes <paramref name="account"/>: in one step under the lock it gives back what the account holds, ends every
        /// wait of the account and grants whoever that makes room for, so no release can slip in between and grant the
        /// closed account a file nobody would ever give back.
        /// </summary>
        internal void Close(MemoryBudgetAccount account)
        {
            WaiterEnds ends = default;
            long returned;
            lock (_gate)
            {
                if (account.IsClosed)
                {
                    return;
                }

                account.IsClosed = true;
                returned = account.Held;
                account.Held = 0;
                AddInUse(-returned);
                for (LinkedListNode<Waiter>? node = _waiters.First; node != null;)
                {
                    LinkedListNode<Waiter>? next = node.Next;
                    if (node.Value.Account == account)
                    {
                        Remove(node.Value);
                        ends.Add(node.Value, WaiterEnd.Closed);
                    }

                    node = next;
                }

                GrantWaiters(ref ends);
            }

            Publish(DatabricksMemoryMetrics.BudgetInUse, -returned);
            ends.Run(this);
        }

        private bool Acquire(MemoryBudgetAccount account, long bytes, bool evenOverLimits)
        {
            lock (_gate)
            {
                account.ThrowIfClosed();
                if (!evenOverLimits && !CanGrantNow(account, bytes, oneFileRule: true))
                {
                    return false;
                }

                Grant(account, bytes);
            }

            Publish(DatabricksMemoryMetrics.BudgetInUse, bytes);
            return true;
        }

        /// <summary>
        /// A new request is granted at once when it fits its reader's limit and either its reader holds nothing, or it
        /// fits the database's limit and no waiter held back by that limit is ahead of it. Callers hold <see cref="_gate"/>.
        /// </summary>
        private bool CanGrantNow(MemoryBudgetAccount account, long bytes, bool oneFileRule)
        {
            if (!FitsReader(account, bytes))
            {
                return false;
            }

            if (account.Held == 0 && oneFileRule)
            {
                return true;
            }

            if (_inUse + bytes > Limit)
            {
                return false;
            }

            foreach (Waiter waiter in _waiters)
            {
                if (FitsReader(waiter.Account, waiter.Bytes))
                {
                    return false; // it waits for the database's limit: first come, first served
                }
            }

            return true;
        }

        private static bool FitsReader(MemoryBudgetAccount account, long bytes) => account.Held + bytes <= account.Limit;

        private void Grant(MemoryBudgetAccount account, long bytes)
        {
            account.Held += bytes;
            AddInUse(bytes);
        }

        /// <summary>Under <see cref="_gate"/>; interlocked so that <see cref="InUse"/> reads it whole without the lock (a long on 32-bit .NET Framework).</summary>
        private void AddInUse(long delta) => Interlocked.Add(ref _inUse, delta);

        /// <summary>
        /// Grants waiters in arrival order, under <see cref="_gate"/>; the granted waits are completed by the caller once it
        /// has left the lock (<see cref="WaiterEnds.Run"/>). Closed accounts have no waiters: closing removes them.
        /// </summary>
        private void GrantWaiters(ref WaiterEnds ends)
        {
            bool fifoBlocked = false;
            LinkedListNode<Waiter>? node = _waiters.First;
            while (node != null)
            {
                LinkedListNode<Waiter>? next = node.Next;
                Waiter waiter = node.Value;
                MemoryBudgetAccount account = waiter.Account;
                if (FitsReader(account, waiter.Bytes))
                {
                    bool holdsNothing = account.Held == 0 && waiter.OneFileRule;
                    bool fitsDatabase = _inUse + waiter.Bytes <= Limit || holdsNothing;
                    if (fitsDatabase && (!fifoBlocked || holdsNothing))
                    {
                        Remove(waiter);
                        Grant(account, waiter.Bytes);
                        ends.Add(waiter, WaiterEnd.Granted);
                    }
                    else if (!fitsDatabase)
                    {
                        fifoBlocked = true; // later waiters must not overtake it (bar those holding nothing)
                    }
                }

                node = next;
            }
        }

        /// <summary>
        /// The cancellation callback of a wait: ends it unless a grant or a close ended it first, and frees whoever it held
        /// back. Runs on the cancelling thread; everything but the list update happens outside the lock.
        /// </summary>
        private void Abandon(Waiter waiter)
        {
            WaiterEnds ends = default;
            lock (_gate)
            {
                if (waiter.Node == null)
                {
                    return; // granted or closed already
                }

                Remove(waiter);
                ends.Add(waiter, WaiterEnd.Cancelled);
                GrantWaiters(ref ends);
            }

            ends.Run(this);
        }

        private void Remove(Waiter waiter)
        {
            _waiters.Remove(waiter.Node!);
            waiter.Node = null;
        }

        private void Publish(System.Diagnostics.Metrics.UpDownCounter<long> instrument, long delta)
        {
            if (_tags.Length > 0 && delta != 0)
            {
                instrument.Add(delta, _tags);
            }
        }

        /// <summary>
        /// Completes a wait that the lock holder took off the list, with the outcome it decided, after the lock is left:
        /// completing a task, disposing a registration and publishing a measurement may each run code of others
        /// (a continuation, a cancellation callback waited for, a meter listener), and none of it may run under the lock.
        /// </summary>
        private void End(Waiter waiter, WaiterEnd end)
        {
            Publish(DatabricksMemoryMetrics.BudgetWaiters, -1);
            switch (end)
            {
                case WaiterEnd.Granted:
                    Publish(DatabricksMemoryMetrics.BudgetInUse, waiter.Bytes);
                    if (_tags.Length > 0)
                    {
                        DatabricksMemoryMetrics.BudgetWaits.Add(1, _tags);
                        DatabricksMemoryMetrics.BudgetWaitTime.Add(waiter.Clock.Elapsed.TotalSeconds, _tags);
                    }

                    waiter.Completion.TrySetResult(true);
                    break;
                case WaiterEnd.Cancelled:
                    waiter.Completion.TrySetCanceled(waiter.CancellationToken);
                    break;
                default:
                    waiter.Completion.TrySetException(new ObjectDisposedException(nameof(MemoryBudgetAccount), "The reader's pipeline was disposed while it waited for memory."));
                    break;
            }

            waiter.DetachRegistration();
        }

        private enum WaiterEnd
        {
            Granted,
            Cancelled,
            Closed,
        }

        /// <summary>The waits one step under the lock ended, in the order it ended them (arrival order among grants).</summary>
        private struct WaiterEnds
        {
            private List<(Waiter Waiter, WaiterEnd End)>? _ends;

            public void Add(Waiter waiter, WaiterEnd end) => (_ends ??= new List<(Waiter, WaiterEnd)>()).Add((waiter, end));

            public void Run(MemoryBudget budget)
            {
                if (_ends == null)
                {
                    return;
                }

                foreach ((Waiter waiter, WaiterEnd end) in _ends)
                {
                    budget.End(waiter, end);
                }
            }
        }

        internal sealed class Waiter
        {
            // Its cancellation registration, attached after the wait is queued (outside the lock): null before, Ended once
            // the wait has ended; whichever of attach and end comes second disposes the registration.
            private static readonly object Ended = new object();
            private object? _registration;

            public Waiter(MemoryBudgetAccount account, long bytes, CancellationToken cancellationToken, bool oneFileRule)
            {
                Account = account;
                Bytes = bytes;
                CancellationToken = cancellationToken;
                OneFileRule = oneFileRule;
            }

            public MemoryBudgetAccount Account { get; }

            public long Bytes { get; }

            public bool OneFileRule { get; }

            public CancellationToken CancellationToken { get; }

            public Stopwatch Clock { get; } = Stopwatch.StartNew();

            public TaskCompletionSource<bool> Completion { get; } = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

            /// <summary>Its place in the budget's list while it waits; null once ended. Read and written under the budget's lock.</summary>
            public LinkedListNode<Waiter>? Node { get; set; }

            public void AttachRegistration(CancellationTokenRegistration registration)
            {
                if (Interlocked.CompareExchange(ref _registration, new StrongBox<CancellationTokenRegistration>(registration), null) != null)
                {
                    registration.DisposeWithoutWaiting(); // the wait ended before its registration was attached
                }
            }

            public void DetachRegistration()
            {
                if (Interlocked.Exchange(ref _registration, Ended) is StrongBox<CancellationTokenRegistration> attached)
                {
                    attached.Value.DisposeWithoutWaiting();
                }
            }
        }
    }

    /// <summary>
    /// One reader's share of a <see cref="MemoryBudget"/>: what it holds, within its own limit. Disposing it gives back
    /// whatever it still holds and ends its wait (<see cref="ObjectDisposedException"/>).
    /// </summary>
    internal sealed class MemoryBudgetAccount : IDisposable
    {
        internal MemoryBudgetAccount(MemoryBudget budget, long limit)
        {
            if (limit <= 0)
            {
                throw new ArgumentOutOfRangeException(nameof(limit), limit, "must be positive");
            }

            Budget = budget;
            Limit = limit;
        }

        /// <summary>This reader's own limit (upstream's memory_buffer_size_mb).</summary>
        public long Limit { get; }

        /// <summary>Bytes this reader holds. Read under the budget's lock, or as a snapshot.</summary>
        public long Held { get; internal set; }

        public MemoryBudget Budget { get; }

        internal bool IsClosed { get; set; }

        /// <summary>Takes <paramref name="bytes"/> now if they fit (and no one waits ahead); false otherwise.</summary>
        public bool TryAcquire(long bytes) => Budget.TryAcquire(this, Positive(bytes));

        /// <summary>
        /// Takes <paramref name="bytes"/>, waiting (without a thread) until they fit this reader's limit and the database's,
        /// in arrival order; at once if the reader holds nothing.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">More than this reader's limit: it could never be granted.</exception>
        public Task AcquireAsync(long bytes, CancellationToken cancellationToken) => AcquireAsync(bytes, cancellationToken, oneFileRule: true);

        /// <summary>As <see cref="AcquireAsync(long, CancellationToken)"/>; without the one-file rule when <paramref name="oneFileRule"/> is false (<see cref="MemoryBudget.AcquireAsync"/>).</summary>
        public Task AcquireAsync(long bytes, CancellationToken cancellationToken, bool oneFileRule)
        {
            if (Positive(bytes) > Limit)
            {
                throw new ArgumentOutOfRangeException(nameof(bytes), $"Requested size ({bytes} bytes) exceeds maximum memory ({Limit} bytes).");
            }

            return Budget.AcquireAsync(this, bytes, cancellationToken, oneFileRule);
        }

        /// <summary>Takes <paramref name="bytes"/> now, over the limits if need be (<see cref="MemoryBudget.AcquireNow"/>).</summary>
        public void AcquireNow(long bytes) => Budget.AcquireNow(this, Positive(bytes));

        public void Release(long bytes) => Budget.Release(this, Positive(bytes));

        public void Dispose() => Budget.Close(this);

        internal void ThrowIfClosed()
        {
            if (IsClosed)
            {
                throw new ObjectDisposedException(nameof(MemoryBudgetAccount));
            }
        }

        private static long Positive(long bytes) => bytes > 0 ? bytes : throw new ArgumentOutOfRangeException(nameof(bytes), "Size must be positive.");
    }
}
