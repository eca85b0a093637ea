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
using K4os.Hash.xxHash;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// Inline Arrow batches decoded whole (<see cref="ScopedLz4Decompressor.DecompressToArray"/>) into an exact-size array
    /// the consumer owns: straight into it, whether the frame declares its content size or not, with no pooled array kept
    /// or lent; corrupt input fails with <see cref="Lz4FormatException"/> and leaves nothing in use.
    /// </summary>
    public class ScopedLz4DecompressorDecompressToArrayTest
    {
        [Theory]
        [InlineData(1)]
        [InlineData(1000)]
        [InlineData(100 * KiB)]
        [InlineData(5 * MiB)]
        public void DecompressToArray_WithContentSize_DecodesStraightIntoTheReturnedArray(int size)
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(size, seed: 1);
            byte[] compressed = WithContentSize(Lz4Frame(data, IndependentBlocks4MiB()), data.Length);

            // Act and Assert
            AssertDecodedIntoOneArray(scope, data, compressed);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented));
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks));
            Assert.Equal(2L * size, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(2, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Frames));
        }

        [Theory]
        [InlineData(1000)]
        [InlineData(100 * KiB)]
        [InlineData(5 * MiB)]
        public void DecompressToArray_WithoutContentSize_DecodesTheMeasuredSizeStraightIntoTheReturnedArray(int size)
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(size, seed: 1);
            byte[] compressed = Lz4Frame(data, IndependentBlocks4MiB());

            // Act
            byte[] result = AssertDecodedIntoOneArray(scope, data, compressed);

            // Assert: the result is the consumer's: the pool never saw it, and never hands it out
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented));
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.NotSame(result, scope.BufferPool.Rent(size).Array);
        }

        [Fact]
        public void DecompressToArray_HighlyCompressibleOutput_IsStillSizedExactly()
        {
            // Arrange: long runs compress ~250x, far beyond any guess from the compressed size
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = new byte[(3 * MiB) + 17];
            for (int i = 0; i < data.Length; i++)
            {
                data[i] = (byte)(i / 100_000);
            }

            // Act
            byte[] result = scope.Lz4.DecompressToArray(Lz4Frame(data, IndependentBlocks4MiB()));

            // Assert
            Assert.Equal(data, result);
            Assert.Equal(0, metrics.Count(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks));
        }

        [Fact]
        public void DecompressToArray_ConcatenatedFrames_AreReturnedWhole()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            byte[] first = Compressible(70 * KiB, seed: 4);
            byte[] second = Compressible(50 * KiB, seed: 5);
            byte[] frames = Concatenate(
                WithContentSize(Lz4Frame(first, IndependentBlocks4MiB()), first.Length),
                WithContentSize(Lz4Frame(second, IndependentBlocks4MiB()), second.Length));

            // Act
            byte[] result = lease.Scope.Lz4.DecompressToArray(frames);

            // Assert
            Assert.Equal(Concatenate(first, second), result);
        }

        [Fact]
        public void DecompressToArray_EmptyContent_ReturnsAnEmptyArray()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();

            // Act
            byte[] withSize = lease.Scope.Lz4.DecompressToArray(WithContentSize(EmptyFrame(), 0));
            byte[] withoutSize = lease.Scope.Lz4.DecompressToArray(EmptyFrame());

            // Assert
            Assert.Empty(withSize);
            Assert.Empty(withoutSize);
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [Fact]
        public void DecompressToArray_CorruptInput_ThrowsAndLeaksNothing()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] withSize = WithContentSize(Lz4Frame(Compressible(100 * KiB, seed: 1), IndependentBlocks4MiB()), 100 * KiB);
            byte[] withoutSize = Lz4Frame(Compressible(MiB, seed: 1), IndependentBlocks4MiB());

            // Act
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(withSize)));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(withoutSize)));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(new byte[] { 9, 9, 9, 9, 9, 9, 9, 9 }));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(ReadOnlySpan<byte>.Empty));

            // Assert
            AssertNothingInUse(metrics, scope);
            Assert.Equal(4, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks, reason: DatabricksMemoryMetricNames.ErrorReason));
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
        }

        [Fact]
        public void DecompressToArray_AfterRelease_IsStillExactAndKeepsNothing()
        {
            // Arrange
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            byte[] data = Compressible(100 * KiB, seed: 1);
            byte[] sized = Compressible(100 * KiB, seed: 9);
            byte[] withoutSize = Lz4Frame(data, IndependentBlocks4MiB());
            byte[] withSize = WithContentSize(Lz4Frame(sized, IndependentBlocks4MiB()), sized.Length);
            owner.Dispose();

            // Act
            byte[] fromWithoutSize = scope.Lz4.DecompressToArray(withoutSize);
            byte[] fromWithSize = scope.Lz4.DecompressToArray(withSize);

            // Assert
            Assert.Equal(data, fromWithoutSize);
            Assert.Equal(sized, fromWithSize);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        /// <summary>
        /// Decodes <paramref name="compressed"/> twice (the first call warms up JIT and type loading) and checks the second:
        /// exactly <paramref name="data"/>, and (where the runtime counts a thread's allocations) written into the array it
        /// returns: one array of the output's size plus a little bookkeeping, not a second exact copy, not pooled scratch.
        /// </summary>
        private static byte[] AssertDecodedIntoOneArray(DatabricksMemoryScope scope, byte[] data, byte[] compressed)
        {
            Assert.Equal(data, scope.Lz4.DecompressToArray(compressed));
#if NETCOREAPP3_0_OR_GREATER
            long before = GC.GetAllocatedBytesForCurrentThread();
#endif
            byte[] result = scope.Lz4.DecompressToArray(compressed);
#if NETCOREAPP3_0_OR_GREATER
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.InRange(allocated, data.Length, data.Length + (data.Length / 2) + (4 * KiB));
#endif
            Assert.Equal(data.Length, result.Length);
            Assert.Equal(data, result);
            return result;
        }

        /// <summary>
        /// A frame with no block: its header (4 MiB independent blocks, no checksums) and the end mark, written by hand
        /// as the LZ4 frame format specifies, so that the case does not depend on what an encoder writes for no input.
        /// </summary>
        private static byte[] EmptyFrame()
        {
            byte[] descriptor = { 0x60, 0x70 }; // FLG: version 01, independent blocks; BD: 4 MiB blocks
            byte headerChecksum = (byte)(XXH32.DigestOf(descriptor.AsSpan()) >> 8);
            return new byte[] { 0x04, 0x22, 0x4D, 0x18, descriptor[0], descriptor[1], headerChecksum, 0, 0, 0, 0 };
        }
    }
}
