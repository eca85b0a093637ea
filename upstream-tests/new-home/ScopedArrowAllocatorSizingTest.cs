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
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The size of what the scope's allocator (<see cref="ScopedArrowAllocator"/>) hands out: an application that keeps
    /// the batches it reads (materialising a result, as the driver's own ReadAllBatches does) holds at most 1.25x the
    /// bytes of their bodies in pooled arrays. Power-of-two buckets, with a rent taking a free array up to two buckets
    /// larger, held 2x here and up to 8x at worst.
    /// </summary>
    public class ScopedArrowAllocatorSizingTest
    {
        private const double Limit = 1.25;

        [Fact]
        public void ReadNextRecordBatch_KeptBatchesOfManySizes_HoldAtMostAQuarterMoreThanTheirBodies()
        {
            // Arrange: bodies from ~40 KB to ~3.5 MB (about 25 bytes a row), sizes anywhere between two powers of two
            Random random = new Random(20261124);
            int[] rowCounts = Enumerable.Range(0, 40).Select(_ => random.Next(1_500, 140_000)).ToArray();
            byte[] stream = IpcStream(rowCounts);
            long bodies = BodyBytes(stream);
            using DatabricksMemoryLease owner = CreateScope();
            // Returned arrays of every size are free in the pool first, as after earlier queries, so a rent could take a larger one.
            ReadAll(stream, owner.Scope.BatchAllocator).ForEach(batch => batch.Dispose());

            // Act
            List<RecordBatch> kept = ReadAll(stream, owner.Scope.BatchAllocator);

            // Assert
            for (int i = 0; i < kept.Count; i++)
            {
                AssertValues(kept[i], i, rowCounts[i]);
            }

            long held = owner.Scope.ArrowBatchPool.InUseBytes + UnpooledBytes(kept);
            Assert.True(held <= Limit * bodies, $"kept batches hold {held:N0} bytes for {bodies:N0} bytes of bodies ({(double)held / bodies:F2}x)");
            kept.ForEach(batch => batch.Dispose());
            Assert.Equal(0, owner.Scope.ArrowBatchPool.InUseBytes);
        }

        [Theory]
        [InlineData(1)]
        [InlineData(1_000)]
        [InlineData(65_535)]
        [InlineData(65_537)]
        [InlineData(81_921)]
        [InlineData(3_000_001)]
        public void Allocate_AnySize_GivesAtMostAQuarterMoreThanAskedAndSmallBodiesExactly(int length)
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            MemoryAllocator allocator = owner.Scope.BatchAllocator;
            long before = allocator.Statistics.BytesAllocated;

            // Act
            using IMemoryOwner<byte> body = allocator.Allocate(length);

            // Assert
            Assert.Equal(length, body.Memory.Length);
            long given = allocator.Statistics.BytesAllocated - before;
            Assert.InRange(given, length, (long)(Limit * length));
            if (length < Lz4BufferPool.MinimumArrayLength)
            {
                Assert.Equal(length, given);
            }
        }

        /// <summary>What the bodies of the stream's batches ask for, read with a recording allocator (the real request sizes).</summary>
        private static long BodyBytes(byte[] stream)
        {
            RecordingAllocator recorder = new RecordingAllocator();
            ReadAll(stream, recorder).ForEach(batch => batch.Dispose());
            return recorder.Requested;
        }

        private static List<RecordBatch> ReadAll(byte[] stream, MemoryAllocator allocator)
        {
            List<RecordBatch> batches = new List<RecordBatch>();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(stream), allocator);
            RecordBatch? batch;
            while ((batch = reader.ReadNextRecordBatch()) != null)
            {
                batches.Add(batch);
            }

            return batches;
        }

        /// <summary>Bodies below the smallest pooled array are exact unpooled arrays: not in the pool's in-use count.</summary>
        private static long UnpooledBytes(List<RecordBatch> batches) =>
            batches.Select(BodyArrayOf).Where(array => array.Length < Lz4BufferPool.MinimumArrayLength).Sum(array => (long)array.Length);

        private sealed class RecordingAllocator : MemoryAllocator
        {
            public long Requested { get; private set; }

            protected override IMemoryOwner<byte> AllocateInternal(int length, out int bytesAllocated)
            {
                Requested += length;
                bytesAllocated = length;
                return MemoryPool<byte>.Shared.Rent(length);
            }
        }
    }
}
