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
using System.Net.Http;
using AdbcDrivers.Databricks.StatementExecution;
using AdbcDrivers.HiveServer2.Spark;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The REST <see cref="StatementExecutionConnection"/> holds a lease on its database's memory scope and releases it
    /// on Dispose; one built without a lease owns a private scope.
    /// </summary>
    public class StatementExecutionConnectionMemoryLeaseTest
    {
        [Fact]
        public void Dispose_ConnectionWithADatabaseLease_ReleasesThatLeaseOnly()
        {
            // Arrange
            using DatabricksMemoryLease database = CreateScope();
            DatabricksMemoryScope scope = database.Scope;
            using HttpClient http = new HttpClient();
            StatementExecutionConnection connection = new StatementExecutionConnection(Properties(), http, scope.AcquireLease());
            Assert.Same(scope, connection.MemoryScope);

            // Act
            connection.Dispose();

            // Assert
            Assert.Equal(1, scope.LeaseCount);
            Assert.False(scope.IsReleased, "a connection must not release its database's lease");
        }

        [Fact]
        public void Dispose_ConnectionBuiltWithoutALease_ReleasesItsPrivateScope()
        {
            // Arrange
            using HttpClient http = new HttpClient();
            StatementExecutionConnection connection = new StatementExecutionConnection(Properties(), http);
            DatabricksMemoryScope scope = connection.MemoryScope;
            Assert.Equal(1, scope.LeaseCount);

            // Act
            connection.Dispose();

            // Assert
            Assert.True(scope.IsReleased);
        }

        private static Dictionary<string, string> Properties() => new Dictionary<string, string>
        {
            [SparkParameters.HostName] = "test.databricks.invalid",
            [DatabricksParameters.WarehouseId] = "wh-1",
            [SparkParameters.AccessToken] = "token",
        };
    }
}
