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

using System.Collections.Generic;
using AdbcDrivers.HiveServer2.Spark;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The Thrift <see cref="DatabricksConnection"/> holds a lease on its database's memory scope and releases it on
    /// Dispose; one built with the public constructor owns a private scope, configured from its own properties.
    /// </summary>
    public class DatabricksConnectionMemoryLeaseTest
    {
        [Fact]
        public void Dispose_ConnectionWithADatabaseLease_ReleasesThatLeaseOnce()
        {
            // Arrange
            using DatabricksMemoryLease database = CreateScope();
            DatabricksMemoryScope scope = database.Scope;
            DatabricksConnection connection = new DatabricksConnection(Properties(), scope.AcquireLease());
            Assert.Same(scope, connection.MemoryScope);
            Assert.Equal(2, scope.LeaseCount);

            // Act
            connection.Dispose();
            connection.Dispose();

            // Assert
            Assert.Equal(1, scope.LeaseCount);
            Assert.False(scope.IsReleased, "a connection must not release its database's lease");
        }

        [Fact]
        public void Dispose_ConnectionBuiltWithoutADatabase_ReleasesItsPrivateScope()
        {
            // Arrange
            Dictionary<string, string> properties = Properties();
            properties[DatabricksMemoryOptions.BudgetMbKey] = "48";
            DatabricksConnection connection = new DatabricksConnection(properties);
            DatabricksMemoryScope scope = connection.MemoryScope;
            scope.BufferPool.Rent(100_000).Dispose();

            // Act
            connection.Dispose();

            // Assert
            Assert.Equal(48L * MiB, scope.Budget.Limit); // the private scope follows the connection's properties
            Assert.True(scope.IsReleased);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
        }

        [Fact]
        public void Constructor_TwoConnectionsBuiltDirectly_GetTwoScopes()
        {
            // Act
            using DatabricksConnection first = new DatabricksConnection(Properties());
            using DatabricksConnection second = new DatabricksConnection(Properties());

            // Assert: pooled arrays are not cleared, so connections that share no database share no pool
            Assert.NotSame(first.MemoryScope, second.MemoryScope);
            Assert.NotSame(first.MemoryScope.BufferPool, second.MemoryScope.BufferPool);
        }

        private static Dictionary<string, string> Properties() => new Dictionary<string, string>
        {
            [SparkParameters.HostName] = "test.databricks.invalid",
            [SparkParameters.Token] = "token",
        };
    }
}
