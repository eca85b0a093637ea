using System.Diagnostics;
using System.Runtime.CompilerServices;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// An open but idle database gives its free arrays back: after the idle trim period, and on a Gen2 collection.
    /// Rentals in use are never touched. Waits poll for the outcome with a generous deadline, so a slow machine
    /// makes these tests slower, never wrong.
    /// </summary>
    public class IdleTrimTests
    {
        private const int Min = Lz4BufferPool.MinimumArrayLength;
        private static readonly TimeSpan Deadline = TimeSpan.FromSeconds(30);

        [Fact]
        public void AfterTheIdlePeriodFreeArraysGoAndRentalsInUseStay()
        {
            using var metrics = new MemoryMetricsRecorder();
            int id = TestScopeIds.Next();
            var pool = new Lz4BufferPool(MiB, 64 * MiB, TestScopeIds.BufferMeter(id), TimeSpan.FromMilliseconds(200));
            PooledArray inUse = pool.Rent(Min);
            byte[] inUseArray = inUse.Array;
            pool.Rent(2 * Min).Dispose();
            pool.Rent(MiB).Dispose();
            Assert.Equal(2 * Min + MiB, pool.RetainedBytes);

            Assert.True(WaitUntil(() => pool.RetainedBytes == 0), $"still retaining {pool.RetainedBytes} bytes");

            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained));
            Assert.Equal(2 * Min + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.IdleReason));
            Assert.Equal(Min, pool.InUseBytes);
            Assert.Same(inUseArray, inUse.Array); // still the renter's, still readable

            // A rental that comes back after a trim is kept again: trimming is not a release.
            inUse.Dispose();
            Assert.Equal(Min, pool.RetainedBytes);
            Assert.False(pool.IsReleased);
            pool.Release();
        }

        [Fact]
        public void TheConnectionPropertySetsThePeriodAndZeroTurnsItOff()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease trimming = CreateScope(("adbc.databricks.memory.buffer_pool_idle_trim_seconds", "1"));
            using DatabricksMemoryLease keeping = CreateScope(("adbc.databricks.memory.buffer_pool_idle_trim_seconds", "0"));
            (_, byte[] frame) = Sample(100 * KiB, WithoutContentSize);
            Lz4Decoding.DecodeAsRead(trimming.Scope.Lz4, trimming.Scope.BufferPool, frame);
            Lz4Decoding.DecodeAsRead(keeping.Scope.Lz4, keeping.Scope.BufferPool, frame);
            long kept = keeping.Scope.BufferPool.RetainedBytes;
            Assert.True(kept > 0);

            Assert.True(WaitUntil(() => trimming.Scope.BufferPool.RetainedBytes == 0), "the 1-second scope kept its arrays");

            Assert.Equal(0, metrics.Sum(trimming.Scope.Id, DatabricksMemoryMetricNames.Retained));
            Assert.True(metrics.Sum(trimming.Scope.Id, DatabricksMemoryMetricNames.Trimmed) > 0);
            Assert.Equal(kept, keeping.Scope.BufferPool.RetainedBytes); // by now well past 1 s: period 0 never trims on a timer
            Assert.Equal(0, metrics.Sum(keeping.Scope.Id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.IdleReason));
        }

        [Fact]
        public void Gen2TrimsEverythingFreeUnderMemoryPressureButNotARentalInUse()
        {
            using var metrics = new MemoryMetricsRecorder();
            int id = TestScopeIds.Next();
            var pool = new Lz4BufferPool(MiB, 64 * MiB, TestScopeIds.BufferMeter(id));
            Lz4BufferPoolTrimmer trimmer = pool.Trimmer!;
            Assert.NotNull(trimmer); // Gen2 trimming runs even with the idle timer off

            PooledArray inUse = pool.Rent(2 * Min);
            pool.Rent(Min).Dispose();
            trimmer.OnGen2Collection(highMemoryLoad: false, memoryLoadKnown: true, DateTime.UtcNow.Ticks);
            Assert.Equal(Min, pool.RetainedBytes); // normal load: idleness is the timer's business

            trimmer.OnGen2Collection(highMemoryLoad: true, memoryLoadKnown: true, DateTime.UtcNow.Ticks);
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(2 * Min, pool.InUseBytes);
            Assert.Equal(Min, metrics.Sum(id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.MemoryPressureReason));
            inUse.Dispose();
            Assert.Equal(2 * Min, pool.RetainedBytes);
        }

        [Fact]
        public void WhereMemoryLoadIsUnknownGen2TrimsOnlyAPoolUnusedForTenSeconds()
        {
            // netstandard2.0 and .NET Framework have no GC.GetGCMemoryInfo.
            using var metrics = new MemoryMetricsRecorder();
            int id = TestScopeIds.Next();
            var pool = new Lz4BufferPool(MiB, 64 * MiB, TestScopeIds.BufferMeter(id));
            Lz4BufferPoolTrimmer trimmer = pool.Trimmer!;
            long t0 = DateTime.UtcNow.Ticks;
            long second = TimeSpan.TicksPerSecond;

            pool.Rent(Min).Dispose();
            trimmer.OnGen2Collection(false, false, t0);               // first look
            trimmer.OnGen2Collection(false, false, t0 + 9 * second);  // idle, but only 9 s
            Assert.Equal(Min, pool.RetainedBytes);
            pool.Rent(Min).Dispose();                                  // used again: the clock restarts
            trimmer.OnGen2Collection(false, false, t0 + 11 * second);
            Assert.Equal(Min, pool.RetainedBytes);
            trimmer.OnGen2Collection(false, false, t0 + 20 * second);
            Assert.Equal(Min, pool.RetainedBytes);
            trimmer.OnGen2Collection(false, false, t0 + 21 * second); // 10 s unused since the Gen2 that saw the last use
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(Min, metrics.Sum(id, DatabricksMemoryMetricNames.Trimmed, reason: DatabricksMemoryMetricNames.Gen2IdleReason));
        }

        [Fact]
        public void ReleaseStopsTheTrimmerAndAPoolNeverReleasedIsStillCollectable()
        {
            var pool = new Lz4BufferPool(MiB, 64 * MiB, TestScopeIds.BufferMeter(TestScopeIds.Next()), TimeSpan.FromMilliseconds(50));
            Assert.NotNull(pool.Trimmer);
            pool.Release();
            Assert.Null(pool.Trimmer);

            // Neither the timer nor the Gen2 callback may keep a forgotten database's pool alive.
            WeakReference forgotten = null!;
            OnOwnThread(() => forgotten = CreateForgottenPool());
            FullCollect();
            Assert.False(forgotten.IsAlive, "the trimmer kept a pool alive that nothing else references");
        }

        [Fact]
        public void NegativeIdlePeriodsAreRejected()
        {
            var meter = TestScopeIds.BufferMeter(TestScopeIds.Next());
            var error = Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4BufferPool(MiB, MiB, meter, TimeSpan.FromSeconds(-1)));
            Assert.Equal("idleTrimPeriod", error.ParamName);

            var property = Assert.Throws<ArgumentException>(() => DatabricksMemoryOptions.FromProperties(
                new Dictionary<string, string> { ["adbc.databricks.memory.buffer_pool_idle_trim_seconds"] = "-1" }));
            Assert.Equal(
                "Parameter 'adbc.databricks.memory.buffer_pool_idle_trim_seconds' value '-1' is invalid. It must be a whole number of seconds from 0 (never) to 86400.",
                property.Message);
            Assert.Equal(TimeSpan.FromSeconds(60), DatabricksMemoryOptions.Default.BufferPoolIdleTrimPeriod);
            Assert.Equal(TimeSpan.Zero, DatabricksMemoryOptions.FromProperties(
                new Dictionary<string, string> { ["ADBC.DATABRICKS.MEMORY.BUFFER_POOL_IDLE_TRIM_SECONDS"] = "0" }).BufferPoolIdleTrimPeriod);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference CreateForgottenPool()
        {
            var pool = new Lz4BufferPool(MiB, 64 * MiB, TestScopeIds.BufferMeter(TestScopeIds.Next()), TimeSpan.FromMilliseconds(50));
            pool.Rent(Min).Dispose();
            return new WeakReference(pool);
        }

        private static bool WaitUntil(Func<bool> condition)
        {
            var clock = Stopwatch.StartNew();
            while (!condition())
            {
                if (clock.Elapsed > Deadline)
                {
                    return false;
                }

                Thread.Sleep(20);
            }

            return true;
        }
    }
}
