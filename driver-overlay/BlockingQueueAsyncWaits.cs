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
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Asynchronous <c>Take</c> and <c>Add</c> for the CloudFetch pipeline's bounded <see cref="BlockingCollection{T}"/>
    /// queues: a wait for an item or for room releases its thread instead of blocking it.
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
    /// How: every queue gets a signal, completed and replaced whenever these methods add or take an item, so a
    /// waiter wakes as soon as the queue changes. Upstream's own tests add to the same queues with the blocking
    /// methods, which do not signal, and <c>CompleteAdding</c> does not either: a waiter therefore also looks again
    /// every <see cref="PollInterval"/>. Semantics otherwise follow the blocking methods they replace, exceptions
    /// included.
    /// </para>
    /// </remarks>
    internal static class BlockingQueueAsyncWaits
    {
        /// <summary>How long a waiter sleeps at most before it looks at the queue again (changes made outside these methods).</summary>
        public static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(20);

        private static readonly ConditionalWeakTable<object, QueueSignal> s_signals = new ConditionalWeakTable<object, QueueSignal>();

        /// <summary>
        /// As <see cref="BlockingCollection{T}.Take(CancellationToken)"/>: the next item; <see cref="InvalidOperationException"/>
        /// when the queue is marked complete and empty; <see cref="OperationCanceledException"/> when cancelled.
        /// </summary>
        public static async Task<T> TakeAsync<T>(this BlockingCollection<T> queue, CancellationToken cancellationToken)
        {
            QueueSignal signal = SignalOf(queue);
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                // Taken before looking, so a change made between the look and the wait still wakes this waiter.
                Task changed = signal.NextChange;
                if (queue.TryTake(out T? item))
                {
                    signal.Pulse();
                    return item!;
                }

                if (queue.IsCompleted)
                {
                    // Complete and empty for good: the blocking Take returns at once, throwing the runtime's own exception.
                    return queue.Take(cancellationToken);
                }

                await WaitForChangeAsync(changed, cancellationToken).ConfigureAwait(false);
            }
        }

        /// <summary>
        /// One step of <see cref="BlockingCollection{T}.GetConsumingEnumerable(CancellationToken)"/>: the next item, or
        /// null once the queue is marked complete and empty.
        /// </summary>
        public static async Task<T?> TakeOrNullWhenCompletedAsync<T>(this BlockingCollection<T> queue, CancellationToken cancellationToken)
            where T : class
        {
            try
            {
                return await queue.TakeAsync(cancellationToken).ConfigureAwait(false);
            }
            catch (InvalidOperationException) when (queue.IsCompleted)
            {
                return null;
            }
        }

        /// <summary>
        /// As <see cref="BlockingCollection{T}.Add(T, CancellationToken)"/>: waits for room in a bounded queue;
        /// <see cref="InvalidOperationException"/> once the queue is marked complete for adding.
        /// </summary>
        public static async Task AddAsync<T>(this BlockingCollection<T> queue, T item, CancellationToken cancellationToken)
        {
            QueueSignal signal = SignalOf(queue);
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Task changed = signal.NextChange;
                if (queue.TryAdd(item))
                {
                    signal.Pulse();
                    return;
                }

                await WaitForChangeAsync(changed, cancellationToken).ConfigureAwait(false);
            }
        }

        private static QueueSignal SignalOf(object queue) => s_signals.GetValue(queue, _ => new QueueSignal());

        private static async Task WaitForChangeAsync(Task changed, CancellationToken cancellationToken)
        {
            using var stopDelay = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            Task delay = Task.Delay(PollInterval, stopDelay.Token);
            await Task.WhenAny(changed, delay).ConfigureAwait(false);
            // Ends the timer when the signal came first; a cancelled caller sees its token on the next look.
            stopDelay.Cancel();
        }

        /// <summary>A task that completes at the queue's next change made through these methods.</summary>
        private sealed class QueueSignal
        {
            private TaskCompletionSource<bool> _next = NewSource();

            public Task NextChange => Volatile.Read(ref _next).Task;

            public void Pulse() => Interlocked.Exchange(ref _next, NewSource()).TrySetResult(true);

            // Asynchronous continuations: the pulsing thread (a download's completion, say) must not go on to run
            // the woken waiter's work (decoding the next file) inline.
            private static TaskCompletionSource<bool> NewSource() => new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        }
    }
}
