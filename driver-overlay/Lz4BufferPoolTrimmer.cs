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
using System.Threading;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Gives an idle <see cref="Lz4BufferPool"/>'s free arrays back to the GC: after a period without rents or
    /// returns, and on a Gen2 collection when memory is short. Rentals in use are never touched, so a running query
    /// only loses free arrays it was not using.
    /// </summary>
    /// <remarks>
    /// Neither the timer nor the Gen2 callback keeps the pool (or its scope) alive: both reach it through a weak
    /// reference and stop by themselves once it is released or collected.
    /// </remarks>
    internal sealed class Lz4BufferPoolTrimmer : IDisposable
    {
        // How often the timer looks, in fractions of the idle period: a trim lands between 1 and 1.25 periods after
        // the pool's last use.
        private const int ChecksPerPeriod = 4;

        // Without a memory load to go by, a Gen2 trims a pool unused for this long (ArrayPool<byte>.Shared trims
        // arrays unused for 60 s at normal load; a Gen2 is a hint to be quicker, not a reason to starve a query).
        private static readonly long UnknownLoadIdleTicks = TimeSpan.FromSeconds(10).Ticks;

        private readonly WeakReference<Lz4BufferPool> _pool;
        private readonly long _idlePeriodTicks;
        private readonly Timer? _timer;
        private long _activitySeen = -1;
        private long _activitySeenByGen2 = -1;
        private long _idleSinceByGen2;
        private long _activeAt;
        private int _disposed;

        private Lz4BufferPoolTrimmer(Lz4BufferPool pool, TimeSpan idlePeriod)
        {
            _pool = new WeakReference<Lz4BufferPool>(pool);
            _idlePeriodTicks = idlePeriod.Ticks;
            _activeAt = DateTime.UtcNow.Ticks;
            if (idlePeriod > TimeSpan.Zero)
            {
                long check = Math.Max(idlePeriod.Ticks / ChecksPerPeriod, TimeSpan.TicksPerMillisecond);

                // The timer's state is this trimmer, which holds the pool only weakly; the timer does not capture it.
                _timer = new Timer(s => ((Lz4BufferPoolTrimmer)s!).OnTimer(), this, Timeout.Infinite, Timeout.Infinite);
                _timer.Change(TimeSpan.FromTicks(check), TimeSpan.FromTicks(check));
            }

            Gen2Callback.Register(this);
        }

        /// <summary>Starts trimming <paramref name="pool"/>; <paramref name="idlePeriod"/> zero turns the idle timer off (Gen2 trimming stays).</summary>
        public static Lz4BufferPoolTrimmer Start(Lz4BufferPool pool, TimeSpan idlePeriod) => new Lz4BufferPoolTrimmer(pool, idlePeriod);

        private bool IsStopped => Volatile.Read(ref _disposed) != 0;

        /// <summary>Stops the timer and the Gen2 callback. Idempotent.</summary>
        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) == 0)
            {
                _timer?.Dispose();
            }
        }

        /// <summary>
        /// What a Gen2 collection does (internal for tests, which cannot make the machine short of memory). Under high
        /// memory load every free array goes. Where the memory load is unknown (netstandard2.0, .NET Framework: no
        /// GC.GetGCMemoryInfo, and the alternatives are Windows-only P/Invokes), a Gen2, itself a sign the heap is
        /// growing, trims a pool that has not been used across Gen2s spanning <see cref="UnknownLoadIdleTicks"/>.
        /// Otherwise idleness is the timer's business.
        /// </summary>
        internal void OnGen2Collection(bool highMemoryLoad, bool memoryLoadKnown, long nowTicks)
        {
            Lz4BufferPool? pool = LivePool();
            if (pool == null)
            {
                return;
            }

            if (highMemoryLoad)
            {
                pool.Trim(Lz4TrimReason.MemoryPressure);
                return;
            }

            if (!memoryLoadKnown)
            {
                long activity = pool.Activity;
                if (activity != _activitySeenByGen2)
                {
                    _activitySeenByGen2 = activity;
                    _idleSinceByGen2 = nowTicks;
                }
                else if (nowTicks - _idleSinceByGen2 >= UnknownLoadIdleTicks)
                {
                    pool.Trim(Lz4TrimReason.IdleAcrossGen2);
                }
            }
        }

        private void OnTimer()
        {
            Lz4BufferPool? pool = LivePool();
            if (pool == null)
            {
                return;
            }

            long now = DateTime.UtcNow.Ticks;
            long activity = pool.Activity;
            if (activity != Interlocked.Exchange(ref _activitySeen, activity))
            {
                _activeAt = now;
            }
            else if (now - _activeAt >= _idlePeriodTicks && pool.RetainedBytes > 0)
            {
                pool.Trim(Lz4TrimReason.Idle);
            }
        }

        /// <summary>The pool, or null (and the trimmer stopped) once it is released or collected.</summary>
        private Lz4BufferPool? LivePool()
        {
            if (!IsStopped && _pool.TryGetTarget(out Lz4BufferPool? pool) && !pool.IsReleased)
            {
                return pool;
            }

            Dispose();
            return null;
        }

        /// <summary>
        /// An object that is collected by every Gen2 collection and re-registers itself from its finalizer (what
        /// ArrayPool&lt;byte&gt;.Shared does to trim on Gen2). It holds the trimmer weakly and dies with it.
        /// </summary>
        private sealed class Gen2Callback
        {
            // Memory load at which everything free goes, as a fraction of the GC's high-load threshold (ArrayPool's
            // shared pool uses 90 % too).
            private const double HighLoadFraction = 0.90;

            private readonly WeakReference<Lz4BufferPoolTrimmer> _trimmer;

            private Gen2Callback(Lz4BufferPoolTrimmer trimmer)
            {
                _trimmer = new WeakReference<Lz4BufferPoolTrimmer>(trimmer);
            }

            public static void Register(Lz4BufferPoolTrimmer trimmer) => _ = new Gen2Callback(trimmer);

            ~Gen2Callback()
            {
                if (Environment.HasShutdownStarted || !_trimmer.TryGetTarget(out Lz4BufferPoolTrimmer? trimmer) || trimmer.IsStopped)
                {
                    return; // not re-registered: the callback ends with its pool
                }

                try
                {
                    bool known = IsMemoryLoadKnown(out bool high);
                    trimmer.OnGen2Collection(high, known, DateTime.UtcNow.Ticks);
                }
                catch
                {
                    // A finalizer must never throw; trimming is best effort.
                }

                GC.ReRegisterForFinalize(this);
            }

            private static bool IsMemoryLoadKnown(out bool high)
            {
#if NETCOREAPP3_0_OR_GREATER
                GCMemoryInfo info = GC.GetGCMemoryInfo();
                high = info.MemoryLoadBytes >= info.HighMemoryLoadThresholdBytes * HighLoadFraction;
                return true;
#else
                high = false;
                return false;
#endif
            }
        }
    }

    /// <summary>Why a pool gave its free arrays back: the <c>reason</c> tag of <see cref="DatabricksMemoryMetrics.Trimmed"/>, which says what each means.</summary>
    internal enum Lz4TrimReason
    {
        Idle,
        IdleAcrossGen2,
        MemoryPressure,
    }
}
