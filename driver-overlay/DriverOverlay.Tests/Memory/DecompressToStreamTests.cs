using Lz4Reference;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// CloudFetch files to read-only streams over pooled arrays: round trips, size hints, memory return, release,
    /// files above the pool's largest array, and errors.
    /// </summary>
    public class DecompressToStreamTests
    {
        private const int Min = Lz4BufferPool.MinimumArrayLength;

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

            Assert.Equal(0, stream.Position);
            Assert.Equal(size, stream.Length);
            Assert.False(stream.CanWrite);
            byte[] read = new byte[size + 1];
            Assert.Equal(size, stream.ReadAtLeast(read, read.Length, throwOnEndOfStream: false));
            Assert.True(data.AsSpan().SequenceEqual(read.AsSpan(0, size)), "decompressed bytes differ from the original");

            // The output is sized from the frames themselves, whatever the hint says: one array of the output's
            // bucket, never regrown.
            Assert.Equal(BucketOf(size), scope.BufferPool.InUseBytes);
            Assert.Equal(BucketOf(size), metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated));
            Assert.Equal(0, metrics.Count(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks));
            Assert.Equal(size, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Frames));

            stream.Dispose();

            // Disposing the stream gives the array back: nothing in use, and it is kept for the next file.
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(BucketOf(size), scope.BufferPool.RetainedBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(BucketOf(size), metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Retained));
        }

        [Fact]
        public void TheNextFileReusesTheArrayAndDisposingTwiceIsHarmless()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            (byte[] other, byte[] otherCompressed) = Sample(5 * MiB - 3, WithoutContentSize, seed: 2);

            MemoryStream first = scope.Lz4.DecompressToStream(compressed);
            byte[] array = PooledArrayBehind(first);
            first.Dispose();
            first.Dispose();

            using MemoryStream second = scope.Lz4.DecompressToStream(otherCompressed);
            Assert.Same(array, PooledArrayBehind(second));
            Assert.Equal(other, second.ToArray());
            Assert.Equal(5 * MiB, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated)); // 5 MiB is a bucket
            Assert.Equal(5 * MiB, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Throws<ObjectDisposedException>(() => first.ReadByte());
            Assert.NotEqual(data, other);
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
            Assert.Equal(2, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Frames));
            Assert.Equal(first.Length + second.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(0, metrics.Count(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks));
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

            foreach (var options in new[] { WithContentSize, WithoutContentSize })
            {
                byte[] frame = NativeLz4.CompressFrame(Array.Empty<byte>(), options);
                using (MemoryStream stream = lease.Scope.Lz4.DecompressToStream(frame))
                {
                    Assert.Equal(0, stream.Length);
                    Assert.Equal(-1, stream.ReadByte());
                }

                Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
            }
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
                Assert.Equal(0, scope.BufferPool.InUseBytes);
            }

            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToStream(ReadOnlySpan<byte>.Empty));

            AssertNothingInUse(metrics, scope);
            Assert.Equal(2 * corrupt.Length + 1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks, reason: DatabricksMemoryMetricNames.ErrorReason));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
        }

        [Fact]
        public void AfterReleaseStreamsAreUnpooledAndNothingIsRetained()
        {
            using var metrics = new MemoryMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, WithoutContentSize);
            scope.Lz4.DecompressToStream(compressed, data.Length).Dispose(); // leaves a free 5 MiB array
            Assert.Equal(5 * MiB, scope.BufferPool.RetainedBytes);

            owner.Dispose();
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Retained));

            foreach (long hint in new long[] { 0, data.Length, MiB })
            {
                using MemoryStream stream = scope.Lz4.DecompressToStream(compressed, hint);
                Assert.Equal(0, stream.Position);
                Assert.Equal(data.Length, stream.Length);
                Assert.Equal(data, stream.ToArray());
                Assert.False(stream.CanWrite);
            }

            Assert.Equal(3, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks, reason: DatabricksMemoryMetricNames.UnpooledReason));
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Retained));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(3L * data.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Unpooled));
        }

        [Fact]
        public void FilesAboveThePoolsLargestArrayAreUnpooledAndNeverKept()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BufferPoolMaxArrayMbKey, "1"));
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(3 * MiB + 5, WithoutContentSize);

            using (MemoryStream stream = scope.Lz4.DecompressToStream(compressed))
            {
                Assert.Equal(data.Length, stream.Length);
                Assert.Equal(data, stream.ToArray());
                Assert.Equal(0, scope.BufferPool.InUseBytes);
            }

            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(data.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Unpooled)); // exact size: no bucket rounding
            Assert.Equal(1, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks, reason: DatabricksMemoryMetricNames.UnpooledReason));
        }
    }
}
