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
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Asynchronous <c>Take</c>, <c>Add</c> and <c>CompleteAdding</c> for the CloudFetch pipeline's bounded
    /// <see cref="BlockingCollection{T}"/> queues: a wait for an item or for room releases its thread instead of
    /// blocking it, and costs nothing while nothing happens.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Why: upstream's result fetcher, downloader and reader wait on these queues with the blocking <c>Add</c>,
    /// <c>Take</c> and <c>GetConsumingEnumerable</c>, each on a thread-pool thread. In steady state three threads are
    /// parked that way, and the thread pool does not know they are blocked (only <c>Task.Wait</c> tells it). On a
    /// 2-core host it starts with 2 threads and adds one about every half second, so a fresh process stalls: the
    /// continuation that would hand the next file to the reader has no thread to run on. Measured on the real tag-21
    /// driver against the mock server, one 1 GB query: the download of files 8-10 started 957 ms after file 7, the
    /// reader waited 0.6-1.1 s, in most runs of both drivers. A real host (Power BI's mashup container on a small
    /// VM) is hit the same way.
    /// </para>
    /// <para>
    /// How: every queue gets a signal, completed and replaced whenever these methods add, take or complete it, so a
    /// waiter wakes as soon as the queue changes and not before. Changes made with the collection's own methods do not
    /// signal (upstream's tests fill the queues with the blocking <c>Add</c>; code outside the series may call
    /// <c>CompleteAdding</c>): one process-wide sweep looks every <see cref="SweepInterval"/>, only while some wait is
    /// pending, at the waited queues and wakes those whose waiters can make progress. No waiter polls on a timer of its
    /// own (an earlier version polled every 20 ms per waiter: 200 idle waiters cost ~0.5 s of CPU in 3 s). Semantics
    /// and exceptions follow the blocking methods, with one deliberate difference: a queue disposed while a call waits on
    /// it (the download manager's shutdown) ends the wait as shutdown, end of results or <see cref="OperationCanceledException"/>,
    /// not as <see cref="ObjectDisposedException"/>, which the blocking wait never threw at that point.
    /// </para>
    /// </remarks>
    internal static class BlockingQueueAsyncWaits
    {
        /// <summary>How often the process-wide sweep looks for changes made outside these methods, while any wait is pending.</summary>
        public static readonly TimeSpan SweepInterval = TimeSpan.FromMilliseconds(100);

        private static readonly ConditionalWeakTable<object, QueueSignal> s_signals = new ConditionalWeakTable<object, QueueSignal>();
        private static readonly HashSet<QueueSignal> s_waited = new HashSet<QueueSignal>();
        private static Timer? s_sweep;

        private enum TakeOutcome
        {
            Taken,
            Completed,
            ShutDown,
        }

        /// <summary>
        /// As <see cref="BlockingCollection{T}.Take(CancellationToken)"/>: the next item; <see cref="InvalidOperationException"/>
        /// when the queue is marked complete and empty; <see cref="OperationCanceledException"/> when cancelled, or when
        /// the queue is disposed while waiting.
        /// </summary>
        public static async Task<T> TakeAsync<T>(this BlockingCollection<T> queue, CancellationToken cancellationToken)
        {
            (TakeOutcome outcome, T? item) = await TakeCoreAsync(queue, cancellationToken).ConfigureAwait(false);
            switch (outcome)
            {
                case TakeOutcome.Taken:
                    return item!;
                case TakeOutcome.Completed:
                    try
                    {
                        // Complete and empty for good: the blocking Take returns at once, throwing the runtime's own exception.
                        return queue.Take(cancellationToken);
                    }
                    catch (ObjectDisposedException)
                    {
                        throw QueueShutDown(cancellationToken); // disposed since this call saw it complete
                    }

                default:
                    throw QueueShutDown(cancellationToken);
            }
        }

        /// <summary>One step of <c>GetConsumingEnumerable</c>: the next item, or null once complete and empty (or disposed while waiting).</summary>
        public static async Task<T?> TakeOrNullWhenCompletedAsync<T>(this BlockingCollection<T> queue, CancellationToken cancellationToken)
            where T : class
        {
            (TakeOutcome outcome, T? item) = await TakeCoreAsync(queue, cancellationToken).ConfigureAwait(false);
            return outcome == TakeOutcome.Taken ? item : null;
        }

        /// <summary>
        /// As <see cref="BlockingCollection{T}.Add(T, CancellationToken)"/>: waits for room in a bounded queue;
        /// <see cref="InvalidOperationException"/> once the queue is marked complete for adding;
        /// <see cref="OperationCanceledException"/> when cancelled, or when the queue is disposed while waiting.
        /// </summary>
        public static async Task AddAsync<T>(this BlockingCollection<T> queue, T item, CancellationToken cancellationToken)
        {
            QueueSignal signal = SignalOf(queue);
            bool waited = false;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                // Taken before looking, so a change made between the look and the wait still wakes this waiter.
                Task changed = signal.NextChange;
                try
                {
                    if (queue.TryAdd(item))
                    {
                        signal.Pulse();
                        return;
                    }
                }
                catch (ObjectDisposedException) when (waited)
                {
                    throw QueueShutDown(cancellationToken);
                }

                waited = true;
                await signal.WaitAsync(changed, WaiterKind.Add, cancellationToken).ConfigureAwait(false);
            }
        }

        /// <summary><see cref="BlockingCollection{T}.CompleteAdding"/>, then wakes every waiter of these methods on the queue at once.</summary>
        public static void CompleteAddingAndWake<T>(this BlockingCollection<T> queue)
        {
            queue.CompleteAdding();
            if (s_signals.TryGetValue(queue, out QueueSignal? signal))
            {
                signal.Pulse();
            }
        }

        private static async Task<(TakeOutcome Outcome, T? Item)> TakeCoreAsync<T>(BlockingCollection<T> queue, CancellationToken cancellationToken)
        {
            QueueSignal signal = SignalOf(queue);
            bool waited = false;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Task changed = signal.NextChange;
                try
                {
                    if (queue.TryTake(out T? item))
                    {
                        signal.Pulse();
                        return (TakeOutcome.Taken, item);
                    }

                    if (queue.IsCompleted)
                    {
                        return (TakeOutcome.Completed, default);
                    }
                }
                catch (ObjectDisposedException) when (waited)
                {
                    // Disposed while this call waited: the owner shut the pipeline down. (Disposed before the call: the
                    // exception stands, as from the blocking Take.)
                    return (TakeOutcome.ShutDown, default);
                }

                waited = true;
                await signal.WaitAsync(changed, WaiterKind.Take, cancellationToken).ConfigureAwait(false);
            }
        }

        /// <summary>How many times the waits on <paramref name="queue"/> have woken so far (diagnostics: an idle waiter never wakes).</summary>
        internal static long WakeUps<T>(BlockingCollection<T> queue) =>
            s_signals.TryGetValue(queue, out QueueSignal? signal) ? signal.WakeUps : 0;

        private static OperationCanceledException QueueShutDown(CancellationToken cancellationToken) =>
            new OperationCanceledException("The queue was disposed (shut down) while waiting on it.", cancellationToken);

        private static QueueSignal SignalOf<T>(BlockingCollection<T> queue) => s_signals.GetValue(queue, q => new QueueSignal<T>((BlockingCollection<T>)q));

        /// <summary>Counts a waiter of the queue and puts the queue under the sweep (started with the first waited queue).</summary>
        private static void StartWaiting(QueueSignal signal, WaiterKind kind)
        {
            lock (s_waited)
            {
                signal.Waiters(kind)++;
                if (s_waited.Add(signal) && s_waited.Count == 1)
                {
                    s_sweep ??= new Timer(_ => Sweep(), null, Timeout.Infinite, Timeout.Infinite);
                    s_sweep.Change(SweepInterval, SweepInterval);
                }
            }
        }

        /// <summary>Uncounts a waiter; the queue leaves the sweep with its last waiter, and the sweep stops with the last queue.</summary>
        private static void StopWaiting(QueueSignal signal, WaiterKind kind)
        {
            lock (s_waited)
            {
                signal.Waiters(kind)--;
                if (signal.Waiters(WaiterKind.Take) == 0 && signal.Waiters(WaiterKind.Add) == 0 && s_waited.Remove(signal) && s_waited.Count == 0)
                {
                    s_sweep!.Change(Timeout.Infinite, Timeout.Infinite);
                }
            }
        }

        /// <summary>Wakes the waiters of every queue changed outside these methods so that a waiter can make progress.</summary>
        private static void Sweep()
        {
            QueueSignal[] waited;
            lock (s_waited)
            {
                waited = new QueueSignal[s_waited.Count];
                s_waited.CopyTo(waited);
            }

            foreach (QueueSignal signal in waited)
            {
                if (signal.WaiterCanProceed())
                {
                    signal.Pulse();
                }
            }
        }

        private enum WaiterKind
        {
            Take,
            Add,
        }

        /// <summary>A task that completes at the queue's next change made through these methods (or found by the sweep).</summary>
        private abstract class QueueSignal
        {
            private TaskCompletionSource<bool> _next = NewSource();
            private int _takers; // both changed under the sweep's lock only
            private int _adders;
            private long _wakeUps;

            public Task NextChange => Volatile.Read(ref _next).Task;

            public long WakeUps => Interlocked.Read(ref _wakeUps);

            protected bool HasTakers => Volatile.Read(ref _takers) > 0;

            protected bool HasAdders => Volatile.Read(ref _adders) > 0;

            public ref int Waiters(WaiterKind kind) => ref kind == WaiterKind.Take ? ref _takers : ref _adders;

            public void Pulse() => Interlocked.Exchange(ref _next, NewSource()).TrySetResult(true);

            /// <summary>Whether a waiting taker would find an item or the end, or a waiting adder room or the end.</summary>
            public abstract bool WaiterCanProceed();

            public async Task WaitAsync(Task changed, WaiterKind kind, CancellationToken cancellationToken)
            {
                StartWaiting(this, kind);
                try
                {
                    await WhenChangedOrCancelledAsync(changed, cancellationToken).ConfigureAwait(false);
                }
                finally
                {
                    StopWaiting(this, kind);
                    Interlocked.Increment(ref _wakeUps);
                }
            }

            /// <summary>Returns when <paramref name="changed"/> completes or the token is cancelled (the caller then sees the token).</summary>
            private static async Task WhenChangedOrCancelledAsync(Task changed, CancellationToken cancellationToken)
            {
                if (!cancellationToken.CanBeCanceled)
                {
                    await changed.ConfigureAwait(false);
                    return;
                }

                var cancelled = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                using (cancellationToken.Register(state => ((TaskCompletionSource<bool>)state!).TrySetResult(true), cancelled))
                {
                    await Task.WhenAny(changed, cancelled.Task).ConfigureAwait(false);
                }
            }

            // Asynchronous continuations: the pulsing thread (a download's completion, say) must not go on to run
            // the woken waiter's work (decoding the next file) inline.
            private static TaskCompletionSource<bool> NewSource() => new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        }

        private sealed class QueueSignal<T> : QueueSignal
        {
            private readonly BlockingCollection<T> _queue;

            public QueueSignal(BlockingCollection<T> queue)
            {
                _queue = queue;
            }

            public override bool WaiterCanProceed()
            {
                try
                {
                    int count = _queue.Count;
                    bool completed = _queue.IsAddingCompleted;
                    return completed
                        || (HasTakers && count > 0)
                        || (HasAdders && (_queue.BoundedCapacity < 0 || count < _queue.BoundedCapacity));
                }
                catch (ObjectDisposedException)
                {
                    return true; // disposed: every waiter ends
                }
            }
        }
    }
}
