using System.Diagnostics.Metrics;
using System.Linq;
using System.Reflection;
using Lz4Reference;
using static Apache.Arrow.Adbc.Drivers.Databricks.DatabricksMemoryMetricNames;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// The meter says what the pools' own accounting says, as a MeterListener (or dotnet-counters) sees it.
    /// Every query is filtered by the scope's id: the meter is process-wide and other tests run in parallel.
    /// </summary>
    public class DatabricksMemoryMetricsTests
    {
        private const int Min = Lz4BufferPool.MinimumArrayLength;

        /// <summary>
        /// DatabricksMemoryMetricNames is the one definition of the names (the harness, the probe and the verify
        /// report take them from it): the meter publishes exactly the instruments it names, under its meter name.
        /// </summary>
        [Fact]
        public void TheMeterPublishesExactlyTheInstrumentsTheNamesDefine()
        {
            GC.KeepAlive(DatabricksMemoryMetrics.Rented); // the meter and its instruments exist from here on
            var published = new HashSet<string>();
            using (var listener = new MeterListener())
            {
                listener.InstrumentPublished = (instrument, _) =>
                {
                    if (instrument.Meter.Name == MeterName)
                    {
                        lock (published)
                        {
                            published.Add(instrument.Name);
                        }
                    }
                };
                listener.Start();
            }

            var defined = new HashSet<string>();
            foreach (FieldInfo field in typeof(DatabricksMemoryMetricNames).GetFields(BindingFlags.Public | BindingFlags.Static))
            {
                string value = (string)field.GetRawConstantValue()!;
                if (value.StartsWith("adbc.databricks.", StringComparison.Ordinal))
                {
                    defined.Add(value);
                }
            }

            Assert.Equal(22, defined.Count);
            Assert.Equal(defined.OrderBy(n => n, StringComparer.Ordinal), published.OrderBy(n => n, StringComparer.Ordinal));
        }

        [Fact]
        public void BufferPoolMeasurementsMatchItsAccountingAtEveryStep()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            Lz4BufferPool pool = scope.BufferPool;
            int id = scope.Id;

            PooledArray a = pool.Rent(1);
            PooledArray b = pool.Rent((2 * Min) - 1); // the 128 KiB bucket
            PooledArray c = pool.Rent(MiB);
            byte[] cArray = c.Array;
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(Min + 2 * Min + MiB, metrics.Sum(id, InUse, Lz4BuffersPool));
            Assert.Equal(Min + 2 * Min + MiB, metrics.Sum(id, Allocated, Lz4BuffersPool));
            Assert.Equal(3, metrics.Count(id, Allocated, Lz4BuffersPool));

            b.Dispose();
            c.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(2 * Min + MiB, metrics.Sum(id, Retained, Lz4BuffersPool));

            // Reuse is rented and in use again, but not allocated again.
            PooledArray c2 = pool.Rent(MiB);
            Assert.Same(cArray, c2.Array);
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(Min + 2 * Min + MiB, metrics.Sum(id, Allocated, Lz4BuffersPool));
            Assert.Equal(2 * Min + MiB + Min + MiB, metrics.Sum(id, Rented, Lz4BuffersPool));

            // Release: retained drops to 0 at once; arrays still rented stay in use until they come back.
            owner.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, Retained, Lz4BuffersPool));
            Assert.Equal(Min + MiB, metrics.Sum(id, InUse, Lz4BuffersPool));
            Assert.Equal(2 * Min, metrics.Sum(id, Dropped, Lz4BuffersPool));

            a.Dispose();
            c2.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, InUse, Lz4BuffersPool));
            Assert.Equal(0, metrics.Sum(id, Retained, Lz4BuffersPool));
            Assert.Equal(2 * Min + Min + MiB, metrics.Sum(id, Dropped, Lz4BuffersPool));

            // After release rents are unpooled: counted as such, never as rented, allocated or in use.
            long rentedBefore = metrics.Sum(id, Rented, Lz4BuffersPool);
            PooledArray late = pool.Rent(1000);
            late.Dispose();
            Assert.Equal(1000, metrics.Sum(id, Unpooled, Lz4BuffersPool));
            Assert.Equal(rentedBefore, metrics.Sum(id, Rented, Lz4BuffersPool));
            AssertBufferPoolMatches(metrics, scope);
        }

        private static void AssertBufferPoolMatches(MemoryMetricsRecorder metrics, DatabricksMemoryScope scope)
        {
            int id = scope.Id;
            Assert.Equal(scope.BufferPool.InUseBytes, metrics.Sum(id, InUse, Lz4BuffersPool));
            Assert.Equal(scope.BufferPool.RetainedBytes, metrics.Sum(id, Retained, Lz4BuffersPool));
            Assert.Equal(metrics.Sum(id, Rented, Lz4BuffersPool) - metrics.Sum(id, Returned, Lz4BuffersPool), metrics.Sum(id, InUse, Lz4BuffersPool));
        }

        [Fact]
        public void DecodingStreamsAreAccountedAsPooledArrays()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            int id = scope.Id;
            (byte[] large, byte[] largeFrame) = Sample(5 * MiB, WithoutContentSize);

            // Queued: the download. Half read: the 4 MiB block being read and the second (last) block decoded ahead into
            // another; the download went back with its last block. Read to the end: nothing.
            Stream first = scope.Lz4.DecodeAsRead(Lz4Decoding.Download(scope.BufferPool, largeFrame));
            long download = BucketOf(largeFrame.Length);
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(download, metrics.Sum(id, InUse, Lz4BuffersPool));
            byte[] half = new byte[large.Length / 2];
            first.ReadExactly(half);
            Lz4Decoding.Settle(first);
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(2 * 4 * MiB, metrics.Sum(id, InUse, Lz4BuffersPool));
            Assert.Equal(large.AsSpan(half.Length).ToArray(), Lz4Decoding.ReadAll(first, 81920));
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, InUse, Lz4BuffersPool));
            Assert.Equal(download + (2 * 4 * MiB), metrics.Sum(id, Retained, Lz4BuffersPool));
            first.Dispose();

            // Reuse: the next file takes the same three arrays; nothing new is allocated.
            Assert.Equal(large, Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, largeFrame, settle: true));
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(download + (2 * 4 * MiB), metrics.Sum(id, Allocated, Lz4BuffersPool));

            // Release while a stream is half read: retained goes to 0, its arrays stay in use until it is disposed.
            Stream open = scope.Lz4.DecodeAsRead(Lz4Decoding.Download(scope.BufferPool, largeFrame));
            open.ReadExactly(half);
            Lz4Decoding.Settle(open);
            owner.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, Retained, Lz4BuffersPool));
            Assert.Equal(2 * 4 * MiB, metrics.Sum(id, InUse, Lz4BuffersPool));
            open.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, InUse, Lz4BuffersPool));
            Assert.Equal(0, metrics.Sum(id, Retained, Lz4BuffersPool));
        }

        [Fact]
        public void DecodedBytesAndFramesCountEveryDecode()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] a, byte[] aFrame) = Sample(100 * KiB, WithContentSize, seed: 11);
            (byte[] b, byte[] bFrame) = Sample(70 * KiB, WithoutContentSize, seed: 12);
            (byte[] c, byte[] cFrame) = Sample(MiB, Linked64K, seed: 13);
            byte[] skippable = { 0x5F, 0x2A, 0x4D, 0x18, 0, 0, 0, 0 };
            byte[] threeFrames = Concatenate(aFrame, skippable, bFrame, cFrame);
            long expected = a.Length + b.Length + c.Length;

            Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, threeFrames);
            Assert.Equal(expected, metrics.Sum(scope.Id, Lz4Decoded));
            Assert.Equal(3, metrics.Sum(scope.Id, Lz4Frames));

            Assert.Equal(a, scope.Lz4.DecompressToArray(aFrame));  // content-size path
            Assert.Equal(b, scope.Lz4.DecompressToArray(bFrame));  // pooled scratch path
            Assert.Equal(expected + a.Length + b.Length, metrics.Sum(scope.Id, Lz4Decoded));
            Assert.Equal(5, metrics.Sum(scope.Id, Lz4Frames));

            // A failed inline decode produces nothing countable; a failed stream counts what it decoded before the error.
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(cFrame)));
            Assert.Equal(expected + a.Length + b.Length, metrics.Sum(scope.Id, Lz4Decoded));
            Assert.Equal(5, metrics.Sum(scope.Id, Lz4Frames));

            Assert.All(metrics.TagsSeen(scope.Id, Lz4Decoded), tags => Assert.Equal((null, null), tags));
        }

        [Fact]
        public void FailedDecodesAreCountedWithTheirReason()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            (byte[] data, byte[] frame) = Sample(5 * MiB, WithoutContentSize);

            Assert.Equal(data, Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, frame));
            Assert.Equal(data, scope.Lz4.DecompressToArray(frame));
            Assert.Equal(0, metrics.Count(scope.Id, Lz4Fallbacks));

            // Corrupt input, through both entry points; after release too.
            Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, Truncated(frame)));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(frame)));
            owner.Dispose();
            Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, Truncated(frame)));
            Assert.Equal(3, metrics.Sum(scope.Id, Lz4Fallbacks, reason: ErrorReason));
            Assert.All(metrics.TagsSeen(scope.Id, Lz4Fallbacks), tags => Assert.Equal((null, ErrorReason), tags));
        }

        [Fact]
        public void LiveScopesGoUpOnCreateAndDownOnceOnRelease()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            DatabricksMemoryLease connection = scope.AcquireLease();
            Assert.Equal(1, metrics.Sum(scope.Id, LiveScopes));
            Assert.Equal(1, metrics.Count(scope.Id, LiveScopes));

            owner.Dispose();
            Assert.Equal(1, metrics.Sum(scope.Id, LiveScopes));

            connection.Dispose();
            connection.Dispose();
            scope.AcquireLease().Dispose();
            Assert.Equal(0, metrics.Sum(scope.Id, LiveScopes));
            Assert.Equal(2, metrics.Count(scope.Id, LiveScopes));
        }

        [Fact]
        public void EveryPoolMeasurementCarriesItsPoolTagAndOnlyItsOwnScope()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease busy = CreateScope();
            using DatabricksMemoryLease idle = CreateScope();
            (_, byte[] frame) = Sample(100 * KiB, WithoutContentSize);

            Lz4Decoding.DecodeAsRead(busy.Scope.Lz4, busy.Scope.BufferPool, frame);
            busy.Scope.Lz4.DecompressToArray(frame);
            busy.Scope.BufferPool.Rent(10).Dispose();

            foreach (string instrument in new[] { Rented, Returned, InUse, Retained, Allocated })
            {
                IReadOnlyList<(string? Pool, string? Reason)> tags = metrics.TagsSeen(busy.Scope.Id, instrument);
                Assert.Contains((Lz4BuffersPool, null), tags);
                Assert.All(tags, t => Assert.True(t.Pool == Lz4BuffersPool && t.Reason == null, $"{instrument} tagged pool={t.Pool} reason={t.Reason}"));
                Assert.Equal(0, metrics.Count(idle.Scope.Id, instrument));
            }

            Assert.Equal(0, metrics.Count(idle.Scope.Id, Lz4Decoded));
            Assert.Equal(1, metrics.Count(idle.Scope.Id, LiveScopes));
        }
    }
}
