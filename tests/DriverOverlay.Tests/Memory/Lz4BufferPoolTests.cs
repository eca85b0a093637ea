using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow.Adbc.Drivers.Databricks;
using Xunit;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>The bounded, releasable array pool: sizes, caps, exact accounting, misuse, release, threads.</summary>
    public class Lz4BufferPoolTests
    {
        private const int Min = Lz4BufferPool.MinimumArrayLength;

        private static Lz4BufferPool NewPool(int maxArrayLength, long maxRetainedBytes, out int scopeId)
        {
            scopeId = TestScopeIds.Next();
            return new Lz4BufferPool(maxArrayLength, maxRetainedBytes, TestScopeIds.BufferMeter(scopeId));
        }

        [Theory]
        [InlineData(1, Min)]
        [InlineData(Min - 1, Min)]
        [InlineData(Min, Min)]
        [InlineData(Min + 1, 2 * Min)]
        [InlineData(3 * Min, 4 * Min)]
        [InlineData(MiB, MiB)]
        [InlineData(MiB + 1, 2 * MiB)]
        [InlineData(4 * MiB, 4 * MiB)]
        public void RentReturnsThePowerOfTwoBucketSize(int requested, int expectedLength)
        {
            var pool = NewPool(4 * MiB, 64 * MiB, out _);

            byte[] array = pool.Rent(requested);

            Assert.Equal(expectedLength, array.Length);
            Assert.Equal(expectedLength, pool.ArrayLengthFor(requested));
            Assert.Equal(expectedLength, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
        }

        [Fact]
        public void ArrayLengthForIsExactWhereRentWouldNotPool()
        {
            var pool = NewPool(4 * MiB, 64 * MiB, out _);

            Assert.Equal(4 * MiB + 1, pool.ArrayLengthFor(4 * MiB + 1));
            Assert.Equal(4 * MiB + 1, pool.Rent(4 * MiB + 1).Length);
            Assert.Equal(0, pool.ArrayLengthFor(0));
            pool.Release();
            Assert.Equal(3 * Min, pool.ArrayLengthFor(3 * Min));
            Assert.Equal(3 * Min, pool.Rent(3 * Min).Length);
        }

        [Theory]
        [InlineData(Min, Min)]
        [InlineData(Min + 1, 2 * Min)]
        [InlineData(100_000, 2 * Min)]
        [InlineData(3 * MiB, 4 * MiB)]
        [InlineData(32 * MiB, 32 * MiB)]
        public void MaxArrayLengthIsRoundedUpToABucketSize(int configured, int expected)
        {
            var pool = NewPool(configured, 0, out _);

            Assert.Equal(expected, pool.MaxArrayLength);

            // The rounded maximum is still served from the pool (accounted as in use), one byte more is not.
            byte[] largest = pool.Rent(pool.MaxArrayLength);
            Assert.Equal(expected, largest.Length);
            Assert.Equal(expected, pool.InUseBytes);
        }

        [Fact]
        public void InvalidConstructionIsRejected()
        {
            var meter = TestScopeIds.BufferMeter(TestScopeIds.Next());
            Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4BufferPool(Min - 1, 0, meter));
            Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4BufferPool(Min, -1, meter));
        }

        [Fact]
        public async Task MaxArrayLengthAboveTheLargestBucketIsRejectedInsteadOfHanging()
        {
            // Buckets double from 64 KiB; above 2^30 the next bucket size overflows int. Run on a worker with a
            // deadline so that a regression (an endless bucket loop) fails this test instead of hanging the run.
            var meter = TestScopeIds.BufferMeter(TestScopeIds.Next());
            Task<Exception> construct = Task.Run(() => Record.Exception(() => new Lz4BufferPool(int.MaxValue, 0, meter)));

            Task finished = await Task.WhenAny(construct, Task.Delay(TimeSpan.FromSeconds(10)));
            Assert.True(ReferenceEquals(finished, construct), "new Lz4BufferPool(int.MaxValue, ...) did not return");
            Assert.IsType<ArgumentOutOfRangeException>(await construct);

            var largest = new Lz4BufferPool(1 << 30, 0, meter);
            Assert.Equal(1 << 30, largest.MaxArrayLength);
        }

        [Fact]
        public void RentZeroAndNegativeAndReturnNull()
        {
            var pool = NewPool(MiB, MiB, out _);

            Assert.Empty(pool.Rent(0));
            Assert.Same(Array.Empty<byte>(), pool.Rent(0));
            Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent(-1));
            Assert.Throws<ArgumentNullException>(() => pool.Return(null!));

            // Returning the empty array is harmless and not accounted.
            pool.Return(Array.Empty<byte>());
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
        }

        [Fact]
        public void RentAboveTheMaximumIsUnpooledAndItsReturnIsDropped()
        {
            using var metrics = new MemoryMetricsRecorder();
            var pool = NewPool(MiB, 64 * MiB, out int id);

            byte[] big = pool.Rent(MiB + 1);

            Assert.Equal(MiB + 1, big.Length); // exact size, not rounded: it will never be pooled
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(MiB + 1, metrics.Sum(id, MemoryMetricsRecorder.Unpooled));
            Assert.Equal(0, metrics.Sum(id, MemoryMetricsRecorder.Rented));

            pool.Return(big);

            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
            Assert.NotSame(big, pool.Rent(MiB + 1));
            Assert.Equal(0, metrics.Sum(id, MemoryMetricsRecorder.Retained));
        }

        [Fact]
        public void ReturnedArrayIsReusedAsTheSameInstanceWithExactAccounting()
        {
            using var metrics = new MemoryMetricsRecorder();
            var pool = NewPool(MiB, 64 * MiB, out int id);

            byte[] first = pool.Rent(100_000);
            byte[] second = pool.Rent(100_000);
            Assert.NotSame(first, second);
            Assert.Equal(2 * 2 * Min, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);

            pool.Return(first);
            Assert.Equal(2 * Min, pool.InUseBytes);
            Assert.Equal(2 * Min, pool.RetainedBytes);

            byte[] again = pool.Rent(2 * Min - 5); // any size of the same bucket
            Assert.Same(first, again);
            Assert.Equal(2 * 2 * Min, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);

            // A smaller bucket does not take the larger free array.
            pool.Return(second);
            byte[] small = pool.Rent(10);
            Assert.Equal(Min, small.Length);
            Assert.NotSame(second, small);
            Assert.Equal(2 * Min + Min, pool.InUseBytes);
            Assert.Equal(2 * Min, pool.RetainedBytes);

            pool.Return(again);
            pool.Return(small);
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(2 * 2 * Min + Min, pool.RetainedBytes);

            // Three arrays were ever allocated: 2 x 128 KiB and 1 x 64 KiB.
            Assert.Equal(2 * 2 * Min + Min, metrics.Sum(id, MemoryMetricsRecorder.Allocated));
            Assert.Equal(3, metrics.Count(id, MemoryMetricsRecorder.Allocated));
        }

        [Fact]
        public void ReturnedArraysAreNotClearedUnlessAsked()
        {
            var pool = NewPool(MiB, MiB, out _);
            byte[] array = pool.Rent(Min);
            array.AsSpan().Fill(0xAB);

            pool.Return(array);
            byte[] dirty = pool.Rent(Min);
            Assert.Same(array, dirty);
            Assert.True(dirty.AsSpan().IndexOfAnyExcept((byte)0xAB) < 0, "the pool does not clear by default (stale bytes are expected)");

            pool.Return(dirty, clearArray: true);
            byte[] clean = pool.Rent(Min);
            Assert.Same(array, clean);
            Assert.True(clean.AsSpan().IndexOfAnyExcept((byte)0) < 0, "clearArray: true clears the kept array");
        }

        [Fact]
        public void RetainedBytesNeverExceedTheCapAndTheExcessIsDropped()
        {
            using var metrics = new MemoryMetricsRecorder();

            // A cap that is not a multiple of the array size: one 128 KiB array fits in 200 KiB, a second does not.
            var pool = NewPool(MiB, 200 * KiB, out int id);
            var arrays = new List<byte[]>();
            for (int i = 0; i < 4; i++)
            {
                arrays.Add(pool.Rent(2 * Min));
            }

            foreach (byte[] array in arrays)
            {
                pool.Return(array);
                Assert.True(pool.RetainedBytes <= pool.MaxRetainedBytes);
            }

            Assert.Equal(2 * Min, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(3 * 2 * Min, metrics.Sum(id, MemoryMetricsRecorder.Dropped));

            // The 64 KiB bucket still fits beside it: 128 + 64 <= 200.
            byte[] small = pool.Rent(1);
            pool.Return(small);
            Assert.Equal(3 * Min, pool.RetainedBytes);

            // And the one kept 128 KiB array is the last one returned (only kept arrays can be reused).
            Assert.Same(arrays[0], pool.Rent(2 * Min));
            Assert.NotSame(arrays[1], pool.Rent(2 * Min));
        }

        [Fact]
        public void ZeroCapKeepsNothing()
        {
            var pool = NewPool(MiB, 0, out _);
            byte[] array = pool.Rent(Min);
            pool.Return(array);

            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
            Assert.NotSame(array, pool.Rent(Min));
        }

        [Fact]
        public void DoubleReturnIsIgnoredAndNeverHandsOneArrayToTwoRenters()
        {
            var pool = NewPool(MiB, 64 * MiB, out _);
            byte[] array = pool.Rent(Min);

            pool.Return(array);
            pool.Return(array);

            Assert.Equal(Min, pool.RetainedBytes); // kept once
            Assert.Equal(0, pool.InUseBytes);      // not driven negative

            byte[] first = pool.Rent(Min);
            byte[] second = pool.Rent(Min);
            Assert.Same(array, first);
            Assert.NotSame(first, second);
            Assert.Equal(2 * Min, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
        }

        [Fact]
        public void ForeignArraysAreIgnored()
        {
            var pool = NewPool(MiB, 64 * MiB, out _);
            var foreign = new byte[Min];                       // right size, never rented
            var odd = new byte[Min + 3];                       // not a bucket size
            var otherPool = NewPool(MiB, 64 * MiB, out _);
            byte[] fromOther = otherPool.Rent(Min);            // rented from another pool

            pool.Return(foreign);
            pool.Return(odd);
            pool.Return(fromOther);

            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(Min, otherPool.InUseBytes);
            byte[] fresh = pool.Rent(Min);
            Assert.NotSame(foreign, fresh);
            Assert.NotSame(fromOther, fresh);
        }

        [Fact]
        public void ReleaseDropsEverythingAndRentAndReturnAfterwardsAreUnpooled()
        {
            using var metrics = new MemoryMetricsRecorder();
            var pool = NewPool(MiB, 64 * MiB, out int id);
            byte[] stillRented = pool.Rent(Min);
            byte[] kept = pool.Rent(2 * Min);
            pool.Return(kept);
            Assert.Equal(2 * Min, pool.RetainedBytes);

            pool.Release();
            pool.Release(); // idempotent

            Assert.True(pool.IsReleased);
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(Min, pool.InUseBytes);
            Assert.Equal(0, metrics.Sum(id, MemoryMetricsRecorder.Retained));
            Assert.Equal(2 * Min, metrics.Sum(id, MemoryMetricsRecorder.Dropped));

            // Rent after release: a new, exact-size, unaccounted array (never the dropped one).
            byte[] after = pool.Rent(2 * Min - 1);
            Assert.NotSame(kept, after);
            Assert.Equal(2 * Min - 1, after.Length);
            Assert.Equal(Min, pool.InUseBytes);
            Assert.Equal(2 * Min - 1, metrics.Sum(id, MemoryMetricsRecorder.Unpooled));

            // Late returns: the array rented before release leaves the in-use count and is dropped, not kept.
            pool.Return(stillRented);
            pool.Return(after);
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, metrics.Sum(id, MemoryMetricsRecorder.InUse));
            Assert.Equal(0, metrics.Sum(id, MemoryMetricsRecorder.Retained));
            Assert.Equal(3 * Min, metrics.Sum(id, MemoryMetricsRecorder.Dropped));
            Assert.NotSame(stillRented, pool.Rent(Min));
        }

        [Fact]
        public void ReleasedArraysBecomeCollectable()
        {
            var pool = NewPool(MiB, 64 * MiB, out _);
            WeakReference[] kept = RentAndReturn(pool, 3);
            WeakReference lateReturn = RentNowReturnAfterRelease(pool, out Action returnIt);
            FullCollect();
            Assert.All(kept, reference => Assert.True(reference.IsAlive, "the pool keeps returned arrays until release"));

            pool.Release();
            returnIt();
            returnIt = null!;
            FullCollect();

            Assert.All(kept, reference => Assert.False(reference.IsAlive, "a released pool must not keep arrays alive"));
            Assert.False(lateReturn.IsAlive, "an array returned after release must be dropped");
            GC.KeepAlive(pool);
        }

        private static Span<byte> Stamp(byte[] array) =>
            array.Length <= 64 ? array.AsSpan() : array.AsSpan(0, 32);

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference[] RentAndReturn(Lz4BufferPool pool, int count)
        {
            var arrays = new byte[count][];
            var references = new WeakReference[count];
            for (int i = 0; i < count; i++)
            {
                arrays[i] = pool.Rent(Min << i);
                references[i] = new WeakReference(arrays[i]);
            }

            foreach (byte[] array in arrays)
            {
                pool.Return(array);
            }

            return references;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference RentNowReturnAfterRelease(Lz4BufferPool pool, out Action returnIt)
        {
            byte[] array = pool.Rent(Min);
            var box = new byte[]?[] { array };
            returnIt = () =>
            {
                pool.Return(box[0]!);
                box[0] = null;
            };
            return new WeakReference(array);
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void ManyThreadsRentAndReturnWithExactFinalAccounting(bool releaseMidway)
        {
            using var metrics = new MemoryMetricsRecorder();
            const int Threads = 4;
            const int Operations = 2000;
            const long Cap = 512 * KiB;
            var pool = NewPool(256 * KiB, Cap, out int id);

            // Every array handed out must have exactly one holder at a time: a renter stamps it with its own id
            // (its first bytes: filling whole arrays would make the test slower, not stricter) and checks the stamp
            // is intact when it gives it back.
            var holders = new System.Collections.Concurrent.ConcurrentDictionary<byte[], int>(ReferenceEqualityComparer.Instance);
            var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
            using var start = new Barrier(Threads + (releaseMidway ? 1 : 0));
            var releasePoint = new CountdownEvent(Threads);

            Thread[] workers = new Thread[Threads];
            for (int t = 0; t < Threads; t++)
            {
                int self = t + 1;
                workers[t] = new Thread(() =>
                {
                    var random = new Random(self);
                    var held = new List<byte[]>();
                    start.SignalAndWait();
                    for (int op = 0; op < Operations; op++)
                    {
                        if (op == Operations / 2)
                        {
                            releasePoint.Signal();
                        }

                        if (held.Count < 6 && (held.Count == 0 || random.Next(2) == 0))
                        {
                            // Sizes across every bucket and beyond the maximum (unpooled).
                            byte[] array = pool.Rent(random.Next(1, 300 * KiB));
                            if (array.Length > 0 && !holders.TryAdd(array, self))
                            {
                                failures.Enqueue($"array handed to thread {self} while thread {holders[array]} holds it");
                            }

                            Stamp(array).Fill((byte)self);
                            held.Add(array);
                        }
                        else
                        {
                            byte[] array = held[random.Next(held.Count)];
                            held.Remove(array);
                            if (Stamp(array).IndexOfAnyExcept((byte)self) >= 0)
                            {
                                failures.Enqueue($"array held by thread {self} was written by someone else");
                            }

                            holders.TryRemove(array, out _);
                            pool.Return(array);
                            if (random.Next(8) == 0)
                            {
                                pool.Return(array); // a buggy double return must stay harmless
                            }
                        }

                        if (pool.RetainedBytes > Cap)
                        {
                            failures.Enqueue($"retained {pool.RetainedBytes} exceeds the cap {Cap}");
                        }
                    }

                    foreach (byte[] array in held)
                    {
                        holders.TryRemove(array, out _);
                        pool.Return(array);
                    }
                })
                { IsBackground = true };
                workers[t].Start();
            }

            if (releaseMidway)
            {
                start.SignalAndWait();
                Assert.True(releasePoint.Wait(TimeSpan.FromSeconds(60)));
                pool.Release();
            }

            foreach (Thread worker in workers)
            {
                Assert.True(worker.Join(TimeSpan.FromSeconds(60)), "a worker did not finish");
            }

            Assert.Empty(failures);
            Assert.Equal(0, pool.InUseBytes);
            Assert.InRange(pool.RetainedBytes, 0, Cap);
            Assert.Equal(0, metrics.Sum(id, MemoryMetricsRecorder.InUse));
            Assert.Equal(pool.RetainedBytes, metrics.Sum(id, MemoryMetricsRecorder.Retained));
            Assert.Equal(
                metrics.Sum(id, MemoryMetricsRecorder.Rented),
                metrics.Sum(id, MemoryMetricsRecorder.Returned));
            if (releaseMidway)
            {
                Assert.Equal(0, pool.RetainedBytes);
            }
        }
    }
}
