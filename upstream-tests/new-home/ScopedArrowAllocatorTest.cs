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
using System.Buffers;
using System.IO;
using System.Linq;
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
    /// Record batches read through the scope's Arrow allocator (<see cref="ScopedArrowAllocator"/>): bodies are pooled
    /// managed arrays that go back when the batch is disposed, a disposed batch's memory is refused rather than shown
    /// (its array may belong to the next batch), and a pinned body is not reused while pinned.
    /// </summary>
    public class ScopedArrowAllocatorTest
    {
        private const int Rows = 20_000;

        private static readonly byte[] s_threeBatches = IpcStream(batches: 3, Rows);

        [Fact]
        public void ReadNextRecordBatch_BatchDisposed_ItsPooledArrayIsReusedByTheNextBatch()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);
            AssertValues(first, 0, Rows);
            Assert.Equal(body.Length, scope.ArrowBatchPool.InUseBytes);

            // Act
            first.Dispose();
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            Assert.Same(body, BodyArrayOf(second));
            AssertValues(second, 1, Rows); // its own values, not the first batch's
            Assert.Equal(body.Length, scope.ArrowBatchPool.InUseBytes);
        }

        [Fact]
        public void Column_OfADisposedBatch_ThrowsInsteadOfShowingTheBatchThatReusedItsArray()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            Int64Array ids = (Int64Array)first.Column(0);
            StringArray labels = (StringArray)first.Column(1);
            RecordBatch slice = first.Slice(2, 100);

            // Act
            first.Dispose();
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            Assert.Throws<ObjectDisposedException>(() => ids.GetValue(8));
            Assert.Throws<ObjectDisposedException>(() => labels.GetString(8));
            Assert.Throws<ObjectDisposedException>(() => ((Int64Array)slice.Column(0)).GetValue(0));
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public void Dispose_PinnedBody_IsNotReusedUntilItsLastPinIsReleased()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            MemoryAllocator allocator = owner.Scope.BatchAllocator;
            Lz4BufferPool pool = owner.Scope.ArrowBatchPool;
            IMemoryOwner<byte> pinned = allocator.Allocate(100_000);
            pinned.Memory.Span.Fill(0x11);
            Assert.True(ScopedArrowAllocator.TryGetBodyArray(pinned.Memory, out byte[]? body));
            MemoryHandle firstPin = pinned.Memory.Slice(10).Pin(); // what the C Data Interface exporter takes
            MemoryHandle secondPin = pinned.Memory.Pin();

            // Act
            pinned.Dispose();
            using (IMemoryOwner<byte> meanwhile = allocator.Allocate(100_000))
            {
                meanwhile.Memory.Span.Fill(0x22);

                // Assert
                Assert.True(ScopedArrowAllocator.TryGetBodyArray(meanwhile.Memory, out byte[]? other));
                Assert.NotSame(body, other);
            }

            Assert.Throws<ObjectDisposedException>(() => pinned.Memory);
            Assert.True(body!.Take(100_000).All(value => value == 0x11), "the pinned body was overwritten while pinned");
            long retained = pool.RetainedBytes;
            firstPin.Dispose();
            Assert.Equal(retained, pool.RetainedBytes); // one pin left: still out of the pool
            secondPin.Dispose();
            Assert.Equal(retained + body!.Length, pool.RetainedBytes);
            Assert.Equal(0, pool.InUseBytes);
        }

        [Fact]
        public void Dispose_Twice_GivesTheArrayBackOnce()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            RecordBatch batch = ReadOne(s_threeBatches, scope.BatchAllocator);
            byte[] body = BodyArrayOf(batch);

            // Act
            batch.Dispose();
            batch.Dispose();

            // Assert: kept once, so two batches alive together get two different arrays
            Assert.Equal(body.Length, scope.ArrowBatchPool.RetainedBytes);
            using RecordBatch a = ReadOne(s_threeBatches, scope.BatchAllocator);
            using RecordBatch b = ReadOne(s_threeBatches, scope.BatchAllocator);
            Assert.NotSame(BodyArrayOf(a), BodyArrayOf(b));
            AssertValues(a, 0, Rows);
            AssertValues(b, 0, Rows);
        }

        [Fact]
        public void ReadNextRecordBatch_BatchOutlivesItsDatabase_StaysValidAndItsArrayIsNotReused()
        {
            // Arrange
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            RecordBatch batch = ReadOne(s_threeBatches, scope.BatchAllocator);
            byte[] body = BodyArrayOf(batch);

            // Act
            owner.Dispose();

            // Assert
            Assert.True(scope.IsReleased);
            AssertValues(batch, 0, Rows);
            batch.Dispose();
            Assert.Equal(0, scope.ArrowBatchPool.RetainedBytes); // returned after release: dropped, not kept
            using RecordBatch later = ReadOne(s_threeBatches, scope.BatchAllocator);
            Assert.NotSame(body, BodyArrayOf(later));
        }
    }
}
