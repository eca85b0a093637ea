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

using System.Threading;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The readers of one database share its budget: each reader's <see cref="CloudFetchMemoryBufferManager"/> (what the
    /// reader factory builds on the connection's <c>scope.Budget</c>) keeps upstream's per-reader limit and also waits
    /// for the database's, a reader holding nothing is never starved by another, and disposing a manager (its reader's
    /// pipeline shut down) gives back what it held.
    /// </summary>
    public class CloudFetchMemoryBufferManagerBudgetTest
    {
        private const int ReaderLimitMb = 200; // upstream's default memory_buffer_size_mb

        [Fact]
        public async Task AcquireMemoryAsync_TwoReadersOfOneDatabase_SecondGetsItsFirstFileThenWaitsForARelease()
        {
            // Arrange: a 4 MiB database budget, which the first reader fills
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "4"));
            MemoryBudget budget = lease.Scope.Budget;
            using CloudFetchMemoryBufferManager first = new CloudFetchMemoryBufferManager(ReaderLimitMb, budget);
            using CloudFetchMemoryBufferManager second = new CloudFetchMemoryBufferManager(ReaderLimitMb, budget);
            await first.AcquireMemoryAsync(4 * MiB, CancellationToken.None);

            // Act
            Task secondsFirstFile = second.AcquireMemoryAsync(MiB, CancellationToken.None);
            Task secondsNextFile = second.AcquireMemoryAsync(MiB, CancellationToken.None);
            bool secondsNextWaited = !secondsNextFile.IsCompleted;
            bool tryWhileFull = second.TryAcquireMemory(1);
            first.ReleaseMemory(2 * MiB);

            // Assert
            await WithinAsync(secondsFirstFile, Liveness, "the second reader's first file");
            Assert.True(secondsNextWaited, "the second reader's next file did not wait for the database's budget");
            Assert.False(tryWhileFull);
            await WithinAsync(secondsNextFile, Liveness, "the second reader's next file, after the release");
            Assert.Equal(2 * MiB, first.UsedMemory);
            Assert.Equal(2 * MiB, second.UsedMemory);
            Assert.Equal(4 * MiB, budget.InUse);
        }

        [Fact]
        public async Task Dispose_ReaderHoldingFiles_GivesItsBytesBackToTheDatabaseAndWakesAWaiter()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "4"));
            MemoryBudget budget = lease.Scope.Budget;
            CloudFetchMemoryBufferManager abandoned = new CloudFetchMemoryBufferManager(ReaderLimitMb, budget);
            using CloudFetchMemoryBufferManager other = new CloudFetchMemoryBufferManager(ReaderLimitMb, budget);
            await abandoned.AcquireMemoryAsync(3 * MiB, CancellationToken.None);
            await other.AcquireMemoryAsync(MiB, CancellationToken.None);
            Task othersNext = other.AcquireMemoryAsync(2 * MiB, CancellationToken.None);
            Assert.False(othersNext.IsCompleted);

            // Act: a reader disposed mid-result; its cancelled downloads never release what they took
            abandoned.Dispose();

            // Assert
            await WithinAsync(othersNext, Liveness, "the waiting reader's file");
            Assert.Equal(3 * MiB, budget.InUse);
        }

        [Fact]
        public async Task AcquireMemoryAsync_ReaderAtItsOwnLimit_WaitsEvenThoughTheDatabaseHasRoom()
        {
            // Arrange: upstream's per-reader limit keeps its meaning under the database's budget
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BudgetMbKey, "64"));
            using CloudFetchMemoryBufferManager reader = new CloudFetchMemoryBufferManager(maxMemoryMB: 2, lease.Scope.Budget);
            await reader.AcquireMemoryAsync(2 * MiB, CancellationToken.None);

            // Act
            Task next = reader.AcquireMemoryAsync(MiB, CancellationToken.None);
            bool waited = !next.IsCompleted;
            reader.ReleaseMemory(MiB);

            // Assert
            Assert.True(waited, "the reader went over its own memory_buffer_size_mb");
            await WithinAsync(next, Liveness, "the next file after the release");
            Assert.Equal(2 * MiB, reader.UsedMemory);
        }
    }
}
