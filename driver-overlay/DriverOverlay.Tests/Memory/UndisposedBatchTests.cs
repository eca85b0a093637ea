using System.Runtime.CompilerServices;
using Apache.Arrow;
using static DriverOverlay.Tests.Memory.ArrowBatchData;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// A batch the application never disposes is collected with its body: the scope, its pool and its allocator hold
    /// no strong reference to what they lent out (DESIGN 3.1 and 3.5).
    /// </summary>
    public class UndisposedBatchTests
    {
        [Fact]
        public void ABatchNeverDisposedIsCollectedWithItsArrayWhileTheScopeLives()
        {
            using DatabricksMemoryLease owner = CreateScope();
            (WeakReference batch, WeakReference body) = ReadAndForget(owner.Scope);

            for (int i = 0; i < 3 && (batch.IsAlive || body.IsAlive); i++)
            {
                GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true);
                GC.WaitForPendingFinalizers();
            }

            Assert.False(batch.IsAlive, "the undisposed batch is still reachable");
            Assert.False(body.IsAlive, "the undisposed batch's pooled array is still reachable");
            // The scope lives on (the owner lease is open) and never got the array back.
            Assert.False(owner.Scope.IsReleased);
            Assert.Equal(0, owner.Scope.ArrowBatchPool.RetainedBytes);
        }

        /// <summary>In its own frame, so no local of the test method keeps the batch alive.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static (WeakReference Batch, WeakReference Body) ReadAndForget(DatabricksMemoryScope scope)
        {
            RecordBatch batch = ReadOne(ArrowBatchData.Stream(batches: 1, rows: 10_000), scope.BatchAllocator);
            AssertValues(batch, 0, 10_000);
            return (new WeakReference(batch), new WeakReference(BodyArrayOf(batch)));
        }
    }
}
