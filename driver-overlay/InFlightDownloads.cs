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
using System.Linq;
using System.Threading;
using System.Threading.Tasks;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The downloads a CloudFetch download loop has started, until each has ended, and those whose result it has not yet
    /// handed to the reader's queue: when the loop stops, <see cref="DrainAsync"/> waits (boundedly) for every download
    /// still running and disposes the results no one else will ever see, so stopping the pipeline leaves nothing behind.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Why: a reader disposed before the end of its result (a preview, a cancelled refresh) cancels the pipeline's token.
    /// Upstream's loop then exits without waiting for the downloads it started (at tags 21-24 it tracks their
    /// continuations, which the same token cancels first), so downloads ran on after the reader's Dispose returned, and
    /// the file downloaded but not yet queued was never disposed: on tag 21, a partial read of the 1 GB result left one
    /// 16 MiB pooled buffer per query to the GC (the meter's <c>collected</c>; stock's unpooled one stayed until a collection).
    /// </para>
    /// <para>
    /// Ownership: a started result is the loop's until <see cref="HandedOver"/> (the queue and then the reader, or the
    /// queue's own shutdown, dispose it from then on). Downloads observe the token the caller cancels, so a drain after
    /// a cancellation waits only for them to notice it. Thread-safe; results are compared by reference.
    /// </para>
    /// </remarks>
    internal sealed class InFlightDownloads
    {
        private readonly object _gate = new object();
        private readonly Dictionary<IDisposable, Task> _running = new Dictionary<IDisposable, Task>(ReferenceComparer.Instance);
        private readonly HashSet<IDisposable> _notHandedOver = new HashSet<IDisposable>(ReferenceComparer.Instance);

        /// <summary>Downloads started and not yet ended.</summary>
        public int Running
        {
            get
            {
                lock (_gate)
                {
                    return _running.Values.Count(download => !download.IsCompleted);
                }
            }
        }

        /// <summary>Results not yet handed to the reader's queue (or disposed by a drain).</summary>
        public int NotHandedOver
        {
            get
            {
                lock (_gate)
                {
                    return _notHandedOver.Count;
                }
            }
        }

        /// <summary>
        /// Records that <paramref name="download"/> (the download itself, not a continuation a token can cancel first)
        /// fills <paramref name="result"/>; returns <paramref name="download"/>, for the caller's own continuation.
        /// </summary>
        public Task Started(IDisposable result, Task download)
        {
            _ = result ?? throw new ArgumentNullException(nameof(result));
            _ = download ?? throw new ArgumentNullException(nameof(download));
            lock (_gate)
            {
                if (_notHandedOver.Contains(result) || _running.ContainsKey(result))
                {
                    throw new InvalidOperationException("This download result was already started.");
                }

                _notHandedOver.Add(result);
                _running[result] = download;
            }

            // Ended downloads leave at once, so a long result's loop keeps only what is running.
            download.ContinueWith(_ => Ended(result), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            return download;
        }

        /// <summary>The result is in the reader's queue: from now on the reader, or the queue's shutdown, disposes it.</summary>
        public void HandedOver(IDisposable result)
        {
            lock (_gate)
            {
                if (!_notHandedOver.Remove(result))
                {
                    throw new InvalidOperationException("This download result was not started, or was already handed over.");
                }
            }
        }

        /// <summary>
        /// Waits until every started download has ended, at most <paramref name="bound"/> (see <see cref="DownloadDrain"/>),
        /// then disposes each result that was never handed over; one whose download is still running gives its data back
        /// when the download ends. Never throws: a download's own failure or cancellation is its result's business (and
        /// already recorded there). True when every download had ended.
        /// </summary>
        public async Task<bool> DrainAsync(TimeSpan bound)
        {
            Task[] running;
            lock (_gate)
            {
                running = _running.Values.Where(download => !download.IsCompleted).ToArray();
            }

            bool allEnded = await DownloadDrain.WaitAsync(running, bound).ConfigureAwait(false);
            IDisposable[] orphans;
            lock (_gate)
            {
                orphans = new IDisposable[_notHandedOver.Count];
                _notHandedOver.CopyTo(orphans);
                _notHandedOver.Clear();
            }

            foreach (IDisposable orphan in orphans)
            {
                orphan.Dispose();
            }

            return allEnded;
        }

        private void Ended(IDisposable result)
        {
            lock (_gate)
            {
                _running.Remove(result);
            }
        }

        private sealed class ReferenceComparer : IEqualityComparer<IDisposable>
        {
            public static readonly ReferenceComparer Instance = new ReferenceComparer();

            public bool Equals(IDisposable? x, IDisposable? y) => ReferenceEquals(x, y);

            public int GetHashCode(IDisposable obj) => System.Runtime.CompilerServices.RuntimeHelpers.GetHashCode(obj);
        }
    }
}
