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
    /// (<see cref="Charge"/>): a reader must always be able to decode what it holds, which is what frees it.
    /// </para>
    /// <para>
    /// Closing an account (its reader's pipeline disposed) gives back everything it still holds and ends its wait, so a
    /// cancelled, faulted or abandoned download never keeps budget. Published on the scope's meter: limit, in use,
    /// waiters, waits and wait time.
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

        /// <summary>
        /// Charges working memory (a decode's scratch block) that a reader needs to make progress: never waits, and may
        /// go over the limit; files wait until it is given back (<see cref="Uncharge"/>).
        /// </summary>
        public void Charge(long bytes)
        {
            lock (_gate)
            {
                Add(bytes);
            }
        }

        public void Uncharge(long bytes)
        {
            lock (_gate)
            {
                Add(-bytes);
                GrantWaiters();
            }
        }

        /// <summary>Gives the released scope's limit back to the meter (the scope's lifetime ends).</summary>
        internal void Unpublish() => Publish(DatabricksMemoryMetrics.BudgetLimit, -Limit);

        internal bool TryAcquire(MemoryBudgetAccount account, long bytes)
        {
            lock (_gate)
            {
                account.ThrowIfClosed();
                if (!CanGrantNow(account, bytes))
                {
                    return false;
                }

                Grant(account, bytes);
                return true;
            }
        }

        internal Task AcquireAsync(MemoryBudgetAccount account, long bytes, CancellationToken cancellationToken)
        {
            Waiter waiter;
            lock (_gate)
            {
                account.ThrowIfClosed();
                if (cancellationToken.IsCancellationRequested)
                {
                    return Task.FromCanceled(cancellationToken);
                }

                if (CanGrantNow(account, bytes))
                {
                    Grant(account, bytes);
                    return Task.CompletedTask;
                }

                waiter = new Waiter(account, bytes);
                waiter.Node = _waiters.AddLast(waiter);
                account.Waiter = waiter;
                Publish(DatabricksMemoryMetrics.BudgetWaiters, 1);
            }

            if (cancellationToken.CanBeCanceled)
            {
                waiter.Registration = cancellationToken.Register(() => Abandon(waiter, w => w.Completion.TrySetCanceled(cancellationToken)));
            }

            return waiter.Completion.Task;
        }

        internal void Release(MemoryBudgetAccount account, long bytes)
        {
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
                Add(-bytes);
                GrantWaiters();
            }
        }

        internal void Close(MemoryBudgetAccount account)
        {
            Waiter? waiter;
            lock (_gate)
            {
                if (account.IsClosed)
                {
                    return;
                }

                account.IsClosed = true;
                Add(-account.Held);
                account.Held = 0;
                waiter = account.Waiter;
            }

            if (waiter != null)
            {
                Abandon(waiter, w => w.Completion.TrySetException(new ObjectDisposedException(nameof(MemoryBudgetAccount), "The reader's pipeline was disposed while it waited for memory.")));
            }

            lock (_gate)
            {
                GrantWaiters();
            }
        }

        /// <summary>
        /// A new request is granted at once when it fits its reader's limit and either its reader holds nothing, or it
        /// fits the database's limit and no waiter held back by that limit is ahead of it. Callers hold <see cref="_gate"/>.
        /// </summary>
        private bool CanGrantNow(MemoryBudgetAccount account, long bytes)
        {
            if (!FitsReader(account, bytes))
            {
                return false;
            }

            if (account.Held == 0)
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
            Add(bytes);
        }

        /// <summary>Serves waiters in arrival order. Callers hold <see cref="_gate"/>.</summary>
        private void GrantWaiters()
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
                    bool fitsDatabase = _inUse + waiter.Bytes <= Limit || account.Held == 0;
                    if (fitsDatabase && (!fifoBlocked || account.Held == 0))
                    {
                        Remove(waiter);
                        Grant(account, waiter.Bytes);
                        if (_tags.Length > 0)
                        {
                            DatabricksMemoryMetrics.BudgetWaits.Add(1, _tags);
                            DatabricksMemoryMetrics.BudgetWaitTime.Add(waiter.Clock.Elapsed.TotalSeconds, _tags);
                        }

                        waiter.Registration.Dispose();
                        waiter.Completion.TrySetResult(true);
                    }
                    else if (!fitsDatabase)
                    {
                        fifoBlocked = true; // later waiters must not overtake it (bar those holding nothing)
                    }
                }

                node = next;
            }
        }

        /// <summary>Ends a wait that will not be granted (cancelled, or its account closed); frees whoever it held back.</summary>
        private void Abandon(Waiter waiter, Action<Waiter> end)
        {
            lock (_gate)
            {
                if (waiter.Node == null)
                {
                    return; // granted or abandoned already
                }

                Remove(waiter);
                GrantWaiters();
            }

            waiter.Registration.Dispose();
            end(waiter);
        }

        private void Remove(Waiter waiter)
        {
            _waiters.Remove(waiter.Node!);
            waiter.Node = null;
            if (waiter.Account.Waiter == waiter)
            {
                waiter.Account.Waiter = null;
            }

            Publish(DatabricksMemoryMetrics.BudgetWaiters, -1);
        }

        private void Add(long bytes)
        {
            Interlocked.Add(ref _inUse, bytes);
            Publish(DatabricksMemoryMetrics.BudgetInUse, bytes);
        }

        private void Publish(System.Diagnostics.Metrics.UpDownCounter<long> instrument, long delta)
        {
            if (_tags.Length > 0)
            {
                instrument.Add(delta, _tags);
            }
        }

        internal sealed class Waiter
        {
            public Waiter(MemoryBudgetAccount account, long bytes)
            {
                Account = account;
                Bytes = bytes;
            }

            public MemoryBudgetAccount Account { get; }

            public long Bytes { get; }

            public Stopwatch Clock { get; } = Stopwatch.StartNew();

            public TaskCompletionSource<bool> Completion { get; } = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

            public LinkedListNode<Waiter>? Node { get; set; }

            public CancellationTokenRegistration Registration { get; set; }
        }
    }

    /// <summary>
    /// One reader's share of a <see cref="MemoryBudget"/>: what it holds, within its own limit. Disposing it gives back
    /// whatever it still holds and ends its wait (<see cref="ObjectDisposedException"/>).
    /// </summary>
    internal sealed class MemoryBudgetAccount : IDisposable
    {
        private readonly MemoryBudget _budget;

        internal MemoryBudgetAccount(MemoryBudget budget, long limit)
        {
            if (limit <= 0)
            {
                throw new ArgumentOutOfRangeException(nameof(limit), limit, "must be positive");
            }

            _budget = budget;
            Limit = limit;
        }

        /// <summary>This reader's own limit (upstream's memory_buffer_size_mb).</summary>
        public long Limit { get; }

        /// <summary>Bytes this reader holds. Read under the budget's lock, or as a snapshot.</summary>
        public long Held { get; internal set; }

        public MemoryBudget Budget => _budget;

        internal bool IsClosed { get; set; }

        internal MemoryBudget.Waiter? Waiter { get; set; }

        /// <summary>Takes <paramref name="bytes"/> now if they fit (and no one waits ahead); false otherwise.</summary>
        public bool TryAcquire(long bytes) => _budget.TryAcquire(this, Positive(bytes));

        /// <summary>
        /// Takes <paramref name="bytes"/>, waiting (without a thread) until they fit this reader's limit and the database's,
        /// in arrival order; at once if the reader holds nothing.
        /// </summary>
        /// <exception cref="ArgumentOutOfRangeException">More than this reader's limit: it could never be granted.</exception>
        public Task AcquireAsync(long bytes, CancellationToken cancellationToken)
        {
            if (Positive(bytes) > Limit)
            {
                throw new ArgumentOutOfRangeException(nameof(bytes), $"Requested size ({bytes} bytes) exceeds maximum memory ({Limit} bytes).");
            }

            return _budget.AcquireAsync(this, bytes, cancellationToken);
        }

        public void Release(long bytes) => _budget.Release(this, Positive(bytes));

        public void Dispose() => _budget.Close(this);

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
