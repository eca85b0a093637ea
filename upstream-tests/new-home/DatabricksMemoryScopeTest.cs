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
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.IO;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The reference-counted lifetime of a database's memory (<see cref="DatabricksMemoryScope"/>): one lease for the
    /// database, one per connection, released when the last lease goes, and a lease taken after release detached.
    /// </summary>
    public class DatabricksMemoryScopeTest
    {
        public static TheoryData<int[]> DisposalOrders() => new TheoryData<int[]>
        {
            new[] { 0, 1, 2 }, new[] { 0, 2, 1 }, new[] { 1, 0, 2 },
            new[] { 1, 2, 0 }, new[] { 2, 0, 1 }, new[] { 2, 1, 0 },
        };

        [Fact]
        public void Create_TwoDatabases_EachGetsAScopeOfItsOwnWithOneLease()
        {
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
        }

        /// <summary>The owner (database) and two connections, disposed in each of the 3! orders.</summary>
        [Theory]
        [MemberData(nameof(DisposalOrders))]
        public void Dispose_LeasesInAnyOrder_ReleasesExactlyWhenTheLastGoes(int[] order)
        {
            // Arrange
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            DatabricksMemoryLease[] leases = { owner, scope.AcquireLease(), scope.AcquireLease() };
            scope.BufferPool.Rent(1000).Dispose(); // pooled memory, so release has something to drop
            Assert.Equal(3, scope.LeaseCount);
            Assert.True(scope.BufferPool.RetainedBytes > 0);

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
                Assert.Equal(last, scope.BufferPool.RetainedBytes == 0);
            }
        }

        [Fact]
        public void AcquireLease_AfterRelease_IsDetachedAndTheScopeStillWorksUnpooled()
        {
            // Arrange
            DatabricksMemoryLease owner = DatabricksMemoryScope.Create(null);
            DatabricksMemoryScope scope = owner.Scope;
            owner.Dispose();

            // Act
            DatabricksMemoryLease late = scope.AcquireLease();

            // Assert
            Assert.True(late.IsDetached);
            Assert.Same(scope, late.Scope);
            Assert.Equal(0, scope.LeaseCount);
            byte[] data = Compressible(100 * KiB, seed: 3);
            using (Stream stream = late.Scope.Lz4.DecodeAsRead(Download(late.Scope.BufferPool, Lz4Frame(data, IndependentBlocks4MiB()))))
            {
                Assert.Equal(data, ReadAll(stream, 81920));
            }

            Assert.Equal(0, scope.BufferPool.RetainedBytes); // a released scope keeps nothing
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            late.Dispose();
            Assert.Equal(0, scope.LeaseCount); // disposing a detached lease does nothing (no negative count)
            Assert.True(scope.AcquireLease().IsDetached); // a released scope never comes back to life
        }

        [Fact]
        public void AcquireLease_ConnectOptionsWithADifferentBudget_IsRefusedAndTakesNoLease()
        {
            // Arrange: the connection shares the database's scope, so its memory options cannot differ
            using DatabricksMemoryLease owner = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "64"));
            Dictionary<string, string> connectOptions = new Dictionary<string, string> { [DatabricksMemoryOptions.BudgetMbKey] = "32" };

            // Act
            ArgumentException error = Assert.Throws<ArgumentException>(() => owner.Scope.AcquireLease(connectOptions));

            // Assert
            Assert.Contains(DatabricksMemoryOptions.BudgetMbKey, error.Message);
            Assert.Equal(1, owner.Scope.LeaseCount);
        }

        [Fact]
        public void AcquireLease_ConnectOptionsWithTheSameBudget_TakesALease()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "64"));
            Dictionary<string, string> connectOptions = new Dictionary<string, string> { [DatabricksMemoryOptions.BudgetMbKey] = "64" };

            // Act
            using DatabricksMemoryLease connection = owner.Scope.AcquireLease(connectOptions);

            // Assert
            Assert.Same(owner.Scope, connection.Scope);
            Assert.Equal(2, owner.Scope.LeaseCount);
            Assert.Equal(64L * MiB, owner.Scope.Budget.Limit);
        }

        [Fact]
        public void CreateUnpooled_ForComponentsBuiltWithoutAScope_IsReleasedAndNeverCountedAsALiveScopeOrABudget()
        {
            // Arrange: what a listener summing the meter sees (series 1.5.0 created and released a scope for this, which
            // read as a second live scope and a second budget beside the database's)
            List<(string Instrument, object? Scope)> published = new List<(string, object?)>();
            using MeterListener listener = new MeterListener();
            listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Name == DatabricksMemoryMetricNames.LiveScopes || instrument.Name == DatabricksMemoryMetricNames.BudgetLimit)
                {
                    l.EnableMeasurementEvents(instrument);
                }
            };
            listener.SetMeasurementEventCallback<long>((instrument, value, tags, state) =>
            {
                object? scope = null;
                foreach (KeyValuePair<string, object?> tag in tags)
                {
                    scope = tag.Key == DatabricksMemoryMetricNames.ScopeTag ? tag.Value : scope;
                }

                lock (published)
                {
                    published.Add((instrument.Name, scope));
                }
            });
            listener.Start();

            // Act
            DatabricksMemoryScope unpooled = DatabricksMemoryScope.CreateUnpooled();
            using DatabricksMemoryLease lease = unpooled.AcquireLease();
            using PooledArray array = unpooled.BufferPool.Rent(1 * MiB);

            // Assert
            listener.Dispose();
            Assert.DoesNotContain(published, measurement => Equals(measurement.Scope, unpooled.Id)); // other tests' scopes may show

            Assert.True(unpooled.IsReleased);
            Assert.True(lease.IsDetached);
            Assert.Equal(0, unpooled.BufferPool.InUseBytes); // an ordinary GC allocation, as in upstream's driver
        }
    }
}
