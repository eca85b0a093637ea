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
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// A CloudFetch file's HTTP body read into an array rented from the scope (<see cref="ScopedLz4Decompressor.ReadContentAsync"/>):
    /// one array of the declared length's bucket, or grown when no length is declared; a body shorter or longer than
    /// declared, a cancellation and a released scope leave nothing behind.
    /// </summary>
    public class ScopedLz4DecompressorReadContentTest
    {
        [Theory]
        [InlineData(0)]
        [InlineData(1)]
        [InlineData(1000)]
        [InlineData(MinArray - 1)]
        [InlineData(300 * KiB)]
        public async Task ReadContentAsync_WithContentLength_TheBodyLandsInOnePooledArray(int size)
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(size, seed: size);
            int bucket = BucketOf(size);

            // Act
            using (PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None))
            {
                // Assert: exactly one array, of the declared length's bucket, is in use: no regrowth
                Assert.Equal(size, buffer.Length);
                Assert.Equal(size, buffer.Segment.Count);
                Assert.Equal(0, buffer.Segment.Offset);
                Assert.True(buffer.Span.SequenceEqual(body));
                Assert.Equal(bucket, buffer.Segment.Array!.Length);
                Assert.Equal(bucket, scope.BufferPool.InUseBytes);
                Assert.Equal(bucket, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated));
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(bucket, scope.BufferPool.RetainedBytes);
        }

        [Theory]
        [InlineData(MinArray)]
        [InlineData(2 * MinArray)]
        public async Task ReadContentAsync_BodyExactlyFillsItsBucket_IsNotRegrown(int size)
        {
            // Arrange: checking that nothing follows a body that fills its array must not rent (and copy into) an array
            // twice the size; at the pool's largest size (32 MiB by default) that would be an unpooled 64 MiB allocation
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(size, seed: 3);

            // Act
            using PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None);

            // Assert
            Assert.True(buffer.Span.SequenceEqual(body));
            Assert.Equal(size, buffer.Segment.Array!.Length);
            Assert.Equal(size, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated));
            Assert.Equal(size, scope.BufferPool.InUseBytes);
        }

        [Theory]
        [InlineData(0)]
        [InlineData(10)]
        [InlineData(MinArray)]
        [InlineData(MinArray + 1)]
        [InlineData(300 * KiB)]
        public async Task ReadContentAsync_WithoutContentLength_GrowsAndTheOutgrownArraysGoBack(int size)
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(size, seed: 7);
            ChunkedHttpContent content = new ChunkedHttpContent(body, declaredLength: null);
            Assert.Null(content.Headers.ContentLength);

            // Act
            using (PooledBuffer buffer = await scope.Lz4.ReadContentAsync(content, CancellationToken.None))
            {
                // Assert
                Assert.Equal(size, buffer.Length);
                Assert.True(buffer.Span.SequenceEqual(body));
                Assert.Equal(buffer.Segment.Array!.Length, scope.BufferPool.InUseBytes); // only the final array is in use
                Assert.Equal(
                    metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented) - buffer.Segment.Array.Length,
                    scope.BufferPool.RetainedBytes); // every outgrown array was returned (and kept)
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
        }

        [Fact]
        public async Task ReadContentAsync_DeclaredLengthAboveThePoolsLargestArray_IsServedUnpooled()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.BufferPoolMaxArrayMbKey, "1"));
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(MiB + (MiB / 2), seed: 8);

            // Act
            using (PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ChunkedHttpContent(body, body.Length), CancellationToken.None))
            {
                // Assert
                Assert.True(buffer.Span.SequenceEqual(body));
                Assert.Equal(0, scope.BufferPool.InUseBytes);
            }

            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(body.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Unpooled));
        }

        [Theory]
        [InlineData(1000, 900)]
        [InlineData(1000, 0)]
        [InlineData(MinArray, MinArray - 1)]
        [InlineData(300 * KiB, 200 * KiB)]
        public async Task ReadContentAsync_BodyShorterThanContentLength_ThrowsAndTheArrayGoesBack(int declared, int actual)
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(actual, seed: 1);

            // Act
            IOException error = await Assert.ThrowsAsync<IOException>(
                () => scope.Lz4.ReadContentAsync(new ChunkedHttpContent(body, declared), CancellationToken.None));

            // Assert
            Assert.Contains($"{actual} of {declared}", error.Message, StringComparison.Ordinal);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(BucketOf(declared), scope.BufferPool.RetainedBytes);
        }

        [Theory]
        [InlineData(100, 200)]
        [InlineData(0, 1)]
        [InlineData(MinArray, MinArray + 1)]
        [InlineData(1000, 300 * KiB)]
        public async Task ReadContentAsync_BodyLongerThanContentLength_ThrowsAndNothingLeaks(int declared, int actual)
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(actual, seed: 2);

            // Act
            IOException error = await Assert.ThrowsAsync<IOException>(
                () => scope.Lz4.ReadContentAsync(new ChunkedHttpContent(body, declared), CancellationToken.None));

            // Assert
            Assert.Contains("longer", error.Message, StringComparison.Ordinal);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.InRange(scope.BufferPool.RetainedBytes, BucketOf(declared), long.MaxValue);
        }

        [Theory]
        [InlineData(true, 0)]
        [InlineData(true, 50_000)]
        [InlineData(false, 200_000)]
        public async Task ReadContentAsync_CancelledWhileTheBodyStalls_ThrowsAndNothingLeaks(bool withContentLength, int stallAfter)
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(300 * KiB, seed: 5);
            ChunkedHttpContent content = new ChunkedHttpContent(body, withContentLength ? body.Length : (long?)null, stallAfter);
            using CancellationTokenSource cancellation = new CancellationTokenSource();
            Task<PooledBuffer> read = scope.Lz4.ReadContentAsync(content, cancellation.Token);
            await Task.Delay(50);
            Assert.False(read.IsCompleted, "the read must be waiting on the stalled body");

            // Act
            cancellation.Cancel();

            // Assert
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => WithinAsync(read, Liveness, "the cancelled read"));
            AssertNothingInUse(metrics, scope);
        }

        [Fact]
        public async Task ReadContentAsync_TokenAlreadyCancelled_ThrowsAndNothingLeaks()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;

            // Act
            await Assert.ThrowsAnyAsync<OperationCanceledException>(
                () => scope.Lz4.ReadContentAsync(new ChunkedHttpContent(new byte[1000], 1000), new CancellationToken(canceled: true)));

            // Assert
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public async Task ReadContentAsync_AfterRelease_WorksUnpooledAndKeepsNothing()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            byte[] body = Compressible(200 * KiB, seed: 4);
            owner.Dispose();

            // Act
            using (PooledBuffer known = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None))
            using (PooledBuffer unknown = await scope.Lz4.ReadContentAsync(new ChunkedHttpContent(body, null), CancellationToken.None))
            {
                // Assert
                Assert.True(known.Span.SequenceEqual(body));
                Assert.True(unknown.Span.SequenceEqual(body));
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.True(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Unpooled) >= 2L * body.Length);
        }

        [Fact]
        public async Task ReadContentAsync_ThenDecodeAsRead_GivesTheOriginalAndEverythingBack()
        {
            // Arrange: the CloudFetch path end to end: download into a pooled array, decode as it is read
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(MiB, seed: 1);
            byte[] compressed = Lz4Frame(data, IndependentBlocks4MiB());

            // Act
            PooledBuffer download = await scope.Lz4.ReadContentAsync(new ChunkedHttpContent(compressed, compressed.Length), CancellationToken.None);
            byte[] decoded;
            using (Stream stream = scope.Lz4.DecodeAsRead(download))
            {
                decoded = ReadAll(stream, 81920);
            }

            // Assert
            Assert.Equal(data, decoded);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }
    }
}
