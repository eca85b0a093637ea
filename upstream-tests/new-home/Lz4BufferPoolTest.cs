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
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The bounded, releasable array pool behind a scope (<see cref="Lz4BufferPool"/>): bucket sizes, caps, exact
    /// accounting on the meter, misuse (a late second dispose), release, lost rentals, and many threads at once.
    /// </summary>
    public class Lz4BufferPoolTest
    {
        [Theory]
        [InlineData(1, MinArray)]
        [InlineData(MinArray - 1, MinArray)]
        [InlineData(MinArray, MinArray)]
        [InlineData(MinArray + 1, 80 * 1024)] // four steps per doubling: 64, 80, 96, 112, 128 KiB, 160 KiB...
        [InlineData(100 * 1024, 112 * 1024)]
        [InlineData(3 * MinArray, 3 * MinArray)]
        [InlineData((3 * MinArray) + 1, 224 * 1024)]
        [InlineData(MiB, MiB)]
        [InlineData(MiB + 1, MiB + (MiB / 4))]
        [InlineData((3 * MiB) + 1, (3 * MiB) + (MiB / 2))]
        [InlineData(4 * MiB, 4 * MiB)]
        public void Rent_AnySize_ReturnsItsBucketSizeFourBucketsPerDoubling(int requested, int expectedLength)
        {
            // Arrange
            Lz4BufferPool pool = NewPool(4 * MiB, 64 * MiB, out _);

            // Act
            using PooledArray rental = pool.Rent(requested);

            // Assert
            Assert.Equal(expectedLength, rental.Array.Length);
            Assert.Equal(expectedLength, rental.Length);
            Assert.Equal(expectedLength, pool.ArrayLengthFor(requested));
            Assert.Equal(expectedLength, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
        }

        [Fact]
        public void ArrayLengthFor_WhereRentWouldNotPool_IsExact()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(4 * MiB, 64 * MiB, out _);

            // Act and Assert: above the largest bucket, for nothing, and after release
            Assert.Equal((4 * MiB) + 1, pool.ArrayLengthFor((4 * MiB) + 1));
            Assert.Equal((4 * MiB) + 1, pool.Rent((4 * MiB) + 1).Length);
            Assert.Equal(0, pool.ArrayLengthFor(0));
            pool.Release();
            Assert.Equal(3 * MinArray, pool.ArrayLengthFor(3 * MinArray));
            Assert.Equal(3 * MinArray, pool.Rent(3 * MinArray).Length);
        }

        [Theory]
        [InlineData(MinArray, MinArray)]
        [InlineData(MinArray + 1, 2 * MinArray)]
        [InlineData(100_000, 2 * MinArray)]
        [InlineData(3 * MiB, 4 * MiB)]
        [InlineData(32 * MiB, 32 * MiB)]
        public void Constructor_MaxArrayLength_IsRoundedUpToABucketSizeAndStillPooled(int configured, int expected)
        {
            // Act
            Lz4BufferPool pool = NewPool(configured, 0, out _);
            PooledArray largest = pool.Rent(pool.MaxArrayLength);

            // Assert: the rounded maximum is still served from the pool (accounted as in use)
            Assert.Equal(expected, pool.MaxArrayLength);
            Assert.Equal(expected, largest.Length);
            Assert.Equal(expected, pool.InUseBytes);
        }

        [Fact]
        public void Constructor_ArrayBelowTheMinimumOrNegativeCap_IsRejected()
        {
            // Arrange
            PoolMeter meter = new PoolMeter(DbxmemMetricsRecorder.NextTestScopeId(), DatabricksMemoryMetricNames.Lz4BuffersPool);

            // Act and Assert
            Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4BufferPool(MinArray - 1, 0, meter));
            Assert.Throws<ArgumentOutOfRangeException>(() => new Lz4BufferPool(MinArray, -1, meter));
        }

        [Fact]
        public async Task Constructor_MaxArrayLengthAboveTheLargestBucket_IsRejectedInsteadOfHanging()
        {
            // Arrange: buckets double from 64 KiB; above 2^30 the next bucket size overflows int. On a worker with a
            // bound, so that a regression (an endless bucket loop) fails this test instead of hanging the run.
            PoolMeter meter = new PoolMeter(DbxmemMetricsRecorder.NextTestScopeId(), DatabricksMemoryMetricNames.Lz4BuffersPool);

            // Act
            Task<Exception> construct = Task.Run(() => Record.Exception(() => new Lz4BufferPool(int.MaxValue, 0, meter)));

            // Assert
            Exception error = await WithinAsync(construct, Liveness, "new Lz4BufferPool(int.MaxValue, ...)");
            Assert.IsType<ArgumentOutOfRangeException>(error);
            Assert.Equal(1 << 30, new Lz4BufferPool(1 << 30, 0, meter).MaxArrayLength);
        }

        [Fact]
        public void Rent_ZeroOrNegative_GivesTheEmptyArrayOrThrows()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(MiB, MiB, out _);

            // Act
            PooledArray empty = pool.Rent(0);
            ArgumentOutOfRangeException negative = Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent(-1));

            // Assert
            Assert.Same(Array.Empty<byte>(), empty.Array);
            Assert.Equal("minimumLength", negative.ParamName);
            empty.Dispose(); // harmless and not accounted
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
        }

        [Fact]
        public void Rent_AboveTheMaximum_IsUnpooledExactAndItsReturnIsDropped()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);

            // Act
            PooledArray rental = pool.Rent(MiB + 1);
            byte[] big = rental.Array;

            // Assert
            Assert.Equal(MiB + 1, big.Length); // exact size, not rounded: it will never be pooled
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(MiB + 1, metrics.Sum(id, DatabricksMemoryMetricNames.Unpooled));
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Rented));
            rental.Dispose();
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
            Assert.NotSame(big, pool.Rent(MiB + 1).Array);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained));
        }

        [Fact]
        public void Rent_AfterAReturn_ReusesTheSameArrayWithExactAccounting()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);
            PooledArray first = pool.Rent(120_000); // the 128 KiB bucket
            PooledArray second = pool.Rent(120_000);
            byte[] firstArray = first.Array;
            byte[] secondArray = second.Array;
            Assert.NotSame(firstArray, secondArray);
            Assert.Equal(2 * 2 * MinArray, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);

            // Act and Assert: returned, then rented again at any size of the same bucket
            first.Dispose();
            Assert.Equal(2 * MinArray, pool.InUseBytes);
            Assert.Equal(2 * MinArray, pool.RetainedBytes);
            PooledArray again = pool.Rent((2 * MinArray) - 5);
            Assert.Same(firstArray, again.Array);
            Assert.Equal(2 * 2 * MinArray, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);

            // a smaller request takes the free larger array rather than allocating its own bucket's size
            second.Dispose();
            PooledArray small = pool.Rent(10);
            Assert.Same(secondArray, small.Array);
            Assert.Equal(2 * MinArray, small.Length);
            Assert.Equal(2 * 2 * MinArray, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
            again.Dispose();
            small.Dispose();
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(2 * 2 * MinArray, pool.RetainedBytes);

            // two arrays were ever allocated, both 128 KiB
            Assert.Equal(2 * 2 * MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Allocated));
            Assert.Equal(2, metrics.Count(id, DatabricksMemoryMetricNames.Allocated));
        }

        [Fact]
        public void Rent_FreeArrayLarger_IsTakenUpToFourBucketsUpAndOtherwiseItsOwnSizeIsAllocated()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);
            PooledArray free = pool.Rent(160 * 1024);
            byte[] large = free.Array;
            free.Dispose();

            // Act and Assert: 160 KiB is five buckets above 64 KiB (80, 96, 112, 128, 160): too large to take
            using (PooledArray small = pool.Rent(MinArray))
            {
                Assert.NotSame(large, small.Array);
                Assert.Equal(MinArray, small.Length);
            }

            // four buckets up (at most 2x) is taken: an 80 KiB request finds the free 160 KiB array
            using (PooledArray eighty = pool.Rent(80 * 1024))
            {
                Assert.Same(large, eighty.Array);
                Assert.Equal(160 * 1024, eighty.Length);
                Assert.Equal(160 * 1024, pool.InUseBytes);
            }

            Assert.Equal((160 * 1024) + MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Allocated));
            Assert.Equal(2, metrics.Count(id, DatabricksMemoryMetricNames.Allocated));
        }

        [Fact]
        public void Rent_ReturnedArray_IsNotCleared()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(MiB, MiB, out _);
            PooledArray rental = pool.Rent(MinArray);
            byte[] array = rental.Array;
            array.AsSpan().Fill(0xAB);
            rental.Dispose();

            // Act
            using PooledArray dirty = pool.Rent(MinArray);

            // Assert: stale bytes are expected (what the decoder's tests with poisoned pools rely on)
            Assert.Same(array, dirty.Array);
            Assert.True(AllAre(dirty.Array, 0xAB), "the pool cleared a returned array");
        }

        [Fact]
        public void TryRentFree_EmptyOrFreeArrays_ServesOnlyFreeArraysAndNeverAllocates()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);

            // Act and Assert: nothing free
            Assert.Null(pool.TryRentFree(MinArray));
            Assert.Null(pool.TryRentFree(0));
            Assert.Null(pool.TryRentFree(MiB + 1));
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Allocated));

            // one free 128 KiB array
            PooledArray rental = pool.Rent(2 * MinArray);
            byte[] array = rental.Array;
            rental.Dispose();
            Assert.Null(pool.TryRentFree((2 * MinArray) + 1)); // a larger bucket: nothing free there
            PooledArray? again = pool.TryRentFree(MinArray); // the bucket below takes the free larger array
            Assert.NotNull(again);
            Assert.Same(array, again!.Array);
            Assert.Equal(2 * MinArray, pool.InUseBytes);
            Assert.Equal(2 * MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Allocated));
            again.Dispose();
            Assert.Equal(0, pool.InUseBytes);
        }

        [Fact]
        public void Dispose_MoreThanTheCapReturned_RetainsAtMostTheCapAndDropsTheRest()
        {
            // Arrange: a cap that is not a multiple of the array size: one 128 KiB array fits in 200 KiB, a second does not
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 200 * KiB, out int id);
            List<PooledArray> rentals = new List<PooledArray>();
            for (int i = 0; i < 4; i++)
            {
                rentals.Add(pool.Rent(2 * MinArray));
            }

            List<byte[]> arrays = rentals.ConvertAll(rental => rental.Array);

            // Act
            foreach (PooledArray rental in rentals)
            {
                rental.Dispose();
                Assert.True(pool.RetainedBytes <= pool.MaxRetainedBytes);
            }

            // Assert
            Assert.Equal(2 * MinArray, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(3 * 2 * MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Dropped));

            // The 64 KiB bucket still fits beside it: 128 + 64 <= 200 (a 64 KiB rent first takes the free 128 KiB
            // array, so rent that one too before the 64 KiB array is allocated).
            PooledArray taken = pool.Rent(1);
            Assert.Same(arrays[0], taken.Array);
            PooledArray small = pool.Rent(1);
            Assert.Equal(MinArray, small.Length);
            small.Dispose();
            taken.Dispose();
            Assert.Equal(3 * MinArray, pool.RetainedBytes);

            // And the one kept 128 KiB array is the first one returned (only kept arrays can be reused).
            Assert.Same(arrays[0], pool.Rent(2 * MinArray).Array);
            Assert.NotSame(arrays[1], pool.Rent(2 * MinArray).Array);
        }

        [Fact]
        public void Dispose_ZeroCap_KeepsNothing()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(MiB, 0, out _);
            PooledArray rental = pool.Rent(MinArray);
            byte[] array = rental.Array;

            // Act
            rental.Dispose();

            // Assert
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
            Assert.NotSame(array, pool.Rent(MinArray).Array);
        }

        [Fact]
        public void Dispose_LateSecondDispose_NeverHandsOneArrayToTwoRenters()
        {
            // Arrange: someone else holds the array by the time the first renter disposes a second time
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out _);
            PooledArray first = pool.Rent(MinArray);
            byte[] array = first.Array;
            first.Dispose();
            PooledArray second = pool.Rent(MinArray);
            Assert.Same(array, second.Array);

            // Act
            first.Dispose();

            // Assert
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(MinArray, pool.InUseBytes);
            PooledArray third = pool.Rent(MinArray);
            Assert.NotSame(array, third.Array);
            Assert.Equal(2 * MinArray, pool.InUseBytes);
            ObjectDisposedException disposed = Assert.Throws<ObjectDisposedException>(() => first.Array); // no access at all
            Assert.Equal(nameof(PooledArray), disposed.ObjectName);
            Assert.Equal(MinArray, first.Length);
        }

        [Fact]
        public void Rent_RentalLostWithoutDispose_IsCollectableAndMovesFromInUseToCollected()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            WeakReference lost = RentAndLose(pool);
            Assert.Equal(MinArray, pool.InUseBytes);

            // Act
            FullCollect();

            // Assert: the pool keeps no lent array alive; the in-use gauge does not drift, the leak shows on its own counter
            Assert.False(lost.IsAlive, "the pool must not keep a lent array alive");
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Collected));
            Assert.Equal(0, pool.RetainedBytes);
            GC.KeepAlive(pool);
        }

        [Fact]
        public void Dispose_Rentals_AreNeverCountedAsCollected()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();

            // Act
            RentAndReturn(pool, 3);
            FullCollect();

            // Assert
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Collected));
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.InUse));
            GC.KeepAlive(pool);
        }

        [Fact]
        public void Release_WithArraysKeptAndRented_DropsEverythingAndLaterRentsAndReturnsAreUnpooled()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out int id);
            PooledArray stillRented = pool.Rent(MinArray);
            byte[] stillRentedArray = stillRented.Array;
            PooledArray kept = pool.Rent(2 * MinArray);
            byte[] keptArray = kept.Array;
            kept.Dispose();
            Assert.Equal(2 * MinArray, pool.RetainedBytes);

            // Act
            pool.Release();
            pool.Release(); // idempotent

            // Assert
            Assert.True(pool.IsReleased);
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(MinArray, pool.InUseBytes);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained));
            Assert.Equal(2 * MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Dropped));

            // a rent after release: a new, exact-size, unaccounted array (never the dropped one)
            PooledArray after = pool.Rent((2 * MinArray) - 1);
            Assert.NotSame(keptArray, after.Array);
            Assert.Equal((2 * MinArray) - 1, after.Length);
            Assert.Equal(MinArray, pool.InUseBytes);
            Assert.Equal((2 * MinArray) - 1, metrics.Sum(id, DatabricksMemoryMetricNames.Unpooled));

            // late returns: the array rented before release leaves the in-use count and is dropped, not kept
            stillRented.Dispose();
            after.Dispose();
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(0, pool.RetainedBytes);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained));
            Assert.Equal(3 * MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Dropped));
            Assert.NotSame(stillRentedArray, pool.Rent(MinArray).Array);
        }

        [Fact]
        public void Release_KeptAndLateReturnedArrays_BecomeCollectable()
        {
            // Arrange
            Lz4BufferPool pool = NewPool(MiB, 64 * MiB, out _);
            WeakReference[] kept = null!;
            WeakReference lateReturn = null!;
            Action returnIt = null!;
            OnOwnThread(() =>
            {
                kept = RentAndReturn(pool, 3);
                lateReturn = RentNowReturnAfterRelease(pool, out returnIt);
            });
            FullCollect();
            Assert.All(kept, reference => Assert.True(reference.IsAlive, "the pool keeps returned arrays until release"));

            // Act
            pool.Release();
            OnOwnThread(() =>
            {
                returnIt();
                returnIt = null!;
            });
            FullCollect();

            // Assert
            Assert.All(kept, reference => Assert.False(reference.IsAlive, "a released pool must not keep arrays alive"));
            Assert.False(lateReturn.IsAlive, "an array returned after release must be dropped");
            GC.KeepAlive(pool);
        }

        /// <summary>
        /// Renters on several threads give their rentals back, and some give them back a second time later (after
        /// other threads had time to rent the same array) or race a second dispose against the first. Every array
        /// must have one holder at a time: a renter stamps it with its own id (its first bytes: filling whole arrays
        /// would make the test slower, not stricter) and checks the stamp is intact when it gives it back.
        /// </summary>
        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public void RentAndDispose_ManyThreadsWithLateAndRacingSecondDisposes_OneHolderPerArrayAndExactFinalAccounting(bool releaseMidway)
        {
            // Arrange
            const int Threads = 4;
            const int Operations = 4000;
            const long Cap = 512 * KiB;
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            Lz4BufferPool pool = NewPool(256 * KiB, Cap, out int id);
            ConcurrentDictionary<byte[], int> holders = new ConcurrentDictionary<byte[], int>(); // arrays compare by reference
            ConcurrentQueue<string> failures = new ConcurrentQueue<string>();
            using Barrier start = new Barrier(Threads + (releaseMidway ? 1 : 0));
            using CountdownEvent releasePoint = new CountdownEvent(Threads);
            Thread[] workers = new Thread[Threads];

            // Act
            for (int t = 0; t < Threads; t++)
            {
                int self = t + 1;
                workers[t] = new Thread(() => Renter(self))
                {
                    IsBackground = true,
                };
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

            // Assert
            Assert.Empty(failures);
            Assert.Equal(0, pool.InUseBytes);
            Assert.InRange(pool.RetainedBytes, 0, Cap);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(pool.RetainedBytes, metrics.Sum(id, DatabricksMemoryMetricNames.Retained));
            Assert.Equal(metrics.Sum(id, DatabricksMemoryMetricNames.Rented), metrics.Sum(id, DatabricksMemoryMetricNames.Returned));
            if (releaseMidway)
            {
                Assert.Equal(0, pool.RetainedBytes);
            }

            void Renter(int self)
            {
                Random random = new Random(self);
                List<(PooledArray Rental, byte[] Array)> held = new List<(PooledArray, byte[])>();
                Queue<PooledArray> returned = new Queue<PooledArray>(); // given back already; some get a late second dispose
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
                        PooledArray rental = pool.Rent(random.Next(1, 300 * KiB));
                        byte[] array = rental.Array;
                        if (!holders.TryAdd(array, self))
                        {
                            failures.Enqueue($"array handed to thread {self} while thread {(holders.TryGetValue(array, out int other) ? other : 0)} holds it");
                        }

                        Stamp(array).Fill((byte)self);
                        held.Add((rental, array));
                    }
                    else
                    {
                        int index = random.Next(held.Count);
                        (PooledArray rental, byte[] array) = held[index];
                        held.RemoveAt(index);
                        if (!AllAre(Stamp(array), (byte)self))
                        {
                            failures.Enqueue($"array held by thread {self} was written by someone else");
                        }

                        holders.TryRemove(array, out _);
                        if (random.Next(8) == 0)
                        {
                            // A racing second return: two threads dispose the same rental at once.
                            Task other = Task.Run(rental.Dispose);
                            rental.Dispose();
                            other.Wait();
                        }
                        else
                        {
                            rental.Dispose();
                        }

                        returned.Enqueue(rental);
                    }

                    // A late second return of a rental given back a while ago, whose array may well be someone else's by now.
                    if (returned.Count > 8 || (returned.Count > 0 && random.Next(4) == 0))
                    {
                        returned.Dequeue().Dispose();
                    }

                    if (pool.RetainedBytes > Cap)
                    {
                        failures.Enqueue($"retained {pool.RetainedBytes} exceeds the cap {Cap}");
                    }
                }

                foreach ((PooledArray rental, byte[] array) in held)
                {
                    holders.TryRemove(array, out _);
                    rental.Dispose();
                }
            }
        }

        private static Span<byte> Stamp(byte[] array) => array.Length <= 64 ? array.AsSpan() : array.AsSpan(0, 32);

        private static bool AllAre(Span<byte> bytes, byte value)
        {
            foreach (byte b in bytes)
            {
                if (b != value)
                {
                    return false;
                }
            }

            return true;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference RentAndLose(Lz4BufferPool pool) => new WeakReference(pool.Rent(MinArray).Array);

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference[] RentAndReturn(Lz4BufferPool pool, int count)
        {
            PooledArray[] rentals = new PooledArray[count];
            WeakReference[] references = new WeakReference[count];
            for (int i = 0; i < count; i++)
            {
                rentals[i] = pool.Rent(MinArray << i);
                references[i] = new WeakReference(rentals[i].Array);
            }

            foreach (PooledArray rental in rentals)
            {
                rental.Dispose();
            }

            return references;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference RentNowReturnAfterRelease(Lz4BufferPool pool, out Action returnIt)
        {
            PooledArray rental = pool.Rent(MinArray);
            PooledArray?[] box = { rental };
            returnIt = () =>
            {
                box[0]!.Dispose();
                box[0] = null;
            };
            return new WeakReference(rental.Array);
        }
    }
}
