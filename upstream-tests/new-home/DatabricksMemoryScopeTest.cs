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
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The reference-counted lifetime of a database's memory (<see cref="DatabricksMemoryScope"/>): one lease for the
    /// database, one per connection, released when the last lease goes (on any thread, exactly once), a lease taken
    /// after release detached, and nothing of a released scope kept alive.
    /// </summary>
    public class DatabricksMemoryScopeTest
    {
        private const string Retained = DatabricksMemoryOptions.BufferPoolMaxRetainedMbKey;
        private const string Pooling = DatabricksMemoryOptions.PoolingEnabledKey;

        public static TheoryData<int[]> DisposalOrders() => new TheoryData<int[]>
        {
            new[] { 0, 1, 2 }, new[] { 0, 2, 1 }, new[] { 1, 0, 2 },
            new[] { 1, 2, 0 }, new[] { 2, 0, 1 }, new[] { 2, 1, 0 },
        };

        [Fact]
        public void Create_TwoDatabases_EachGetsAScopeOfItsOwnWithOneLease()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();

            // Act
            using DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            using DatabricksMemoryLease other = DatabricksMemoryScope.Create(null);

            // Assert
            Assert.NotSame(owner.Scope, other.Scope);
            Assert.NotSame(owner.Scope.BufferPool, other.Scope.BufferPool); // never process-wide: pooled arrays are not cleared
            Assert.NotEqual(owner.Scope.Id, other.Scope.Id);
            Assert.False(owner.IsDetached);
            Assert.False(owner.Scope.IsReleased);
            Assert.Equal(1, owner.Scope.LeaseCount);
            Assert.Equal(1, metrics.Sum(owner.Scope.Id, DatabricksMemoryMetricNames.LiveScopes));
        }

        /// <summary>The owner (database) and two connections, disposed in each of the 3! orders.</summary>
        [Theory]
        [MemberData(nameof(DisposalOrders))]
        public void Dispose_LeasesInAnyOrder_ReleasesExactlyWhenTheLastGoes(int[] order)
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            DatabricksMemoryLease[] leases = { owner, scope.AcquireLease(), scope.AcquireLease() };
            scope.BufferPool.Rent(1000).Dispose(); // pooled memory, so release has something to drop
            Assert.Equal(3, scope.LeaseCount);
            Assert.All(leases, lease => Assert.Same(scope, lease.Scope));
            Assert.All(leases, lease => Assert.False(lease.IsDetached));
            Assert.Equal(Lz4BufferPool.MinimumArrayLength, scope.BufferPool.RetainedBytes);

            for (int i = 0; i < order.Length; i++)
            {
                // Act
                leases[order[i]].Dispose();
                leases[order[i]].Dispose(); // idempotent: a second Dispose must not drop another reference

                // Assert
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
        public void AcquireLease_AfterRelease_IsDetachedAndTheScopeStillWorksUnpooled()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            owner.Dispose();
            byte[] data = Compressible(100 * KiB, seed: 3);
            byte[] compressed = Lz4Frame(data, IndependentBlocks4MiB());

            // Act
            DatabricksMemoryLease late = scope.AcquireLease();

            // Assert
            Assert.True(late.IsDetached);
            Assert.Same(scope, late.Scope);
            Assert.Equal(0, scope.LeaseCount);
            Assert.Equal(data, DecodeAsRead(late.Scope, compressed)); // both decoders work, unpooled
            Assert.Equal(data, late.Scope.Lz4.DecompressToArray(compressed));
            Assert.Equal(0, scope.BufferPool.RetainedBytes); // a released scope keeps nothing
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            late.Dispose();
            late.Dispose();
            Assert.Equal(0, scope.LeaseCount); // disposing a detached lease does nothing (no negative count)
            Assert.True(scope.IsReleased);
            Assert.True(scope.AcquireLease().IsDetached); // a released scope never comes back to life
            Assert.Equal(0, scope.LeaseCount);
            Assert.Equal(1, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
        }

        [Fact]
        public void Dispose_LastLeaseWhileTheApplicationStillHoldsTheScope_LetsItsPooledArraysBeCollected()
        {
            // Arrange: the application still holds the disposed database's objects; they must keep nothing big alive
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryLease connection = owner.Scope.AcquireLease();
            DatabricksMemoryScope scope = owner.Scope;
            (WeakReference streamArray, WeakReference[] arrays) = FillThePool(scope);
            FullCollect();
            Assert.True(streamArray.IsAlive, "a live scope keeps the array a disposed stream gave back");
            Assert.All(arrays, array => Assert.True(array.IsAlive, "a live scope keeps returned arrays"));

            // Act
            owner.Dispose();
            connection.Dispose();
            FullCollect();

            // Assert
            Assert.False(streamArray.IsAlive, "the released scope must not keep a decompressed file's array alive");
            Assert.All(arrays, array => Assert.False(array.IsAlive, "the released scope must not keep pooled arrays alive"));
            GC.KeepAlive(scope);
            GC.KeepAlive(owner);
            GC.KeepAlive(connection);
        }

        [Fact]
        public void Dispose_LastLeaseWhileAFileIsHalfRead_TheFileStaysReadableAndItsArraysAreDroppedWhenItIsDisposed()
        {
            // Arrange: a reader may still be reading a file when the database and connection are disposed
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            byte[] data = Compressible(100 * KiB, seed: 4);
            Stream open = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, WithContentSize(Lz4Frame(data, IndependentBlocks4MiB()), data.Length)));
            byte[] first = new byte[10];
            Assert.Equal(10, ReadFully(open, first, first.Length));

            // Act
            owner.Dispose();

            // Assert
            Assert.True(scope.IsReleased);
            byte[] rest = ReadAll(open, 81920);
            Assert.Equal(data, first.Concat(rest).ToArray());
            open.Dispose();
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Retained));
        }

        [Fact]
        public void AcquireLease_ManyThreadsWhileTheOwnerStays_NeverReleasesTheScope()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;

            // Act: connections come and go, some disposed twice
            RunThreads(4, 2000, (random, _) =>
            {
                DatabricksMemoryLease lease = scope.AcquireLease();
                Assert.False(lease.IsDetached);
                scope.BufferPool.Rent(random.Next(1, 200_000)).Dispose();
                lease.Dispose();
                if (random.Next(4) == 0)
                {
                    lease.Dispose();
                }
            });

            // Assert
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
        public void Dispose_OwnerRacingLeasesOnManyThreads_ReleasesExactlyOnce()
        {
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            for (int round = 0; round < 20; round++)
            {
                // Arrange
                DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
                DatabricksMemoryScope scope = owner.Scope;

                // Act: any thread may be the one disposing the database, and several may try
                RunThreads(4, 200, (random, op) =>
                {
                    if (op == 100 && random.Next(4) == 0)
                    {
                        owner.Dispose();
                    }

                    DatabricksMemoryLease lease = scope.AcquireLease();
                    scope.BufferPool.Rent(random.Next(1, 70_000)).Dispose();
                    lease.Dispose();
                });
                owner.Dispose();

                // Assert
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
        public void Dispose_EveryLeaseFromFourThreadsAtOnce_ReleasesExactlyOnce()
        {
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            for (int round = 0; round < 20; round++)
            {
                // Arrange
                DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
                DatabricksMemoryScope scope = owner.Scope;
                List<DatabricksMemoryLease> leases = new List<DatabricksMemoryLease> { owner };
                for (int i = 0; i < 7; i++)
                {
                    leases.Add(scope.AcquireLease());
                }

                // Act: each of 4 threads disposes every lease, in an order of its own: 8 leases, 4 attempts each
                RunThreads(4, 1, (random, _) =>
                {
                    foreach (DatabricksMemoryLease lease in leases.OrderBy(_ => random.Next()).ToList())
                    {
                        lease.Dispose();
                    }
                });

                // Assert
                Assert.True(scope.IsReleased);
                Assert.Equal(0, scope.LeaseCount);
                Assert.Equal(1, metrics.NegativeCount(scope.Id, DatabricksMemoryMetricNames.LiveScopes));
            }
        }

        [Fact]
        public void AcquireLease_ConnectOptionsThatDifferFromTheDatabase_AreRefusedAsDatabaseLevelAndTakeNoLease()
        {
            // Arrange: a connection shares the database's scope, so its memory options cannot differ
            using DatabricksMemoryLease owner = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "64"), (Retained, "64"));
            DatabricksMemoryScope scope = owner.Scope;

            // Act
            ArgumentException budget = Assert.Throws<ArgumentException>(() => scope.AcquireLease(Properties((DatabricksMemoryOptions.BudgetMbKey, "32"))));
            ArgumentException retained = Assert.Throws<ArgumentException>(() => scope.AcquireLease(Properties((Retained, "256"))));
            ArgumentException pooling = Assert.Throws<ArgumentException>(() => scope.AcquireLease(Properties((Pooling, "false"))));

            // Assert
            Assert.Contains(DatabricksMemoryOptions.BudgetMbKey, budget.Message);
            Assert.Contains($"'{Retained}'", retained.Message);
            Assert.Contains("database-level", retained.Message);
            Assert.Contains("67108864", retained.Message); // the database's value, in bytes
            Assert.Contains("database-level", pooling.Message);
            Assert.Equal(1, scope.LeaseCount); // nothing acquired
        }

        [Theory]
        [InlineData(Retained, "abc")]
        [InlineData(Retained, "-1")]
        [InlineData(Pooling, "maybe")]
        [InlineData("adbc.databricks.memory.no_such_option", "1")]
        public void AcquireLease_MalformedOrUnknownConnectOptions_AreRefusedAndTakeNoLease(string key, string value)
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();

            // Act
            ArgumentException error = Assert.Throws<ArgumentException>(() => owner.Scope.AcquireLease(Properties((key, value))));

            // Assert
            Assert.Contains($"'{key}'", error.Message);
            Assert.Equal(1, owner.Scope.LeaseCount);
        }

        [Fact]
        public void AcquireLease_ConnectOptionsThatAgreeOrAreNotMemoryOptions_TakeALease()
        {
            // Arrange: hosts often pass the same properties to the database and to Connect
            using DatabricksMemoryLease owner = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "64"), (Retained, "64"), (Pooling, "true"));
            Dictionary<string, string> connectOptions = Properties(
                (DatabricksMemoryOptions.BudgetMbKey, "64"),
                (Retained.ToUpperInvariant(), "64"),
                (Pooling, "True"),
                (DatabricksMemoryOptions.BufferPoolMaxArrayMbKey, "32"),
                ("adbc.databricks.other", "x"));

            // Act
            using DatabricksMemoryLease connection = owner.Scope.AcquireLease(connectOptions);
            using DatabricksMemoryLease withoutOptions = owner.Scope.AcquireLease(connectOptions: null);

            // Assert
            Assert.False(connection.IsDetached);
            Assert.Same(owner.Scope, connection.Scope);
            Assert.Equal(3, owner.Scope.LeaseCount);
            Assert.Equal(64L * MiB, owner.Scope.Budget.Limit);
        }

        [Fact]
        public void CreateUnpooled_ForComponentsBuiltWithoutAScope_IsReleasedAndNeverCountedAsALiveScopeOrABudget()
        {
            // Arrange: what a listener summing the meter sees (series 1.5.0 created and released a scope for this, which
            // read as a second live scope and a second budget beside the database's)
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();

            // Act
            DatabricksMemoryScope unpooled = DatabricksMemoryScope.CreateUnpooled();
            using DatabricksMemoryLease lease = unpooled.AcquireLease();
            using PooledArray array = unpooled.BufferPool.Rent(1 * MiB);

            // Assert
            Assert.Equal(0, metrics.Count(unpooled.Id, DatabricksMemoryMetricNames.LiveScopes));
            Assert.Equal(0, metrics.Count(unpooled.Id, DatabricksMemoryMetricNames.BudgetLimit));
            Assert.True(unpooled.IsReleased);
            Assert.True(lease.IsDetached);
            Assert.Equal(0, unpooled.BufferPool.InUseBytes); // an ordinary GC allocation, as in upstream's driver
        }

        /// <summary>
        /// Decodes a 5 MiB file through the scope and returns two more arrays to its pool; in its own frame, so that no
        /// local of the test keeps an array alive. Returns weak references to the file's download array and to the two.
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static (WeakReference StreamArray, WeakReference[] Arrays) FillThePool(DatabricksMemoryScope scope)
        {
            byte[] data = Compressible(5 * MiB, seed: 5);
            byte[] compressed = WithContentSize(Lz4Frame(data, IndependentBlocks4MiB()), data.Length);
            PooledBuffer download = Download(scope.BufferPool, compressed);
            WeakReference streamArray = new WeakReference(download.Segment.Array);
            using (Stream stream = scope.Lz4.DecodeAsRead(download))
            {
                Assert.Equal(data, ReadAllSettled(stream, 81920));
            }

            PooledArray a = scope.BufferPool.Rent(1);
            PooledArray b = scope.BufferPool.Rent(64 * KiB);
            WeakReference[] arrays = { new WeakReference(a.Array), new WeakReference(b.Array) };
            a.Dispose();
            b.Dispose();
            // The download's array, the two 4 MiB blocks (the one being read and the one decoded ahead) and the two.
            Assert.Equal(BucketOf(compressed.Length) + (2 * 4 * MiB) + a.Length + b.Length, scope.BufferPool.RetainedBytes);
            return (streamArray, arrays);
        }

        /// <summary>Runs <paramref name="body"/> on several threads started together; fails with the first failure.</summary>
        private static void RunThreads(int threads, int operations, Action<Random, int> body)
        {
            ConcurrentQueue<Exception> failures = new ConcurrentQueue<Exception>();
            using Barrier start = new Barrier(threads);
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                int seed = t + 1;
                workers[t] = new Thread(() =>
                {
                    Random random = new Random(seed);
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
