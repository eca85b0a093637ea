/*
* Copyright (c) 2025 ADBC Drivers Contributors
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/


using System;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// An open but idle database gives its free arrays back (<see cref="Lz4BufferPoolTrimmer"/>): after the idle trim
    /// period, and on a Gen2 collection under memory pressure or, where the load is unknown, after ten seconds unused.
    /// Rentals in use are never touched, and the trimmer keeps no forgotten pool alive. Waits poll for the outcome with
    /// a liveness bound, so a slow machine makes these tests slower, never wrong.
    /// </summary>
    public class Lz4BufferPoolTrimmerTest
    {
        [Fact]
        public async Task IdleTimer_PeriodPassed_FreeArraysGoAndRentalsInUseStay()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id, TimeSpan.FromMilliseconds(200));
            PooledArray inUse = pool.Rent(MinArray);
            byte[] inUseArray = inUse.Array;
            pool.Rent(2 * MinArray).Dispose();
            pool.Rent(MiB).Dispose();
            Assert.Equal((2 * MinArray) + MiB, pool.RetainedBytes);

            // Act: the trim's Trimmed measurement comes after its arrays are dropped and its Retained ones, so once it is
            // there the trim, which runs on a timer thread, is over
            await UntilAsync(() => metrics.Sum(id, DatabricksMemoryMetricNames.Trimmed) > 0, Liveness, "the idle pool gives its free arrays back");

            // Assert
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained));
            Assert.Equal((2 * MinArray) + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.IdleReason));
            Assert.Equal(MinArray, pool.InUseBytes);
            Assert.Same(inUseArray, inUse.Array); // still the renter's, still readable
            inUse.Dispose();
            Assert.Equal(MinArray, pool.RetainedBytes); // a rental that comes back after a trim is kept: trimming is not a release
            Assert.False(pool.IsReleased);
            pool.Release();
        }

        [Fact]
        public async Task IdleTimer_ConnectionProperty_SetsThePeriodAndZeroTurnsItOff()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease trimming = CreateScope((DatabricksMemoryOptions.BufferPoolIdleTrimSecondsKey, "1"));
            using DatabricksMemoryLease keeping = CreateScope((DatabricksMemoryOptions.BufferPoolIdleTrimSecondsKey, "0"));
            byte[] frame = Lz4Frame(Compressible(100 * KiB, seed: 1), IndependentBlocks4MiB());
            DecodeAsRead(trimming.Scope, frame);
            DecodeAsRead(keeping.Scope, frame);
            long kept = keeping.Scope.BufferPool.RetainedBytes;
            Assert.True(kept > 0);

            // Act: wait for the trim's last record, its Trimmed measurement (see IdleTimer_PeriodPassed_FreeArraysGoAndRentalsInUseStay)
            await UntilAsync(() => metrics.Sum(trimming.Scope.Id, DatabricksMemoryMetricNames.Trimmed) > 0, Liveness, "the 1-second scope gives its arrays back");

            // Assert
            Assert.Equal(0, trimming.Scope.BufferPool.RetainedBytes);
            Assert.Equal(0, metrics.Sum(trimming.Scope.Id, DatabricksMemoryMetricNames.Retained));
            Assert.Equal(kept, keeping.Scope.BufferPool.RetainedBytes); // by now well past 1 s: period 0 never trims on a timer
            Assert.Equal(0, metrics.Sum(keeping.Scope.Id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.IdleReason));
        }

        [Fact]
        public void OnGen2Collection_HighMemoryLoad_TrimsEverythingFreeButNotARentalInUse()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);
            Lz4BufferPoolTrimmer? trimmer = pool.Trimmer;
            Assert.NotNull(trimmer); // Gen2 trimming runs even with the idle timer off
            PooledArray inUse = pool.Rent(2 * MinArray);
            pool.Rent(MinArray).Dispose();

            // Act and Assert: at normal load, idleness is the timer's business
            trimmer!.OnGen2Collection(highMemoryLoad: false, memoryLoadKnown: true, DateTime.UtcNow.Ticks);
            Assert.Equal(MinArray, pool.RetainedBytes);

            // under pressure, everything free goes
            trimmer.OnGen2Collection(highMemoryLoad: true, memoryLoadKnown: true, DateTime.UtcNow.Ticks);
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(2 * MinArray, pool.InUseBytes);
            Assert.Equal(MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.MemoryPressureReason));
            inUse.Dispose();
            Assert.Equal(2 * MinArray, pool.RetainedBytes);
        }

        [Fact]
        public void OnGen2Collection_MemoryLoadUnknown_TrimsOnlyAPoolUnusedForTenSeconds()
        {
            // Arrange: netstandard2.0 and .NET Framework have no GC.GetGCMemoryInfo
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);
            Lz4BufferPoolTrimmer trimmer = pool.Trimmer!;
            long t0 = DateTime.UtcNow.Ticks;
            long second = TimeSpan.TicksPerSecond;
            pool.Rent(MinArray).Dispose();

            // Act and Assert
            trimmer.OnGen2Collection(false, false, t0);                 // first look
            trimmer.OnGen2Collection(false, false, t0 + (9 * second));  // idle, but only 9 s
            Assert.Equal(MinArray, pool.RetainedBytes);
            pool.Rent(MinArray).Dispose();                                    // used again: the clock restarts
            trimmer.OnGen2Collection(false, false, t0 + (11 * second));
            Assert.Equal(MinArray, pool.RetainedBytes);
            trimmer.OnGen2Collection(false, false, t0 + (20 * second));
            Assert.Equal(MinArray, pool.RetainedBytes);
            trimmer.OnGen2Collection(false, false, t0 + (21 * second)); // 10 s unused since the Gen2 that saw the last use
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.Gen2IdleReason));
        }

        [Fact]
        public void Release_PoolWithATrimmer_StopsItAndAPoolNeverReleasedIsStillCollectable()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out _, TimeSpan.FromMilliseconds(50));
            Assert.NotNull(pool.Trimmer);

            // Act
            pool.Release();
            WeakReference forgotten = null!;
            OnOwnThread(() => forgotten = CreateForgottenPool());
            FullCollect();

            // Assert: neither the timer nor the Gen2 callback may keep a forgotten database's pool alive
            Assert.Null(pool.Trimmer);
            Assert.False(forgotten.IsAlive, "the trimmer kept a pool alive that nothing else references");
        }

        [Fact]
        public void Constructor_NegativeIdlePeriod_IsRejected()
        {
            // Act
            ArgumentOutOfRangeException error = Assert.Throws<ArgumentOutOfRangeException>(() => NewPool(MiB, MiB, out _, TimeSpan.FromSeconds(-1)));

            // Assert
            Assert.Equal("idleTrimPeriod", error.ParamName);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference CreateForgottenPool()
        {
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out _, TimeSpan.FromMilliseconds(50));
            pool.Rent(MinArray).Dispose();
            return new WeakReference(pool);
        }
    }
}
