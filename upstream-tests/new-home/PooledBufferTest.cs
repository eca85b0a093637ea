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
    /// A download in a pooled array (<see cref="PooledBuffer"/>) and the stream over an uncompressed CloudFetch file
    /// (<see cref="PooledBuffer.ToStream"/>): the array goes back exactly once, and neither the buffer nor the stream
    /// gives access to it after that, nor hands it out at all.
    /// </summary>
    public class PooledBufferTest
    {
        [Fact]
        public async Task ToStream_ReadThenDisposed_ReadsTheValidBytesAndGivesTheArrayBackOnce()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] body = Compressible(120_000, seed: 6); // the 128 KiB bucket
            PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(body), CancellationToken.None);
            byte[] array = buffer.Segment.Array!;

            // Act
            MemoryStream stream = buffer.ToStream();

            // Assert: Arrow (or anyone) reading the stream can never get hold of the pooled array, before or after disposal
            Assert.Equal(0, stream.Position);
            Assert.Equal(body.Length, stream.Length);
            Assert.False(stream.CanWrite);
            Assert.Equal(body, stream.ToArray());
            Assert.Equal(2 * MinArray, scope.BufferPool.InUseBytes);
            Assert.Throws<UnauthorizedAccessException>(() => stream.GetBuffer());
            Assert.False(stream.TryGetBuffer(out _));
            stream.Dispose();
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(2 * MinArray, scope.BufferPool.RetainedBytes);
            Assert.Throws<UnauthorizedAccessException>(() => stream.GetBuffer());
            Assert.False(stream.TryGetBuffer(out _));
            Assert.Throws<ObjectDisposedException>(() => stream.ToArray()); // MemoryStream's would copy the pooled array
            Assert.Throws<ObjectDisposedException>(() => buffer.Segment);
            Assert.Throws<ObjectDisposedException>(() => buffer.Span.Length);

            // disposing again (the stream, or the buffer itself) is harmless: the array went back exactly once
            stream.Dispose();
            buffer.Dispose();
            buffer.Dispose();
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(2 * MinArray, scope.BufferPool.RetainedBytes);
            Assert.Equal(2 * MinArray, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned));
            PooledArray next = scope.BufferPool.Rent(2 * MinArray);
            PooledArray another = scope.BufferPool.Rent(2 * MinArray);
            Assert.Same(array, next.Array);
            Assert.NotSame(array, another.Array);
        }

        [Fact]
        public async Task Dispose_Twice_GivesTheArrayBackOnceAndForbidsFurtherReads()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            PooledBuffer buffer = await scope.Lz4.ReadContentAsync(new ByteArrayContent(new byte[500]), CancellationToken.None);
            Assert.Equal(500, buffer.Segment.Count);

            // Act
            buffer.Dispose();
            buffer.Dispose();

            // Assert
            Assert.Equal(500, buffer.Length);
            Assert.Throws<ObjectDisposedException>(() => buffer.Segment);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(MinArray, scope.BufferPool.RetainedBytes);
        }

        // Stream.Read(Span<byte>) is .NET Core's: .NET Framework has no span read for the stream to override (Apache.Arrow
        // reads there through Read(byte[], int, int), which the tests above cover), so these two exist on .NET only.
#if NETCOREAPP2_1_OR_GREATER
        [Fact]
        public void ToStream_SpanReads_CopyStraightFromThePooledArrayWithoutRentingFromTheSharedPool()
        {
            // Arrange: Arrow's stream reader reads record batch bodies into native memory through Read(Span). A
            // MemoryStream subclass that does not override it rents a temporary array of the read's size from
            // ArrayPool<byte>.Shared, which keeps it per thread for the life of the process. 65 MB reads would rent from a
            // 128 MB bucket nothing else in this process uses, so any such rent shows as a 128 MB allocation.
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(65 * MiB, seed: 9);
            byte[] destination = new byte[data.Length];
            long allocated = 0;
            int read = 0;

            // Act: on a thread of its own, so that the allocation count is this read's alone
            Thread reader = new Thread(() =>
            {
                using Stream stream = Download(scope.BufferPool, data).ToStream();
                long before = GC.GetAllocatedBytesForCurrentThread();
                read = stream.Read(destination.AsSpan());
                read += stream.Read(destination.AsSpan(read));
                allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            });
            reader.Start();
            reader.Join();

            // Assert
            Assert.Equal(data.Length, read);
            Assert.True(data.AsSpan().SequenceEqual(destination), "the span read returned different bytes");
            Assert.InRange(allocated, 0, 64 * KiB);
        }

        [Fact]
        public void ToStream_SpanReads_HonourPositionAndDisposal()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            byte[] data = Compressible(1000, seed: 3);
            PooledArray rental = lease.Scope.BufferPool.Rent(data.Length);
            data.CopyTo(rental.Array, 0);
            Stream stream = new PooledBuffer(rental, 600).ToStream();
            byte[] buffer = new byte[500];

            // Act
            int first = stream.Read(buffer.AsSpan());
            int second = stream.Read(buffer.AsSpan());
            int third = stream.Read(buffer.AsSpan());

            // Assert
            Assert.Equal(500, first);
            Assert.Equal(100, second);
            Assert.Equal(0, third);
            Assert.True(data.AsSpan(500, 100).SequenceEqual(buffer.AsSpan(0, 100)), "the second read returned different bytes");
            stream.Dispose();
            Assert.Throws<ObjectDisposedException>(() => stream.Read(buffer.AsSpan()));
        }
#endif
    }
}
