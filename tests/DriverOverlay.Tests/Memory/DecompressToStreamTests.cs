using System;
using System.Collections.Generic;
using System.IO;
using Apache.Arrow.Adbc.Drivers.Databricks;
using Lz4Reference;
using Microsoft.IO;
using Xunit;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>CloudFetch files to scope-owned streams: round trips, size hints, memory return, caps, release, errors.</summary>
    public class DecompressToStreamTests
    {
        public enum Hint
        {
            None,
            Exact,
            TooSmall,
            TooLarge,
        }

        public static IEnumerable<object[]> RoundTripCases()
        {
            foreach (int size in new[] { 10, 100 * KiB, 5 * MiB, 20 * MiB })
            {
                foreach (Hint hint in Enum.GetValues<Hint>())
                {
                    yield return new object[] { size, false, hint };
                }
            }

            // The frame's own content size overrides any hint.
            yield return new object[] { 5 * MiB, true, Hint.None };
            yield return new object[] { 5 * MiB, true, Hint.TooSmall };
        }

        private static long HintFor(Hint hint, int size) => hint switch
        {
            Hint.Exact => size,
            Hint.TooSmall => Math.Max(1, size / 5),
            Hint.TooLarge => 3L * size + 7 * MiB,
            _ => 0,
        };

        [Theory]
        [MemberData(nameof(RoundTripCases))]
        public void RoundTripWithEveryKindOfHint(int size, bool contentSize, Hint hint)
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(size, contentSize ? WithContentSize : WithoutContentSize);

            MemoryStream stream = scope.Lz4.DecompressToStream(compressed, HintFor(hint, size));

            Assert.IsType<RecyclableMemoryStream>(stream);
            Assert.Equal(0, stream.Position);
            Assert.Equal(size, stream.Length);
            byte[] read = new byte[size + 1];
            Assert.Equal(size, stream.ReadAtLeast(read, read.Length, throwOnEndOfStream: false));
            Assert.True(data.AsSpan().SequenceEqual(read.AsSpan(0, size)), "decompressed bytes differ from the original");

            long regrowths = metrics.Sum(scope.Id, MemoryMetricsRecorder.Fallbacks, reason: "regrow");
            bool bufferTooSmall = !contentSize && HintFor(hint, size) is long h && h > 0 && RoundedStreamCapacity(h) < size;
            if (bufferTooSmall)
            {
                Assert.True(regrowths > 0, "a hint below the output size must regrow (and say so)");
            }
            else if (contentSize || hint == Hint.Exact || hint == Hint.TooLarge)
            {
                Assert.Equal(0, regrowths);
            }

            Assert.Equal(size, metrics.Sum(scope.Id, MemoryMetricsRecorder.Decoded));
            Assert.Equal(1, metrics.Sum(scope.Id, MemoryMetricsRecorder.Frames));
            Assert.True(StreamInUse(scope) > 0);

            stream.Dispose();

            // Disposing the stream gives every byte back: nothing in use, neither by the manager nor by the meter.
            Assert.Equal(0, StreamInUse(scope));
            Assert.Equal(0, metrics.Sum(scope.Id, MemoryMetricsRecorder.InUse, MemoryMetricsRecorder.StreamPool));
            Assert.Equal(
                scope.StreamPool.Manager!.SmallPoolFreeSize + scope.StreamPool.Manager.LargePoolFreeSize,
                metrics.Sum(scope.Id, MemoryMetricsRecorder.Retained, MemoryMetricsRecorder.StreamPool));
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        /// <summary>What the manager hands out for a capacity: one 128 KiB block, or a 4 MiB multiple.</summary>
        private static long RoundedStreamCapacity(long capacity) =>
            capacity <= DatabricksMemoryOptions.StreamBlockSize
                ? DatabricksMemoryOptions.StreamBlockSize
                : (capacity + DatabricksMemoryOptions.StreamLargeBufferMultiple - 1) / DatabricksMemoryOptions.StreamLargeBufferMultiple * DatabricksMemoryOptions.StreamLargeBufferMultiple;

        private static long StreamInUse(DatabricksMemoryScope scope) =>
            scope.StreamPool.Manager!.SmallPoolInUseSize + scope.StreamPool.Manager.LargePoolInUseSize;

        [Fact]
        public void TooSmallHintRegrowsIntoALargerBufferAndGivesTheSmallerOneBack()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);

            using MemoryStream stream = scope.Lz4.DecompressToStream(compressed, MiB);

            Assert.Equal(data, stream.ToArray());
            Assert.Equal(1, metrics.Sum(scope.Id, MemoryMetricsRecorder.Fallbacks, reason: "regrow"));

            // Only the final 8 MiB buffer is in use; the 4 MiB one went back to the free pool at once.
            Assert.Equal(8 * MiB, scope.StreamPool.Manager!.LargePoolInUseSize);
            Assert.Equal(4 * MiB, scope.StreamPool.Manager.LargePoolFreeSize);
            Assert.Equal(8 * MiB, metrics.Sum(scope.Id, MemoryMetricsRecorder.InUse, MemoryMetricsRecorder.StreamPool));
            Assert.Equal(4 * MiB, metrics.Sum(scope.Id, MemoryMetricsRecorder.Retained, MemoryMetricsRecorder.StreamPool));
            Assert.Equal(12 * MiB, metrics.Sum(scope.Id, MemoryMetricsRecorder.Allocated, MemoryMetricsRecorder.StreamPool));
        }

        [Fact]
        public void ConcatenatedFramesAndASkippableFrameDecodeIntoOneStream()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] first, byte[] firstFrame) = Sample(300 * KiB, WithContentSize, seed: 2);
            (byte[] second, byte[] secondFrame) = Sample(200 * KiB, WithoutContentSize, seed: 3);
            byte[] skippable = { 0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3 };

            using MemoryStream stream = scope.Lz4.DecompressToStream(Concatenate(firstFrame, skippable, secondFrame));

            Assert.Equal(Concatenate(first, second), stream.ToArray());
            Assert.Equal(0, stream.Position);
            Assert.Equal(2, metrics.Sum(scope.Id, MemoryMetricsRecorder.Frames));
            Assert.Equal(first.Length + second.Length, metrics.Sum(scope.Id, MemoryMetricsRecorder.Decoded));
        }

        [Fact]
        public void LinkedBlocksRoundTrip()
        {
            using DatabricksMemoryLease lease = CreateScope();
            (byte[] data, byte[] compressed) = Sample(MiB + 12345, Linked64K);

            using MemoryStream stream = lease.Scope.Lz4.DecompressToStream(compressed, 1000);

            Assert.Equal(data, stream.ToArray());
        }

        [Fact]
        public void EmptyContentDecodesToAnEmptyStream()
        {
            using DatabricksMemoryLease lease = CreateScope();
            byte[] frame = NativeLz4.CompressFrame(Array.Empty<byte>(), WithContentSize);

            using MemoryStream stream = lease.Scope.Lz4.DecompressToStream(frame);

            Assert.Equal(0, stream.Length);
            Assert.Equal(-1, stream.ReadByte());
        }

        [Fact]
        public void CorruptInputThrowsAndLeaksNothing()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (_, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            (_, byte[] withSize) = Sample(100 * KiB, WithContentSize);
            byte[][] corrupt =
            {
                Truncated(compressed),
                Truncated(withSize),
                new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 },
                new byte[] { 0x04, 0x22, 0x4D },
            };

            foreach (byte[] input in corrupt)
            {
                Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToStream(input, 6 * MiB));
                Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToStream(input));
            }

            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToStream(ReadOnlySpan<byte>.Empty));

            Assert.Equal(0, StreamInUse(scope));
            Assert.Equal(0, metrics.Sum(scope.Id, MemoryMetricsRecorder.InUse, MemoryMetricsRecorder.StreamPool));
            Assert.Equal(2 * corrupt.Length + 1, metrics.Sum(scope.Id, MemoryMetricsRecorder.Fallbacks, reason: "error"));
            Assert.Equal(0, metrics.Sum(scope.Id, MemoryMetricsRecorder.Decoded));
        }

        [Fact]
        public void AfterReleaseStreamsArePlainAndNothingIsRetained()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            scope.Lz4.DecompressToStream(compressed, data.Length).Dispose(); // leaves a free 8 MiB buffer
            Assert.True(metrics.Sum(scope.Id, MemoryMetricsRecorder.Retained, MemoryMetricsRecorder.StreamPool) > 0);

            owner.Dispose();
            Assert.Null(scope.StreamPool.Manager);
            Assert.Equal(0, metrics.Sum(scope.Id, MemoryMetricsRecorder.Retained, MemoryMetricsRecorder.StreamPool));

            foreach (long hint in new long[] { 0, data.Length, MiB })
            {
                using MemoryStream stream = scope.Lz4.DecompressToStream(compressed, hint);
                Assert.IsNotType<RecyclableMemoryStream>(stream);
                Assert.Equal(0, stream.Position);
                Assert.Equal(data.Length, stream.Length);
                Assert.Equal(data, stream.ToArray());
                Assert.False(stream.CanWrite); // the consumer reads it; it is not a scratch buffer
            }

            Assert.Equal(3, metrics.Sum(scope.Id, MemoryMetricsRecorder.Fallbacks, reason: "unpooled"));
            Assert.Equal(0, metrics.Sum(scope.Id, MemoryMetricsRecorder.Retained));
            Assert.Equal(0, metrics.Sum(scope.Id, MemoryMetricsRecorder.InUse));
            Assert.True(metrics.Sum(scope.Id, MemoryMetricsRecorder.Unpooled, MemoryMetricsRecorder.StreamPool) >= 3L * data.Length);
        }

        /// <summary>
        /// RecyclableMemoryStream caps free large buffers per size class: a returned buffer of size S is kept when
        /// (free buffers of size S + 1) x S &lt;= MaximumLargePoolFreeBytes. Each 4 MiB multiple is its own class, so
        /// the total free large memory can reach (number of classes in use) x the cap; with the defaults
        /// (64 MiB / 4 MiB = 16 classes, 32 MiB each) that is 512 MiB in the worst case. Small 128 KiB blocks are
        /// kept while the small free total is below its cap, so it can be exceeded by one block.
        /// </summary>
        [Fact]
        public void FreeStreamBuffersRespectTheCapsPerSizeClass()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope(
                (DatabricksMemoryOptions.StreamPoolMaxFreeLargeMbKey, "8"),
                (DatabricksMemoryOptions.StreamPoolMaxFreeSmallMbKey, "1"));
            DatabricksMemoryScope scope = lease.Scope;
            RecyclableMemoryStreamManager manager = scope.StreamPool.Manager!;

            DisposeAll(Open(scope, 4 * MiB, 3));
            Assert.Equal(8 * MiB, manager.LargePoolFreeSize); // two 4 MiB buffers fit in 8 MiB, the third is dropped
            Assert.Equal(2, manager.LargeBuffersFree);

            DisposeAll(Open(scope, 8 * MiB, 3));
            Assert.Equal(16 * MiB, manager.LargePoolFreeSize); // one more 8 MiB buffer, in its own size class

            DisposeAll(Open(scope, 12 * MiB, 2));
            Assert.Equal(16 * MiB, manager.LargePoolFreeSize); // 12 MiB alone exceeds the 8 MiB cap: never kept

            DisposeAll(Open(scope, 100 * KiB, 12));
            Assert.InRange(manager.SmallPoolFreeSize, MiB, MiB + DatabricksMemoryOptions.StreamBlockSize);

            Assert.Equal(0, StreamInUse(scope));
            Assert.Equal(manager.LargePoolFreeSize + manager.SmallPoolFreeSize, metrics.Sum(scope.Id, MemoryMetricsRecorder.Retained, MemoryMetricsRecorder.StreamPool));
        }

        [Fact]
        public void StreamsAboveTheMaximumBufferSizeAreNeverKept()
        {
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.StreamPoolMaxBufferMbKey, "4"));
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithContentSize);

            using (MemoryStream stream = scope.Lz4.DecompressToStream(compressed))
            {
                Assert.Equal(data, stream.ToArray());
            }

            Assert.Equal(0, scope.StreamPool.Manager!.LargePoolFreeSize);
            Assert.Equal(0, StreamInUse(scope));
        }

        [Fact]
        public void ZeroFreeCapsKeepNothingRatherThanEverything()
        {
            // RecyclableMemoryStream reads a free-bytes limit of 0 as "unbounded"; the overlay's documented meaning
            // of 0 MiB is "keep no free buffers", like buffer_pool_max_retained_mb=0. Small blocks may exceed the cap
            // by one block (the library checks the free total before adding), so at most one block stays.
            using DatabricksMemoryLease lease = CreateScope(
                (DatabricksMemoryOptions.StreamPoolMaxFreeLargeMbKey, "0"),
                (DatabricksMemoryOptions.StreamPoolMaxFreeSmallMbKey, "0"));
            DatabricksMemoryScope scope = lease.Scope;
            RecyclableMemoryStreamManager manager = scope.StreamPool.Manager!;

            DisposeAll(Open(scope, 4 * MiB, 3));
            DisposeAll(Open(scope, 100 * KiB, 5));

            Assert.Equal(0, manager.LargePoolFreeSize);
            Assert.InRange(manager.SmallPoolFreeSize, 0, DatabricksMemoryOptions.StreamBlockSize);
        }

        private static List<MemoryStream> Open(DatabricksMemoryScope scope, int capacity, int count)
        {
            var streams = new List<MemoryStream>();
            for (int i = 0; i < count; i++)
            {
                MemoryStream stream = scope.StreamPool.GetContiguousStream(capacity, out bool pooled);
                Assert.True(pooled);
                Assert.True(stream.GetBuffer().Length >= capacity);
                streams.Add(stream);
            }

            return streams;
        }

        private static void DisposeAll(List<MemoryStream> streams)
        {
            foreach (MemoryStream stream in streams)
            {
                stream.Dispose();
            }
        }
    }
}
