using System.Linq;
using System.Runtime.CompilerServices;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>Reference-counted lifetime: owner and connection leases, release on the last one, detached leases.</summary>
    public class DatabricksMemoryScopeTests
    {
        [Fact]
        public void CreateReturnsTheOwnerLeaseOfANewLiveScope()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            using DatabricksMemoryLease other = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;

            Assert.NotSame(scope, other.Scope);
            Assert.NotEqual(scope.Id, other.Scope.Id);
            Assert.False(owner.IsDetached);
            Assert.False(scope.IsReleased);
            Assert.Equal(1, scope.LeaseCount);
            Assert.NotSame(scope.BufferPool, other.Scope.BufferPool); // never process-wide
            Assert.Equal(1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
        }

        /// <summary>Owner (database) plus two connections, disposed in each of the 3! orders.</summary>
        public static IEnumerable<object[]> DisposalOrders()
        {
            int[][] orders =
            {
                new[] { 0, 1, 2 }, new[] { 0, 2, 1 }, new[] { 1, 0, 2 },
                new[] { 1, 2, 0 }, new[] { 2, 0, 1 }, new[] { 2, 1, 0 },
            };
            return orders.Select(order => new object[] { order });
        }

        [Theory]
        [MemberData(nameof(DisposalOrders))]
        public void ReleaseHappensExactlyWhenTheLastLeaseIsDisposed(int[] order)
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            DatabricksMemoryLease connection1 = scope.AcquireLease();
            DatabricksMemoryLease connection2 = scope.AcquireLease();
            DatabricksMemoryLease[] leases = { owner, connection1, connection2 };
            Assert.Equal(3, scope.LeaseCount);
            Assert.All(leases, lease => Assert.Same(scope, lease.Scope));
            Assert.All(leases, lease => Assert.False(lease.IsDetached));

            // Some pooled memory so release has something to drop.
            scope.BufferPool.Rent(1000).Dispose();
            Assert.True(scope.BufferPool.RetainedBytes > 0);

            for (int i = 0; i < order.Length; i++)
            {
                leases[order[i]].Dispose();
                leases[order[i]].Dispose(); // idempotent: a second Dispose must not drop another reference
                bool last = i == order.Length - 1;
                Assert.Equal(order.Length - 1 - i, scope.LeaseCount);
                Assert.Equal(last, scope.IsReleased);
                Assert.Equal(last, scope.BufferPool.IsReleased);
                Assert.Equal(last ? 0 : Lz4BufferPool.MinimumArrayLength, scope.BufferPool.RetainedBytes);
                Assert.Equal(last ? 0 : 1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
            }

            Assert.Equal(1, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
        }

        [Fact]
        public void DisposingOneLeaseManyTimesReleasesOnlyOnce()
        {
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryLease connection = owner.Scope.AcquireLease();

            for (int i = 0; i < 5; i++)
            {
                connection.Dispose();
            }

            Assert.Equal(1, owner.Scope.LeaseCount);
            Assert.False(owner.Scope.IsReleased);

            owner.Dispose();
            owner.Dispose();
            Assert.Equal(0, owner.Scope.LeaseCount);
            Assert.True(owner.Scope.IsReleased);
        }

        [Fact]
        public void LeaseAfterReleaseIsDetachedAndTheScopeStillWorksUnpooled()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            owner.Dispose();
            Assert.True(scope.IsReleased);

            DatabricksMemoryLease late = scope.AcquireLease();

            Assert.True(late.IsDetached);
            Assert.Same(scope, late.Scope);
            Assert.Equal(0, scope.LeaseCount);

            // It works: decoding through it allocates unpooled memory and keeps nothing.
            (byte[] data, byte[] compressed) = Sample(100 * KiB, WithoutContentSize);
            Assert.Equal(data, Lz4Decoding.DecodeAsRead(late.Scope.Lz4, late.Scope.BufferPool, compressed));

            Assert.Equal(data, late.Scope.Lz4.DecompressToArray(compressed));
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);

            late.Dispose();
            late.Dispose();
            Assert.Equal(0, scope.LeaseCount); // disposing a detached lease does nothing (no negative count)
            Assert.True(scope.IsReleased);

            // A second detached lease is just as detached: the released scope never comes back to life.
            DatabricksMemoryLease again = scope.AcquireLease();
            Assert.True(again.IsDetached);
            Assert.Equal(0, scope.LeaseCount);
            Assert.Equal(1, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
        }

        [Fact]
        public void AfterReleasePooledArraysAreCollectableWhileTheScopeIsStillHeld()
        {
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryLease connection = owner.Scope.AcquireLease();
            DatabricksMemoryScope scope = owner.Scope;

            (WeakReference streamArray, WeakReference[] arrays) = FillThePool(scope);
            FullCollect();
            Assert.True(streamArray.IsAlive, "a live scope keeps the array a disposed stream gave back");
            Assert.All(arrays, array => Assert.True(array.IsAlive, "a live scope keeps returned arrays"));

            owner.Dispose();
            connection.Dispose();
            FullCollect();

            Assert.False(streamArray.IsAlive, "the released scope must not keep a decompressed file's array alive");
            Assert.All(arrays, array => Assert.False(array.IsAlive, "the released scope must not keep pooled arrays alive"));

            // The application still holds the disposed database's objects; they keep nothing big alive.
            GC.KeepAlive(scope);
            GC.KeepAlive(owner);
            GC.KeepAlive(connection);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static (WeakReference StreamArray, WeakReference[] Arrays) FillThePool(DatabricksMemoryScope scope)
        {
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithContentSize);
            PooledBuffer download = Lz4Decoding.Download(scope.BufferPool, compressed);
            var streamArray = new WeakReference(download.Segment.Array);
            using (Stream stream = scope.Lz4.DecodeAsRead(download))
            {
                Assert.Equal(data, Lz4Decoding.ReadAll(stream, 81920, settle: true));
            }

            PooledArray a = scope.BufferPool.Rent(1);
            PooledArray b = scope.BufferPool.Rent(64 * KiB);
            var arrays = new[] { new WeakReference(a.Array), new WeakReference(b.Array) };
            a.Dispose();
            b.Dispose();
            Assert.Equal(BucketOf(compressed.Length) + (2 * 4 * MiB) + a.Length + b.Length, scope.BufferPool.RetainedBytes); // the download, the two 4 MiB blocks
            return (streamArray, arrays);
        }

        [Fact]
        public void StreamOpenedBeforeReleaseStaysReadableAndIsDroppedWhenDisposed()
        {
            // A reader may still be reading a decompressed file when the database and connection are disposed.
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            (byte[] data, byte[] compressed) = Sample(100 * KiB, WithContentSize);
            Stream open = scope.Lz4.DecodeAsRead(Lz4Decoding.Download(scope.BufferPool, compressed));
            byte[] first = new byte[10];
            open.ReadExactly(first);

            owner.Dispose();
            Assert.True(scope.IsReleased);

            byte[] read = Lz4Decoding.ReadAll(open, 81920);
            Assert.Equal(data, first.Concat(read).ToArray());
            open.Dispose();

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Retained));
        }

        [Fact]
        public void ManyThreadsAcquireAndDisposeLeasesWhileTheOwnerStaysAndTheScopeIsNeverReleased()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;

            RunThreads(4, 2000, (random, _) =>
            {
                DatabricksMemoryLease lease = scope.AcquireLease();
                Assert.False(lease.IsDetached);
                PooledArray array = scope.BufferPool.Rent(random.Next(1, 200_000));
                array.Dispose();
                lease.Dispose();
                if (random.Next(4) == 0)
                {
                    lease.Dispose();
                }
            });

            Assert.Equal(1, scope.LeaseCount);
            Assert.False(scope.IsReleased);
            Assert.Equal(0, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));

            owner.Dispose();
            Assert.True(scope.IsReleased);
            Assert.Equal(1, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public void ManyThreadsRacingTheOwnersDisposeReleaseExactlyOnce()
        {
            using var metrics = new MemoryMetricsRecorder();
            for (int round = 0; round < 20; round++)
            {
                DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
                DatabricksMemoryScope scope = owner.Scope;
                int detached = 0;

                RunThreads(4, 200, (random, op) =>
                {
                    if (op == 100 && random.Next(4) == 0)
                    {
                        owner.Dispose(); // any thread may be the one disposing the database, several may try
                    }

                    DatabricksMemoryLease lease = scope.AcquireLease();
                    if (lease.IsDetached)
                    {
                        Interlocked.Increment(ref detached);
                    }

                    scope.BufferPool.Rent(random.Next(1, 70_000)).Dispose();
                    lease.Dispose();
                });

                owner.Dispose();

                Assert.True(scope.IsReleased);
                Assert.Equal(0, scope.LeaseCount);
                Assert.Equal(1, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
                Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
                Assert.Equal(0, scope.BufferPool.RetainedBytes);
                Assert.Equal(0, scope.BufferPool.InUseBytes);
                Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Retained));
                Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
                Assert.True(scope.AcquireLease().IsDetached);
            }
        }

        [Fact]
        public void ConnectionsDisposedConcurrentlyWithTheOwnerReleaseExactlyOnce()
        {
            using var metrics = new MemoryMetricsRecorder();
            for (int round = 0; round < 20; round++)
            {
                DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
                DatabricksMemoryScope scope = owner.Scope;
                var leases = new List<DatabricksMemoryLease> { owner };
                for (int i = 0; i < 7; i++)
                {
                    leases.Add(scope.AcquireLease());
                }

                // Each of 4 threads disposes every lease: 8 leases x 4 attempts, exactly 8 releases of a reference.
                RunThreads(4, 1, (random, _) =>
                {
                    foreach (DatabricksMemoryLease lease in leases.OrderBy(_ => random.Next()))
                    {
                        lease.Dispose();
                    }
                });

                Assert.True(scope.IsReleased);
                Assert.Equal(0, scope.LeaseCount);
                Assert.Equal(1, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
            }
        }

        /// <summary>Runs <paramref name="body"/> on several threads started together; rethrows the first failure.</summary>
        private static void RunThreads(int threads, int operations, Action<Random, int> body)
        {
            var failures = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
            using var start = new Barrier(threads);
            var workers = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                int seed = t + 1;
                workers[t] = new Thread(() =>
                {
                    var random = new Random(seed);
                    start.SignalAndWait();
                    try
                    {
                        for (int op = 0; op < operations; op++)
                        {
                            body(random, op);
                        }
                    }
                    catch (Exception ex)
                    {
                        failures.Enqueue(ex);
                    }
                })
                { IsBackground = true };
                workers[t].Start();
            }

            foreach (Thread worker in workers)
            {
                Assert.True(worker.Join(TimeSpan.FromSeconds(60)), "a worker did not finish");
            }

            Assert.Empty(failures);
        }
    }
}
