using System.Buffers;
using System.Linq;
using System.Runtime.CompilerServices;
using Apache.Arrow;
using static DriverOverlay.Tests.Memory.ArrowBatchData;
using static Apache.Arrow.Adbc.Drivers.Databricks.DatabricksMemoryMetricNames;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// Record batches read through the scope's Arrow allocator: managed pooled bodies that go back on dispose, and
    /// the safety rules of DESIGN 3.5 (outlive the database, never disposed, never another batch's bytes, dispose twice).
    /// </summary>
    public class ScopedArrowAllocatorTests
    {
        private const string ArrowBatches = DatabricksMemoryMetricNames.ArrowBatchesPool;
        private const string Pooled = "adbc.databricks.memory.arrow_batches_pooled";
        private const string BatchRetained = "adbc.databricks.memory.arrow_batch_pool_max_retained_mb";
        private const string Poison = "adbc.databricks.memory.poison_returned_arrays";
        private const int Rows = 20_000;

        private static readonly byte[] s_twoBatches = ArrowBatchData.Stream(batches: 2, Rows);

        [Fact]
        public void BatchBodiesAreManagedArraysRentedFromTheBatchPoolAndReturnedOnDispose()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            Assert.IsType<ScopedArrowAllocator>(scope.BatchAllocator);

            using var reader = new ArrowStreamReader(new MemoryStream(s_twoBatches), scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);
            AssertValues(first, 0, Rows);
            Assert.Equal(body.Length, scope.ArrowBatchPool.InUseBytes);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, InUse, ArrowBatches));
            Assert.Equal(0, metrics.Sum(scope.Id, InUse, Lz4BuffersPool));

            first.Dispose();
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, Returned, ArrowBatches));
            Assert.Equal(body.Length, scope.ArrowBatchPool.RetainedBytes);

            // The next batch reuses the returned array, and reads its own values, not the first batch's.
            using RecordBatch second = reader.ReadNextRecordBatch();
            Assert.Same(body, BodyArrayOf(second));
            AssertValues(second, 1, Rows);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, Allocated, ArrowBatches));
        }

        [Fact]
        public void ABatchThatOutlivesItsDatabaseStaysValidAndItsArrayIsNotReused()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            RecordBatch batch = ReadOne(s_twoBatches, scope.BatchAllocator);
            byte[] body = BodyArrayOf(batch);

            owner.Dispose();
            Assert.True(scope.IsReleased);
            AssertValues(batch, 0, Rows);

            // Returned after release: dropped, not kept; a later batch gets another array and cannot disturb this one.
            batch.Dispose();
            Assert.Equal(0, scope.ArrowBatchPool.RetainedBytes);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, Dropped, ArrowBatches));
            using RecordBatch later = ReadOne(s_twoBatches, scope.BatchAllocator);
            Assert.NotSame(body, BodyArrayOf(later));
            AssertValues(later, 0, Rows);
        }

        [Fact]
        public void DisposingABatchTwiceReturnsItsArrayOnce()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            RecordBatch batch = ReadOne(s_twoBatches, scope.BatchAllocator);
            byte[] body = BodyArrayOf(batch);

            batch.Dispose();
            batch.Dispose();
            Assert.Equal(body.Length, metrics.Sum(scope.Id, Returned, ArrowBatches));
            Assert.Equal(body.Length, scope.ArrowBatchPool.RetainedBytes);

            // Kept once, so two batches alive together get two different arrays.
            using RecordBatch a = ReadOne(s_twoBatches, scope.BatchAllocator);
            using RecordBatch b = ReadOne(s_twoBatches, scope.BatchAllocator);
            Assert.NotSame(BodyArrayOf(a), BodyArrayOf(b));
            AssertValues(a, 0, Rows);
            AssertValues(b, 0, Rows);
        }

        [Fact]
        public void BatchesAliveTogetherNeverShareAnArrayAndPoisonShowsOnlyInReturnedArrays()
        {
            using DatabricksMemoryLease owner = CreateScope((Poison, "true"));
            DatabricksMemoryScope scope = owner.Scope;
            byte[] stream = ArrowBatchData.Stream(batches: 6, Rows);
            using var reader = new ArrowStreamReader(new MemoryStream(stream), scope.BatchAllocator);

            // Read six batches, disposing every other one as the next arrives, so returned (poisoned) arrays are
            // reused while earlier batches are still alive; every live batch must still show only its own values.
            var alive = new List<(int Number, RecordBatch Batch)>();
            for (int number = 0; number < 6; number++)
            {
                RecordBatch batch = reader.ReadNextRecordBatch();
                alive.Add((number, batch));
                if (number % 2 == 1)
                {
                    (int _, RecordBatch previous) = alive[alive.Count - 2];
                    byte[] returned = BodyArrayOf(previous);
                    previous.Dispose();
                    alive.RemoveAt(alive.Count - 2);
                    Assert.All(returned, value => Assert.Equal(ScopedArrowAllocator.PoisonByte, value));
                }

                foreach ((int liveNumber, RecordBatch live) in alive)
                {
                    AssertValues(live, liveNumber, Rows);
                }
            }

            Assert.Equal(alive.Count, alive.Select(entry => BodyArrayOf(entry.Batch)).Distinct().Count());
            alive.ForEach(entry => entry.Batch.Dispose());
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
        }

        [Fact]
        public void EveryAllocationIsZeroedLikeArrowsOwnAllocator()
        {
            using DatabricksMemoryLease owner = CreateScope();
            MemoryAllocator allocator = owner.Scope.BatchAllocator;
            IMemoryOwner<byte> dirty = allocator.Allocate(100_000);
            dirty.Memory.Span.Fill(0x5A);
            dirty.Dispose();

            using IMemoryOwner<byte> reused = allocator.Allocate(100_000);
            Assert.Equal(100_000, reused.Memory.Length);
            Assert.All(reused.Memory.ToArray(), value => Assert.Equal(0, value));
        }

        [Fact]
        public void MemoryOfADisposedBatchBodyThrowsObjectDisposed()
        {
            using DatabricksMemoryLease owner = CreateScope();
            IMemoryOwner<byte> memory = owner.Scope.BatchAllocator.Allocate(10);
            memory.Dispose();
            ObjectDisposedException error = Assert.Throws<ObjectDisposedException>(() => memory.Memory);
            Assert.Contains("batch memory", error.Message);
        }

        [Fact]
        public void TurnedOffTheBatchesGetApacheArrowsDefaultAllocator()
        {
            using DatabricksMemoryLease owner = CreateScope((Pooled, "false"));
            Assert.Same(MemoryAllocator.Default.Value, owner.Scope.BatchAllocator);
        }

        [Fact]
        public void ArrowBatchPoolKeepsWhatItsOwnCapAllows()
        {
            using DatabricksMemoryLease owner = CreateScope((BatchRetained, "0"));
            DatabricksMemoryScope scope = owner.Scope;
            ReadOne(s_twoBatches, scope.BatchAllocator).Dispose();
            Assert.Equal(0, scope.ArrowBatchPool.RetainedBytes);
            Assert.Equal(scope.Options.BudgetBytes, scope.BufferPool.MaxRetainedBytes);
        }
    }
}
