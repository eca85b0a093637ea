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
using System.Net.Http;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// One CloudFetch reader's prefetch, adapted to the bottleneck inside its database's budget: when its download loop may
    /// start the next file (<see cref="StartAsync"/>, by <see cref="PrefetchRule"/> from what the reader finds when it asks,
    /// <see cref="Taken"/>, and from the downloads' completions, <see cref="Ended"/>), and how a download's body is paid
    /// for (<see cref="ReadContentAsync"/>).
    /// </summary>
    /// <remarks>
    /// <para>
    /// Paying for a body: each file is charged whole to the reader's account before its body is read into one pooled
    /// array, as the fixed pipeline charges it. The charge waits in the budget's order when the database's or the reader's
    /// limit is reached, until the reader takes the file and waits for it: then the wait ends and the file is taken at
    /// once, over the limit if need be (the reader has given back the file it read before, and holds nothing else it
    /// could read). So every reader progresses, and beyond the budget a reader holds at most the one file it waits for:
    /// the budget's one-file rule (a reader that holds nothing is granted at once) is not asked for, since a file ahead
    /// of the one the reader waits for may be charged first, and by the rule would go over the limit too. A completed
    /// body holds exactly its file's size (upstream's charge, given back when the reader is done with the file). Why not
    /// charge a download by what it has received (chunks, joined when complete): measured, it fitted twice the downloads
    /// in the budget, but the joined whole-file arrays and the chunks missed each other's pool buckets, and the working
    /// set grew to 3-5x the budget in garbage (docs/decisions.md, "Adaptive prefetch").
    /// </para>
    /// <para>
    /// Lock discipline as <see cref="MemoryBudget"/>'s: every decision under the lock; waits completed, cancellations ended,
    /// registrations ended and measurements published after leaving it. One download loop per reader calls
    /// <see cref="StartAsync"/>; completions (the downloads' continuations), the reader's takes, body reads and
    /// <see cref="Dispose"/> come from any thread at once.
    /// </para>
    /// </remarks>
    internal sealed class AdaptivePrefetch : IDisposable
    {
        private readonly object _gate = new object();
        private readonly DatabricksMemoryScope _scope;
        private readonly MemoryBudgetAccount _account;
        private readonly PrefetchRule _rule;
        private readonly Func<long> _clock;
        private readonly KeyValuePair<string, object?>[] _tags;

        // Started and not yet done with, in start order, which is the reader's order: downloading, or downloaded and waiting.
        private readonly List<Download> _downloads = new List<Download>();
        private int _inFlight;
        private int _waiting;
        private RoomWait? _roomWait;
        private bool _closed;

        /// <param name="scope">The scope whose pool the bodies are read into and whose meter shows the counts.</param>
        /// <param name="account">The reader's account of the database's budget (its memory manager's).</param>
        /// <param name="maxFiles">The most files ahead of the reader: the host's bound, or <see cref="PrefetchRule.DefaultMaxFiles"/>.</param>
        /// <param name="clock">Timestamps for the throughput measurements; <see cref="Stopwatch.GetTimestamp"/> when null.</param>
        internal AdaptivePrefetch(DatabricksMemoryScope scope, MemoryBudgetAccount account, int maxFiles, Func<long>? clock = null)
        {
            _scope = scope ?? throw new ArgumentNullException(nameof(scope));
            _account = account ?? throw new ArgumentNullException(nameof(account));
            _clock = clock ?? Stopwatch.GetTimestamp;
            _rule = new PrefetchRule(maxFiles, _clock());
            _tags = scope.IsReleased
                ? System.Array.Empty<KeyValuePair<string, object?>>()
                : new[] { new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, scope.IdTag) };
            Publish(0, 0, _rule.Limit);
        }

        /// <summary>
        /// The adaptive prefetch of a new reader, or null when the database turned it off
        /// (<see cref="DatabricksMemoryOptions.AdaptivePrefetchKey"/>=false: the fixed pipeline).
        /// </summary>
        /// <param name="scope">The reader's memory scope.</param>
        /// <param name="account">The reader's account of the database's budget.</param>
        /// <param name="parallelDownloads">Upstream's <c>parallel_downloads</c> when the host set it: the most downloads at once.</param>
        /// <param name="prefetchCount">Upstream's <c>prefetch_count</c> when the host set it: at most twice as many files ahead (its queues' capacity).</param>
        public static AdaptivePrefetch? ForReader(DatabricksMemoryScope scope, MemoryBudgetAccount account, int? parallelDownloads, int? prefetchCount)
        {
            if (!scope.Options.AdaptivePrefetch)
            {
                return null;
            }

            int maxFiles = parallelDownloads ?? PrefetchRule.DefaultMaxFiles;
            if (prefetchCount.HasValue)
            {
                maxFiles = (int)Math.Min(maxFiles, 2L * prefetchCount.Value);
            }

            return new AdaptivePrefetch(scope, account, Math.Max(1, maxFiles));
        }

        /// <summary>The most files ahead of the reader: what the pipeline's queues must hold.</summary>
        public int MaxFiles => _rule.MaxFiles;

        /// <summary>Files the reader may have ahead of it now (downloading or waiting).</summary>
        public int Limit
        {
            get
            {
                lock (_gate)
                {
                    return _rule.Limit;
                }
            }
        }

        /// <summary>Downloads in progress.</summary>
        public int InFlight
        {
            get
            {
                lock (_gate)
                {
                    return _inFlight;
                }
            }
        }

        /// <summary>Files downloaded and not yet taken by the reader.</summary>
        public int Waiting
        {
            get
            {
                lock (_gate)
                {
                    return _waiting;
                }
            }
        }

        /// <summary>
        /// Waits (without a thread) until the reader may have one more file ahead of it, then counts
        /// <paramref name="file"/>'s download as started. The download loop calls it once per file, in the reader's order.
        /// </summary>
        /// <param name="file">The file (its download result), as <see cref="Ended"/>, <see cref="Taken"/> and <see cref="ReadContentAsync"/> will name it.</param>
        /// <param name="size">Its size as the link gives it: what the budget holds for it once downloaded.</param>
        /// <param name="cancellationToken">Ends the wait (<see cref="OperationCanceledException"/>).</param>
        /// <exception cref="ObjectDisposedException">The reader's pipeline was disposed.</exception>
        public async Task StartAsync(object file, long size, CancellationToken cancellationToken)
        {
            while (true)
            {
                RoomWait? wait = null;
                lock (_gate)
                {
                    ThrowIfClosed();
                    cancellationToken.ThrowIfCancellationRequested();
                    if (_rule.CanStart(_inFlight, _waiting))
                    {
                        _downloads.Add(new Download(file, size));
                        _inFlight++;
                    }
                    else if (_roomWait != null)
                    {
                        throw new InvalidOperationException("Only one download loop may wait to start a file.");
                    }
                    else
                    {
                        wait = _roomWait = new RoomWait(cancellationToken);
                    }
                }

                if (wait == null)
                {
                    Publish(1, 0, 0);
                    return;
                }

                if (cancellationToken.CanBeCanceled)
                {
                    // Outside the lock: a token cancelled already runs the callback right here, and it takes the lock.
                    wait.AttachRegistration(cancellationToken.Register(state => CancelRoomWait((RoomWait)state!), wait));
                }

                await wait.Completion.Task.ConfigureAwait(false);
            }
        }

        /// <summary>
        /// <paramref name="file"/>'s download ended: <paramref name="completed"/> (its data handed to its result) or not
        /// (failed or cancelled). Downloaded, it waits for the reader unless the reader already took it.
        /// </summary>
        public void Ended(object file, bool completed)
        {
            Counts counts = default;
            RoomWait? room;
            lock (_gate)
            {
                Download? download = Find(file);
                if (_closed || download == null || download.State == DownloadState.Waiting)
                {
                    return;
                }

                _inFlight--;
                counts.InFlight = -1;
                if (completed)
                {
                    _rule.DownloadCompleted(download.Size, _clock());
                }

                if (completed && download.State == DownloadState.InFlight)
                {
                    download.State = DownloadState.Waiting;
                    _waiting++;
                    counts.Waiting = 1;
                }
                else
                {
                    _downloads.Remove(download);
                }

                room = TakeRoomWaitIfRoom();
            }

            Publish(counts.InFlight, counts.Waiting, 0);
            room?.End(RoomWait.Outcome.Room);
        }

        /// <summary>
        /// The reader took <paramref name="file"/>, its next one, which had finished downloading (<paramref name="ready"/>)
        /// or not: what <see cref="PrefetchRule"/> decides from.
        /// </summary>
        public void Taken(object file, bool ready)
        {
            Counts counts = default;
            RoomWait? room;
            CancellationTokenSource? promoted = null;
            lock (_gate)
            {
                Download? download = Find(file);
                if (_closed || download == null || download.State == DownloadState.TakenInFlight)
                {
                    return;
                }

                int readyFiles = _waiting + (ready && download.State != DownloadState.Waiting ? 1 : 0);
                int ahead = _inFlight + _waiting;
                if (download.State == DownloadState.Waiting)
                {
                    _downloads.Remove(download);
                    _waiting--;
                    counts.Waiting = -1;
                }
                else
                {
                    // The reader waits for it: from now on it never waits for the budget.
                    download.State = DownloadState.TakenInFlight;
                    download.IsNext = true;
                    promoted = download.BudgetWait;
                }

                int limit = _rule.Limit;
                _rule.ReaderAsked(ready, readyFiles, ahead, _clock());
                counts.Window = _rule.Limit - limit;
                room = TakeRoomWaitIfRoom();
            }

            Publish(0, counts.Waiting, counts.Window);
            promoted?.Cancel(); // ends its wait for the budget: ReserveAsync takes the bytes at once
            room?.End(RoomWait.Outcome.Room);
        }

        /// <summary>
        /// Reads <paramref name="file"/>'s response body into the scope's pool once its size is paid for (see the remarks);
        /// on success the file holds exactly its size, which its result gives back when disposed; on failure nothing of it
        /// stays charged (a retry starts over).
        /// </summary>
        /// <exception cref="System.IO.IOException">The body is shorter or longer than its Content-Length.</exception>
        public async Task<PooledBuffer> ReadContentAsync(object file, HttpContent content, CancellationToken cancellationToken)
        {
            Download download;
            lock (_gate)
            {
                ThrowIfClosed();
                download = Find(file) ?? throw new InvalidOperationException("The file's download was not started through StartAsync.");
            }

            var charge = new BodyCharge(this, download, cancellationToken);
            try
            {
                await charge.ReserveAsync(download.Size).ConfigureAwait(false);
                PooledBuffer body = await _scope.Lz4.ReadContentAsync(content, cancellationToken).ConfigureAwait(false);
                charge.HandOver();
                return body;
            }
            catch
            {
                charge.GiveBack();
                throw;
            }
        }

        /// <summary>Ends the reader's prefetch: its counts leave the meter, and a wait to start ends (<see cref="ObjectDisposedException"/>).</summary>
        public void Dispose()
        {
            RoomWait? room;
            Counts counts;
            lock (_gate)
            {
                if (_closed)
                {
                    return;
                }

                _closed = true;
                counts = new Counts { InFlight = -_inFlight, Waiting = -_waiting, Window = -_rule.Limit };
                _inFlight = 0;
                _waiting = 0;
                _downloads.Clear();
                room = _roomWait;
                _roomWait = null;
            }

            Publish(counts.InFlight, counts.Waiting, counts.Window);
            room?.End(RoomWait.Outcome.Closed);
        }

        /// <summary>Whether <paramref name="download"/> is the reader's next file now.</summary>
        private bool IsNext(Download download)
        {
            lock (_gate)
            {
                ThrowIfClosed();
                return download.IsNext;
            }
        }

        /// <summary>The budget-wait cancellation of a download that is not the reader's next file; null once it is.</summary>
        private CancellationTokenSource? BudgetWaitOf(Download download)
        {
            lock (_gate)
            {
                ThrowIfClosed();
                if (download.IsNext)
                {
                    return null;
                }

                // Not yet the reader's next file, so a source cancelled already was cancelled by an earlier attempt's own
                // token (a straggler or body timeout, then a retry): this attempt waits on a new one.
                if (download.BudgetWait == null || download.BudgetWait.IsCancellationRequested)
                {
                    download.BudgetWait = new CancellationTokenSource();
                }

                return download.BudgetWait;
            }
        }

        private void BudgetWaited()
        {
            lock (_gate)
            {
                _rule.BudgetWaited();
            }
        }

        private Download? Find(object file)
        {
            foreach (Download download in _downloads)
            {
                if (ReferenceEquals(download.File, file))
                {
                    return download;
                }
            }

            return null;
        }

        /// <summary>Under the lock: the loop's wait, taken off to be completed after the lock, when it may start a file now.</summary>
        private RoomWait? TakeRoomWaitIfRoom()
        {
            RoomWait? room = _roomWait;
            if (room == null || !_rule.CanStart(_inFlight, _waiting))
            {
                return null;
            }

            _roomWait = null;
            return room;
        }

        private void CancelRoomWait(RoomWait wait)
        {
            lock (_gate)
            {
                if (_roomWait != wait)
                {
                    return; // ended already
                }

                _roomWait = null;
            }

            wait.End(RoomWait.Outcome.Cancelled);
        }

        private void ThrowIfClosed()
        {
            if (_closed)
            {
                throw new ObjectDisposedException(nameof(AdaptivePrefetch), "The reader's pipeline was disposed.");
            }
        }

        private void Publish(int inFlight, int waiting, int window)
        {
            if (_tags.Length == 0)
            {
                return;
            }

            if (inFlight != 0)
            {
                DatabricksMemoryMetrics.PrefetchInFlight.Add(inFlight, _tags);
            }

            if (waiting != 0)
            {
                DatabricksMemoryMetrics.PrefetchWaiting.Add(waiting, _tags);
            }

            if (window != 0)
            {
                DatabricksMemoryMetrics.PrefetchWindow.Add(window, _tags);
            }
        }

        private enum DownloadState
        {
            /// <summary>Downloading, not yet taken by the reader.</summary>
            InFlight,

            /// <summary>Downloaded, waiting for the reader.</summary>
            Waiting,

            /// <summary>Taken by the reader (which now waits for it) while still downloading.</summary>
            TakenInFlight,
        }

        /// <summary>Changes of the meter's counts, made under the lock and published after it.</summary>
        private struct Counts
        {
            public int InFlight;
            public int Waiting;
            public int Window;
        }

        /// <summary>One started file. Read and written under the prefetch's lock.</summary>
        private sealed class Download
        {
            public Download(object file, long size)
            {
                File = file;
                Size = size;
            }

            public object File { get; }

            public long Size { get; }

            public DownloadState State { get; set; }

            /// <summary>Taken by the reader while downloading: the reader waits for it, so it never waits for the budget.</summary>
            public bool IsNext { get; set; }

            /// <summary>
            /// Cancelled when the reader takes this download, which ends its wait for the budget (and by the download's own
            /// cancellation). Created by its body read the first time it charges, and again by a retry's read when an earlier
            /// attempt's cancellation cancelled it. Never disposed: it has no timer and no linked token, and the reader's take
            /// may cancel it at any time.
            /// </summary>
            public CancellationTokenSource? BudgetWait { get; set; }
        }

        /// <summary>What one body read of a download has charged to the reader's account. Used by that read only.</summary>
        private sealed class BodyCharge
        {
            private readonly AdaptivePrefetch _owner;
            private readonly Download _download;
            private readonly CancellationToken _cancellationToken;
            private long _held;

            public BodyCharge(AdaptivePrefetch owner, Download download, CancellationToken cancellationToken)
            {
                _owner = owner;
                _download = download;
                _cancellationToken = cancellationToken;
            }

            private void TakeNow(long bytes)
            {
                if (bytes > 0)
                {
                    _owner._account.AcquireNow(bytes);
                    _held += bytes;
                }
            }

            /// <summary>
            /// Pays for the body's <paramref name="bytes"/>: in the budget's order, until they fit or the reader takes the
            /// file and waits for it; at once from then on.
            /// </summary>
            public async Task ReserveAsync(long bytes)
            {
                if (bytes <= 0)
                {
                    return;
                }

                while (true)
                {
                    CancellationTokenSource? budgetWait = _owner.BudgetWaitOf(_download);
                    if (budgetWait == null)
                    {
                        TakeNow(bytes);
                        return;
                    }

                    // A file larger than the reader's limit could never be granted: it waits for the reader to take it.
                    Task grant = bytes > _owner._account.Limit
                        ? Task.Delay(Timeout.Infinite, budgetWait.Token)
                        : _owner._account.AcquireAsync(bytes, budgetWait.Token, oneFileRule: false);
                    CancellationTokenRegistration registration = default;
                    if (!grant.IsCompleted)
                    {
                        _owner.BudgetWaited();

                        // The download's own cancellation ends the wait too, through the same source.
                        registration = _cancellationToken.Register(state => ((CancellationTokenSource)state!).Cancel(), budgetWait);
                    }

                    try
                    {
                        await grant.ConfigureAwait(false);
                        _held += bytes;
                        return;
                    }
                    catch (OperationCanceledException) when (!_cancellationToken.IsCancellationRequested && _owner.IsNext(_download))
                    {
                        // The reader took the file while it waited: it takes its bytes at once now.
                    }
                    finally
                    {
                        registration.DisposeWithoutWaiting();
                    }

                    _cancellationToken.ThrowIfCancellationRequested();
                }
            }

            /// <summary>The body is complete: its file's size, what it was charged, is its result's to give back from now on.</summary>
            public void HandOver() => _held = 0;

            /// <summary>The read failed: whatever it was charged goes back (to a closed account, nothing happens).</summary>
            public void GiveBack()
            {
                if (_held > 0)
                {
                    _owner._account.Release(_held);
                    _held = 0;
                }
            }
        }

        /// <summary>The download loop's wait for room to start a file (ended after the lock, as the budget's waits).</summary>
        private sealed class RoomWait
        {
            private static readonly object Ended = new object();
            private readonly CancellationToken _cancellationToken;
            private object? _registration;

            public RoomWait(CancellationToken cancellationToken)
            {
                _cancellationToken = cancellationToken;
            }

            public enum Outcome
            {
                Room,
                Cancelled,
                Closed,
            }

            public TaskCompletionSource<bool> Completion { get; } = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

            public void AttachRegistration(CancellationTokenRegistration registration)
            {
                if (Interlocked.CompareExchange(ref _registration, new StrongBox<CancellationTokenRegistration>(registration), null) != null)
                {
                    registration.DisposeWithoutWaiting(); // the wait ended before its registration was attached
                }
            }

            /// <summary>Completes the wait; the caller has left the prefetch's lock.</summary>
            public void End(Outcome outcome)
            {
                switch (outcome)
                {
                    case Outcome.Room:
                        Completion.TrySetResult(true);
                        break;
                    case Outcome.Cancelled:
                        Completion.TrySetCanceled(_cancellationToken);
                        break;
                    default:
                        Completion.TrySetException(new ObjectDisposedException(nameof(AdaptivePrefetch), "The reader's pipeline was disposed while it waited to start a download."));
                        break;
                }

                if (Interlocked.Exchange(ref _registration, Ended) is StrongBox<CancellationTokenRegistration> attached)
                {
                    attached.Value.DisposeWithoutWaiting();
                }
            }
        }
    }
}
