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
using System.IO;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// A batch trimmed to a link's row count (<see cref="RecordBatchTrimming.FirstRows"/>) stays readable for as long as
    /// the application keeps it, and gives its memory back when disposed. The readers used to return
    /// <c>batch.Slice(...)</c> and dispose the batch, leaving the slice on a freed body.
    /// </summary>
    public class RecordBatchTrimmingTest
    {
        private const int Rows = 20_000;

        private static readonly byte[] s_threeBatches = IpcStream(batches: 3, Rows);

        [Fact]
        public void FirstRows_ScopedAllocatorBatch_StaysReadableAfterTheOriginalsBodyIsReused()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);

            // Act
            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(first, 1234, owner.Scope.BatchAllocator);
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            Assert.Same(body, BodyArrayOf(second)); // the original's body went back to the pool and was reused
            AssertValues(trimmed, 0, 1234);
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public void SliceThenDispose_WhatTheReadersDidBefore_LeavesABatchThatCannotBeRead()
        {
            // The behaviour FirstRows replaces, kept as a test so that a change in Apache.Arrow (a slice that shares
            // ownership) shows here and the copy can be reconsidered.
            using DatabricksMemoryLease owner = CreateScope();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            RecordBatch slice = first.Slice(0, 1234);

            first.Dispose();

            Assert.Throws<ObjectDisposedException>(() => ((Int64Array)slice.Column(0)).GetValue(0));
        }

        [Fact]
        public void FirstRows_TrimmedBatchDisposed_GivesEveryByteBack()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            Lz4BufferPool pool = owner.Scope.ArrowBatchPool;
            using (ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator))
            {
                // Act
                RecordBatch trimmed = RecordBatchTrimming.FirstRows(reader.ReadNextRecordBatch(), 10, owner.Scope.BatchAllocator);
                Assert.True(pool.InUseBytes > 0, "the trimmed batch's own buffers come from the scope");
                trimmed.Dispose();
            }

            // Assert
            Assert.Equal(0, pool.InUseBytes);
        }

        [Fact]
        public void FirstRows_BatchWithNoMoreRowsThanAsked_IsReturnedAsItIs()
        {
            // Arrange
            using RecordBatch batch = Batch(0, 100);

            // Act and assert
            Assert.Same(batch, RecordBatchTrimming.FirstRows(batch, 100, MemoryAllocator.Default.Value));
            Assert.Same(batch, RecordBatchTrimming.FirstRows(batch, 1000, MemoryAllocator.Default.Value));
            AssertValues(batch, 0, 100);
        }

        [Fact]
        public void FirstRows_ApacheArrowsOwnAllocator_TrimmedBatchIsReadableAfterTheNextBatch()
        {
            // Arrange
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches));

            // Act
            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(reader.ReadNextRecordBatch(), 999, MemoryAllocator.Default.Value);
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            AssertValues(trimmed, 0, 999);
            AssertValues(second, 1, Rows);
        }
    }
}
