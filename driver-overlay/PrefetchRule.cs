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

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The rule of adaptive prefetch for one reader: how many CloudFetch files may be ahead of the reader (downloading,
    /// or downloaded and waiting), which is also how many may download at once, decided from what it measures.
    /// </summary>
    /// <remarks>
    /// <para>
    /// One number, <see cref="Limit"/>: a download starts only while the files ahead of the reader are fewer. When the
    /// reader is the bottleneck it finds files waiting when it asks; each time it finds another besides the one it takes,
    /// without having waited for the file before (downloads that ended together while it waited are no sign), the limit
    /// drops by one, so it settles at about one file ahead (downloads throttled to the reader's pace), and the limit it
    /// dropped from becomes a ceiling: later growth stops there, and only a wait at the ceiling itself lifts it. When the
    /// downloads are the bottleneck the reader finds its next file still downloading; then, if the limit is what holds the
    /// downloads back, the limit grows, doubling at first, as long as each step raised the aggregate throughput measured
    /// over a window of completed downloads by at least half of what the step could give (twice the downloads, at least
    /// 1.5x the bytes per second): per-stream links keep scaling, a shared link does not, and a step that bought too
    /// little is undone and later steps go one file at a time, tried again after <see cref="CooldownEpochs"/> windows.
    /// A window in which a download waited for the database's budget is not the limit's doing: no growth then.
    /// </para>
    /// <para>
    /// Not thread-safe and free of clocks: <see cref="AdaptivePrefetch"/> calls it under its lock with timestamps, and the
    /// example tests feed it measurements and check its decisions.
    /// </para>
    /// </remarks>
    internal sealed class PrefetchRule
    {
        /// <summary>
        /// Where a reader starts: one file ahead of the one it waits for. Upstream's three held a file more than a reader
        /// needs wherever the reader is the bottleneck (over loopback, a partial read), and a network-bound reader
        /// doubles 2, 4, 8 within the default budget where 3, 6 stopped at the budget (docs/decisions.md, "Where the
        /// window starts").
        /// </summary>
        public const int InitialFiles = 2;

        /// <summary>
        /// The most files ahead when the host set no bound (docs/decisions.md, "Adaptive prefetch"): adbc-drivers/databricks'
        /// cloudfetch-parity branch ran 16 downloads and prefetched 16 files; past that, at the default budget, a
        /// network-bound reader's downloads would only wait for the budget.
        /// </summary>
        public const int DefaultMaxFiles = 16;

        /// <summary>Measured windows to stay at a limit after a step up from it bought too little, before trying one more file.</summary>
        public const int CooldownEpochs = 8;

        private long _epochStart;
        private long _epochBytes;
        private int _epochCompletions;
        private bool _epochBudgetBound;

        // The latest measured window at the current limit: bytes per timestamp tick, and whether the budget bound it.
        private double? _measured;
        private bool _measuredBudgetBound;

        // A step up under trial: the limit it came from and what was measured there.
        private int _baselineLimit;
        private double _baselineThroughput;

        private bool _oneAtATime;

        // The limit at which the reader last found a file to spare (0: none since it last waited there). Over loopback the
        // reader waits now and then at one file ahead and finds a file to spare at two, and a step's first window counts
        // the downloads started before it, so it looks faster than it is: without the ceiling those waits doubled the
        // limit past two (docs/decisions.md, "Where the window starts").
        private int _readerBoundAt;

        // The reader waited for the file it took before: files it then finds waiting completed while it waited (downloads
        // started together end together on a network-bound read), which says nothing of the reader being the bottleneck.
        private bool _readerWaitedLast;
        private int _cooldownEpochs;

        /// <param name="maxFiles">Upper bound of <see cref="Limit"/>: the host's settings, or <see cref="DefaultMaxFiles"/>.</param>
        /// <param name="timestamp">Now, in the caller's clock: the first measurement window starts here.</param>
        public PrefetchRule(int maxFiles, long timestamp)
        {
            if (maxFiles < 1)
            {
                throw new ArgumentOutOfRangeException(nameof(maxFiles), maxFiles, "must be at least 1");
            }

            MaxFiles = maxFiles;
            Limit = Math.Min(InitialFiles, maxFiles);
            _epochStart = timestamp;
        }

        public int MaxFiles { get; }

        /// <summary>Files that may be ahead of the reader (downloading or waiting), and so downloading at once.</summary>
        public int Limit { get; private set; }

        /// <summary>Completed downloads that make one measurement window at the current limit.</summary>
        private int EpochLength => Math.Max(2, Limit);

        /// <summary>Whether another download may start now.</summary>
        public bool CanStart(int inFlight, int waiting) => inFlight + waiting < Limit;

        /// <summary>A download completed with <paramref name="bytes"/>: the aggregate throughput is measured from these.</summary>
        public void DownloadCompleted(long bytes, long timestamp)
        {
            _epochBytes += bytes;
            _epochCompletions++;
            if (_epochCompletions < EpochLength)
            {
                return;
            }

            _measured = _epochBytes / (double)Math.Max(1, timestamp - _epochStart);
            _measuredBudgetBound = _epochBudgetBound;
            if (_cooldownEpochs > 0)
            {
                _cooldownEpochs--;
            }

            StartEpoch(timestamp);
        }

        /// <summary>A download of this reader had to wait for the database's budget.</summary>
        public void BudgetWaited() => _epochBudgetBound = true;

        /// <summary>
        /// The reader asked for its next file. Returns whether <see cref="Limit"/> changed.
        /// </summary>
        /// <param name="ready">Its next file had downloaded.</param>
        /// <param name="readyFiles">Files downloaded and not yet taken when it asked, the one it takes included.</param>
        /// <param name="ahead">Files ahead of the reader when it asked (downloading or waiting), the one it takes included.</param>
        /// <param name="timestamp">Now, in the clock of <see cref="DownloadCompleted"/>.</param>
        public bool ReaderAsked(bool ready, int readyFiles, int ahead, long timestamp)
        {
            int before = Limit;
            if (ready)
            {
                if (readyFiles >= 2 && Limit > 1 && !_readerWaitedLast)
                {
                    // The reader is the bottleneck: one file more than it needs was waiting. Whatever was learnt about the
                    // network holds for another phase; a later shortage starts over from this limit.
                    _readerBoundAt = Limit;
                    Limit--;
                    _baselineLimit = 0;
                    _oneAtATime = false;
                    _cooldownEpochs = 0;
                }
            }
            else if (ahead >= Limit && _measured.HasValue && !_measuredBudgetBound)
            {
                // The reader waits and the limit is what holds the downloads back (not missing links, not the budget).
                if (_readerBoundAt > 0 && Limit >= _readerBoundAt)
                {
                    // It once had a file to spare at this limit: one wait lifts the ceiling, the next may grow past it.
                    _readerBoundAt = 0;
                }
                else if (_baselineLimit > 0)
                {
                    JudgeStep();
                }
                else
                {
                    StepUp();
                }
            }

            _readerWaitedLast = !ready;
            if (Limit == before)
            {
                return false;
            }

            _measured = null;
            StartEpoch(timestamp);
            return true;
        }

        /// <summary>The step from the baseline to the current limit is measured: keep it and go on, or undo it.</summary>
        private void JudgeStep()
        {
            double wanted = 1 + (0.5 * (Limit - _baselineLimit) / _baselineLimit);
            if (_measured!.Value >= _baselineThroughput * wanted)
            {
                StepUp();
                return;
            }

            Limit = _baselineLimit;
            _baselineLimit = 0;
            _oneAtATime = true;
            _cooldownEpochs = CooldownEpochs;
        }

        private void StepUp()
        {
            if (Limit >= MaxFiles || _cooldownEpochs > 0)
            {
                _baselineLimit = 0;
                return;
            }

            _baselineLimit = Limit;
            _baselineThroughput = _measured!.Value;
            int wanted = _oneAtATime ? Limit + 1 : Limit * 2;
            Limit = Math.Min(_readerBoundAt > 0 ? _readerBoundAt : MaxFiles, wanted); // a ceiling is a limit: never above MaxFiles
        }

        private void StartEpoch(long timestamp)
        {
            _epochStart = timestamp;
            _epochBytes = 0;
            _epochCompletions = 0;
            _epochBudgetBound = false;
        }
    }
}
