using System.Runtime;
using System.Runtime.CompilerServices;

namespace Harness.Tests
{
    /// <summary>
    /// The memory proof of the patched driver (DESIGN.md section 3), asserted on exact facts the driver publishes
    /// (its meter, filtered to one database's scope) and on reachability (WeakReference + a blocking GC), never on
    /// heap sizes: heap deltas are the probe's report, not a CI assertion (upstream's flakes, anchors 1.2).
    /// Skipped against a stock driver, which has neither a scope nor a meter.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class MemoryProofTests(HarnessFixture fixture, ITestOutputHelper output)
    {
        // CloudFetch with LZ4, six files: enough for the LZ4 buffer pool and the stream pool to keep free memory.
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 30_000, Seed = 51, RowsPerFile = 5_000, RowsPerBatch = 2_500 };
        private const string CloudFetch = "mode=cloudfetch";

        [SkippableFact]
        public void DisposedDatabaseReleasesItsScopeAndItsPooledArraysAreCollectable()
        {
            Skip.IfNot(DriverUnderTest.IsPatched, DriverUnderTest.NotPatchedReason);
            using var watch = new MemoryScopeWatch();
            AdbcDatabase database = watch.Open(() => fixture.OpenDatabase());

            List<WeakReference> pooledArrays = QueryOnTwoConnectionsThenLookIntoThePools(database, watch, out long reachableBytes);
            output.WriteLine($"before dispose: {watch.Describe()}; {pooledArrays.Count} large arrays ({reachableBytes} bytes) reachable from the database");

            // Not vacuous: the pools did keep memory, and that memory hangs off the database object.
            Assert.True(watch.Sum(MemoryScopeWatch.Rented) > 0, "the scope's pools were never used: " + watch.Describe());
            Assert.True(watch.Retained > 0, "the pools kept nothing for reuse, so releasing them would prove nothing: " + watch.Describe());
            Assert.NotEmpty(pooledArrays);
            Assert.True(reachableBytes >= watch.Retained, $"the meter reports more retained bytes ({watch.Retained}) than the database reaches ({reachableBytes})");

            // Control: while the database is alive, a full GC must NOT collect them (they are rooted through it), so
            // the check after dispose can tell "released" from "the check cannot see anything".
            CollectEverything();
            Assert.All(pooledArrays, w => Assert.True(w.IsAlive, "a pooled array was collected while its database was alive"));

            database.Dispose();

            // Meter facts: nothing in use, nothing retained, scope no longer live.
            watch.AssertReleasedAndEmpty();

            // Reachability: every pooled array the database reached is collected although the test still holds the
            // disposed database (as hosts do). A GC cannot collect an array some root still references.
            CollectEverything();
            int alive = pooledArrays.Count(w => w.IsAlive);
            Assert.True(alive == 0, $"{alive} of {pooledArrays.Count} pooled arrays survived a full blocking GC while the disposed database was held");
            Assert.Empty(ReachableArrays.WeakReferencesToLargeArrays(database, out _));
            GC.KeepAlive(database);
        }

        [SkippableFact]
        public void ConnectionsOfOneDatabaseShareOneScope()
        {
            Skip.IfNot(DriverUnderTest.IsPatched, DriverUnderTest.NotPatchedReason);
            using var watch = new MemoryScopeWatch();
            using (AdbcDatabase database = watch.Open(() => fixture.OpenDatabase()))
            {
                IReadOnlyCollection<int> known = watch.AllScopes;
                using AdbcConnection first = database.Connect(null);
                using AdbcConnection second = database.Connect(null);
                using AdbcConnection third = database.Connect(null);
                foreach (AdbcConnection connection in new[] { first, second, third })
                {
                    DriverQueries.Run(connection, s_spec, CloudFetch).AssertAllRowsCorrect();
                }

                // Every measurement of the three connections' readers carried the database's scope id: no connection
                // made a private scope, and the pools saw the rents of all three.
                Assert.Empty(watch.ScopesSince(known));
                Assert.Contains(watch.ScopeId, watch.AllScopes);
                Assert.True(watch.Sum(MemoryScopeWatch.Rented) > 0, watch.Describe());
                Assert.Equal(0, watch.InUse);
                output.WriteLine(watch.Describe());
            }

            watch.AssertReleasedAndEmpty();
        }

        /// <summary>
        /// Everything that touches the connections is in this synchronous, non-inlined frame, so no local of the test
        /// keeps a connection, statement or reader alive afterwards (an async method's locals would live in its state
        /// machine; see the memory probe).
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static List<WeakReference> QueryOnTwoConnectionsThenLookIntoThePools(AdbcDatabase database, MemoryScopeWatch watch, out long reachableBytes)
        {
            using (AdbcConnection first = database.Connect(null))
            using (AdbcConnection second = database.Connect(null))
            {
                DriverQueries.Run(first, s_spec, CloudFetch).AssertAllRowsCorrect();
                DriverQueries.Run(second, s_spec with { Seed = 52 }, CloudFetch).AssertAllRowsCorrect();
                Assert.True(watch.InUse == 0, "readers disposed but bytes still in use: " + watch.Describe());
            }

            // Both connections are disposed; the database alone keeps the scope (and its free arrays) alive.
            Assert.True(watch.Live == 1, "the scope must live as long as the database: " + watch.Describe());
            return ReachableArrays.WeakReferencesToLargeArrays(database, out reachableBytes);
        }

        internal static void CollectEverything()
        {
            for (int i = 0; i < 3; i++)
            {
                GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
                GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
                GC.WaitForPendingFinalizers();
            }
        }
    }
}
