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
using System.Linq;
using System.Net.Http;
using System.Reflection;
using AdbcDrivers.Databricks.StatementExecution;
using AdbcDrivers.HiveServer2.Spark;
using Xunit;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// <see cref="DatabricksDatabase"/> owns its memory scope: it holds the first lease, each connection it opens holds
    /// one more, and the scope (every pooled array) is released when the database and the last of its connections are
    /// disposed, in either order, even while the application still holds the disposed database object.
    /// </summary>
    /// <remarks>
    /// Opening a connection needs a server, so the tests build the connection as <c>Connect</c> does once the session is
    /// open (with a lease on the database's scope) and test <c>Connect</c>'s own lease handling on the paths that fail
    /// before any network call.
    /// </remarks>
    public class DatabricksDatabaseMemoryScopeTest
    {
        [Fact]
        public void Dispose_DatabaseWithNoConnection_ReleasesItsScope()
        {
            // Arrange
            DatabricksDatabase database = new DatabricksDatabase(Properties());
            DatabricksMemoryScope scope = LeaseOf(database).Scope;
            scope.BufferPool.Rent(100_000).Dispose();
            Assert.False(scope.IsReleased);
            Assert.True(scope.BufferPool.RetainedBytes > 0);

            // Act
            database.Dispose();

            // Assert
            Assert.True(scope.IsReleased);
            Assert.Equal(0, scope.BufferPool.RetainedBytes); // the pool dropped its arrays though the test still holds the database
        }

        [Fact]
        public void Dispose_DatabaseBeforeItsThriftConnection_ScopeLivesUntilTheConnectionIsDisposed()
        {
            // Arrange
            DatabricksDatabase database = new DatabricksDatabase(Properties());
            DatabricksMemoryScope scope = LeaseOf(database).Scope;
            DatabricksConnection connection = new DatabricksConnection(ThriftProperties(), scope.AcquireLease(ThriftProperties()));

            // Act
            database.Dispose();

            // Assert
            Assert.Same(scope, connection.MemoryScope);
            Assert.False(scope.IsReleased, "the scope was released under an open connection");
            Assert.Equal(1, scope.LeaseCount);
            connection.Dispose();
            Assert.True(scope.IsReleased);
        }

        [Fact]
        public void Dispose_RestConnectionBeforeItsDatabase_ScopeIsReleasedWithTheDatabase()
        {
            // Arrange
            DatabricksDatabase database = new DatabricksDatabase(Properties());
            DatabricksMemoryScope scope = LeaseOf(database).Scope;
            using HttpClient http = new HttpClient();
            StatementExecutionConnection connection = new StatementExecutionConnection(RestProperties(), http, scope.AcquireLease(RestProperties()));

            // Act
            connection.Dispose();

            // Assert
            Assert.Same(scope, connection.MemoryScope);
            Assert.False(scope.IsReleased, "the connection released its database's scope");
            Assert.Equal(1, scope.LeaseCount);
            database.Dispose();
            database.Dispose();
            Assert.True(scope.IsReleased);
            Assert.Equal(0, scope.LeaseCount);
        }

        [Fact]
        public void Connect_UnsupportedProtocol_FailsAndReleasesTheLeaseItTook()
        {
            // Arrange
            using DatabricksDatabase database = new DatabricksDatabase(Properties());
            DatabricksMemoryScope scope = LeaseOf(database).Scope;
            Dictionary<string, string> options = new Dictionary<string, string> { [DatabricksParameters.Protocol] = "carrier-pigeon" };

            // Act
            Assert.Throws<ArgumentException>(() => database.Connect(options));

            // Assert
            Assert.Equal(1, scope.LeaseCount);
        }

        [Fact]
        public void Connect_MemoryOptionThatDiffersFromTheDatabases_IsRefusedAndTakesNoLease()
        {
            // Arrange
            Dictionary<string, string> properties = Properties();
            properties[DatabricksMemoryOptions.BudgetMbKey] = "64";
            using DatabricksDatabase database = new DatabricksDatabase(properties);
            DatabricksMemoryScope scope = LeaseOf(database).Scope;
            Dictionary<string, string> options = new Dictionary<string, string> { [DatabricksMemoryOptions.BudgetMbKey] = "512" };

            // Act
            ArgumentException error = Assert.Throws<ArgumentException>(() => database.Connect(options));

            // Assert
            Assert.Contains(DatabricksMemoryOptions.BudgetMbKey, error.Message);
            Assert.Equal(1, scope.LeaseCount);
            Assert.Equal(64L * DbxmemTestData.MiB, scope.Budget.Limit);
        }

        /// <summary>
        /// Properties that need no server and start no background call: no host name (so the feature-flag cache has
        /// nothing to warm), and the cache turned off in case an environment configuration file supplies one.
        /// </summary>
        private static Dictionary<string, string> Properties() => new Dictionary<string, string>
        {
            [DatabricksParameters.FeatureFlagCacheEnabled] = "false",
        };

        private static Dictionary<string, string> ThriftProperties() => new Dictionary<string, string>
        {
            [SparkParameters.HostName] = "test.databricks.invalid",
            [SparkParameters.Token] = "token",
        };

        private static Dictionary<string, string> RestProperties() => new Dictionary<string, string>
        {
            [SparkParameters.HostName] = "test.databricks.invalid",
            [DatabricksParameters.WarehouseId] = "wh-1",
            [SparkParameters.AccessToken] = "token",
        };

        /// <summary>
        /// The database's own lease. <see cref="DatabricksDatabase"/> exposes no accessor (the series adds no API for
        /// tests), so the test reads the one field of that type.
        /// </summary>
        private static DatabricksMemoryLease LeaseOf(DatabricksDatabase database)
        {
            FieldInfo field = typeof(DatabricksDatabase)
                .GetFields(BindingFlags.Instance | BindingFlags.NonPublic)
                .Single(f => f.FieldType == typeof(DatabricksMemoryLease));
            return (DatabricksMemoryLease)field.GetValue(database)!;
        }
    }
}
