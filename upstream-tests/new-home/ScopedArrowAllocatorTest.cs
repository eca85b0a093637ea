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
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// Record batches read through the scope's Arrow allocator (<see cref="ScopedArrowAllocator"/>) with Apache.Arrow's own
    /// reader: bodies are pooled managed arrays that go back when the batch is disposed, published on the scope's meter; a
    /// disposed batch's memory (its columns, slices and pins) is refused rather than shown, since its array may belong to
    /// the next batch; a pinned body is not reused while pinned; a batch may outlive its database.
    /// </summary>
    public class ScopedArrowAllocatorTest
    {
        private const int Rows = 20_000;
        private const string ArrowBatches = DatabricksMemoryMetricNames.ArrowBatchesPool;

        private static readonly byte[] s_threeBatches = IpcStream(batches: 3, Rows);

        [Fact]
        public void ReadNextRecordBatch_BatchDisposed_ItsPooledArrayIsReusedByTheNextBatch()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            Assert.IsType<ScopedArrowAllocator>(scope.BatchAllocator);
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);
            AssertValues(first, 0, Rows);
            Assert.Equal(body.Length, scope.ArrowBatchPool.InUseBytes);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse, ArrowBatches));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse, DatabricksMemoryMetricNames.Lz4BuffersPool));

            // Act
            first.Dispose();
            long retainedAfterDispose = scope.ArrowBatchPool.RetainedBytes;
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            Assert.Equal(body.Length, retainedAfterDispose);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned, ArrowBatches));
            Assert.Same(body, BodyArrayOf(second));
            AssertValues(second, 1, Rows); // its own values, not the first batch's
            Assert.Equal(body.Length, scope.ArrowBatchPool.InUseBytes);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated, ArrowBatches)); // one array, ever
        }

        [Fact]
        public void Column_OfADisposedBatch_ThrowsInsteadOfShowingTheBatchThatReusedItsArray()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);
            Int64Array ids = (Int64Array)first.Column(0);
            StringArray labels = (StringArray)first.Column(1);
            Int64Array idSlice = (Int64Array)ArrowArrayFactory.Slice(ids, 5, 10);
            RecordBatch batchSlice = first.Slice(2, 100);
            Assert.Equal(IdOf(0, 7), idSlice.GetValue(2));

            // Act
            first.Dispose();
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert: the array was reused, so what the kept views pointed at is the second batch now
            Assert.Same(body, BodyArrayOf(second));
            Assert.Throws<ObjectDisposedException>(() => ids.GetValue(8));
            Assert.Throws<ObjectDisposedException>(() => labels.GetString(8));
            Assert.Throws<ObjectDisposedException>(() => idSlice.GetValue(2));
            Assert.Throws<ObjectDisposedException>(() => ((Int64Array)batchSlice.Column(0)).GetValue(0));
            Assert.Throws<ObjectDisposedException>(() => ((StringArray)batchSlice.Column(1)).GetString(0));
            batchSlice.Dispose(); // a slice owns nothing: disposing it gives nothing back a second time
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
            pinned.Dispose();
            using (IMemoryOwner<byte> meanwhile = allocator.Allocate(100_000))
            {
                meanwhile.Memory.Span.Fill(0x22);

                // Assert
                Assert.True(ScopedArrowAllocator.TryGetBodyArray(meanwhile.Memory, out byte[]? other));
                Assert.NotSame(body, other);
            }

            ObjectDisposedException disposed = Assert.Throws<ObjectDisposedException>(() => pinned.Memory);
            Assert.Contains("batch memory", disposed.Message);
            Assert.True(body!.Take(100_000).All(value => value == 0x11), "the pinned body was overwritten while pinned");
            long retained = pool.RetainedBytes;
            firstPin.Dispose();
            Assert.Equal(retained, pool.RetainedBytes); // one pin left: still out of the pool
            secondPin.Dispose();
            secondPin.Dispose(); // a MemoryHandle unpins once
            Assert.Equal(retained + body!.Length, pool.RetainedBytes);
            Assert.Equal(pool.ArrayLengthFor(100_000), body.Length);
            Assert.Equal(0, pool.InUseBytes);
        }

        [Fact]
        public void Pin_MemoryOfADisposedBody_Throws()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            IMemoryOwner<byte> memory = owner.Scope.BatchAllocator.Allocate(100_000);
            Memory<byte> kept = memory.Memory;

            // Act
            memory.Dispose();

            // Assert: the body's Memory, a pin of what was taken before and its span all refuse
            ObjectDisposedException error = Assert.Throws<ObjectDisposedException>(() => memory.Memory);
            Assert.Contains("batch memory", error.Message);
            Assert.Throws<ObjectDisposedException>(() => kept.Pin());
            Assert.Throws<ObjectDisposedException>(() => kept.Span.Length);
        }

        [Fact]
        public void Clone_OriginalDisposedAndItsArrayReused_TheCloneKeepsItsValues()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);

            // Act
            using RecordBatch clone = first.Clone(owner.Scope.BatchAllocator);
            first.Dispose();
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            Assert.NotSame(body, BodyArrayOf(clone));
            Assert.Same(body, BodyArrayOf(second));
            AssertValues(clone, 0, Rows);
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public void Dispose_Twice_GivesTheArrayBackOnce()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            RecordBatch batch = ReadOne(s_threeBatches, scope.BatchAllocator);
            byte[] body = BodyArrayOf(batch);

            // Act
            batch.Dispose();
            batch.Dispose();

            // Assert: kept once, so two batches alive together get two different arrays
            Assert.Equal(body.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned, ArrowBatches));
            Assert.Equal(body.Length, scope.ArrowBatchPool.RetainedBytes);
            using RecordBatch a = ReadOne(s_threeBatches, scope.BatchAllocator);
            using RecordBatch b = ReadOne(s_threeBatches, scope.BatchAllocator);
            Assert.NotSame(BodyArrayOf(a), BodyArrayOf(b));
            AssertValues(a, 0, Rows);
            AssertValues(b, 0, Rows);
        }

        [Fact]
        public void Dispose_FromFourThreadsAtOnce_GivesTheArrayBackOnce()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            int arrayLength = 0;

            for (int round = 0; round < 50; round++)
            {
                RecordBatch batch = ReadOne(s_threeBatches, scope.BatchAllocator);
                arrayLength = BodyArrayOf(batch).Length;

                // Act
                Parallel.For(0, 4, _ => batch.Dispose());

                // Assert
                Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            }

            Assert.Equal(50L * arrayLength, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned, ArrowBatches));
            Assert.Equal(arrayLength, scope.ArrowBatchPool.RetainedBytes); // one array, kept once, reused by every round
        }

        [Fact]
        public void ReadNextRecordBatch_BatchOutlivesItsDatabase_StaysValidAndItsArrayIsNotReused()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
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
            Assert.Equal(body.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Dropped, ArrowBatches));
            using RecordBatch later = ReadOne(s_threeBatches, scope.BatchAllocator);
            Assert.NotSame(body, BodyArrayOf(later));
            AssertValues(later, 0, Rows);
        }

        [Fact]
        public void ReadNextRecordBatch_PoisonOnAndBatchesAliveTogether_NeverShareAnArrayAndPoisonShowsOnlyInReturnedArrays()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope((DatabricksMemoryOptions.PoisonReturnedArraysKey, "true"));
            DatabricksMemoryScope scope = owner.Scope;
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(IpcStream(batches: 6, Rows)), scope.BatchAllocator);
            List<(int Number, RecordBatch Batch)> alive = new List<(int, RecordBatch)>();

            // Act: six batches, every other one disposed as the next arrives, so returned (poisoned) arrays are reused
            // while earlier batches are still alive
            for (int number = 0; number < 6; number++)
            {
                alive.Add((number, reader.ReadNextRecordBatch()));
                if (number % 2 == 1)
                {
                    RecordBatch previous = alive[alive.Count - 2].Batch;
                    byte[] returned = BodyArrayOf(previous);
                    previous.Dispose();
                    alive.RemoveAt(alive.Count - 2);

                    // Assert
                    Assert.All(returned, value => Assert.Equal(ScopedArrowAllocator.PoisonByte, value));
                }

                foreach ((int liveNumber, RecordBatch live) in alive)
                {
                    AssertValues(live, liveNumber, Rows); // every live batch shows only its own values
                }
            }

            Assert.Equal(alive.Count, alive.Select(entry => BodyArrayOf(entry.Batch)).Distinct().Count());
            alive.ForEach(entry => entry.Batch.Dispose());
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
        }

        [Fact]
        public void Allocate_ReusedArray_IsZeroedLikeApacheArrowsOwnAllocator()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            MemoryAllocator allocator = owner.Scope.BatchAllocator;
            IMemoryOwner<byte> dirty = allocator.Allocate(100_000);
            Assert.True(ScopedArrowAllocator.TryGetBodyArray(dirty.Memory, out byte[]? dirtyArray));
            dirty.Memory.Span.Fill(0x5A);
            dirty.Dispose();

            // Act
            using IMemoryOwner<byte> reused = allocator.Allocate(100_000);

            // Assert
            Assert.True(ScopedArrowAllocator.TryGetBodyArray(reused.Memory, out byte[]? reusedArray));
            Assert.Same(dirtyArray, reusedArray); // the case under test: the dirty array came back
            Assert.Equal(100_000, reused.Memory.Length);
            Assert.All(reused.Memory.ToArray(), value => Assert.Equal(0, value));
        }

        [Fact]
        public void BatchAllocator_PoolingOff_BatchesStayManagedUnlessTheirOwnKeyTurnsThemOff()
        {
            // Act: pooling_enabled=false turns every pool off; batches still avoid native memory unless arrow_batches_pooled=false
            using DatabricksMemoryLease poolingOff = CreateScope((DatabricksMemoryOptions.PoolingEnabledKey, "false"));
            using DatabricksMemoryLease batchesOff = CreateScope((DatabricksMemoryOptions.ArrowBatchesPooledKey, "false"));

            // Assert
            Assert.IsType<ScopedArrowAllocator>(poolingOff.Scope.BatchAllocator);
            Assert.Equal(0, poolingOff.Scope.ArrowBatchPool.MaxRetainedBytes);
            Assert.Same(MemoryAllocator.Default.Value, batchesOff.Scope.BatchAllocator);
            Assert.Equal(0, batchesOff.Scope.ArrowBatchPool.MaxRetainedBytes);
        }

        [Fact]
        public void Dispose_BatchPoolCapZero_KeepsNothingAndTheLz4PoolKeepsItsOwnCap()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope((DatabricksMemoryOptions.ArrowBatchPoolMaxRetainedMbKey, "0"));
            DatabricksMemoryScope scope = owner.Scope;

            // Act
            ReadOne(s_threeBatches, scope.BatchAllocator).Dispose();

            // Assert
            Assert.Equal(0, scope.ArrowBatchPool.RetainedBytes);
            Assert.Equal(96L * DatabricksMemoryOptions.MiB, scope.BufferPool.MaxRetainedBytes); // twice the default budget
        }
    }
}
