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
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using Apache.Arrow.Types;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// A batch trimmed to a link's row count (<see cref="RecordBatchTrimming.FirstRows"/>) stays readable for as long as
    /// the application keeps it, and gives its memory back when disposed. The readers used to return
    /// <c>batch.Slice(...)</c> and dispose the batch, leaving the slice on a freed body.
    /// </summary>
    public class RecordBatchTrimmingTest
    {
        private const int Rows = 20_000;

        private static readonly byte[] s_threeBatches = IpcStream(batches: 3, Rows);

        [Fact]
        public void FirstRows_ScopedAllocatorBatch_StaysReadableAfterTheOriginalsBodyIsReused()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            byte[] body = BodyArrayOf(first);

            // Act
            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(first, 1234, owner.Scope.BatchAllocator);
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            Assert.Same(body, BodyArrayOf(second)); // the original's body went back to the pool and was reused
            AssertValues(trimmed, 0, 1234);
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public void SliceThenDispose_WhatTheReadersDidBefore_LeavesABatchThatCannotBeRead()
        {
            // The behaviour FirstRows replaces, kept as a test so that a change in Apache.Arrow (a slice that shares
            // ownership) shows here and the copy can be reconsidered.
            using DatabricksMemoryLease owner = CreateScope();
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator);
            RecordBatch first = reader.ReadNextRecordBatch();
            RecordBatch slice = first.Slice(0, 1234);

            first.Dispose();

            Assert.Throws<ObjectDisposedException>(() => ((Int64Array)slice.Column(0)).GetValue(0));
        }

        [Fact]
        public void FirstRows_TrimmedBatchDisposed_GivesEveryByteBack()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();
            Lz4BufferPool pool = owner.Scope.ArrowBatchPool;
            using (ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches), owner.Scope.BatchAllocator))
            {
                // Act
                RecordBatch trimmed = RecordBatchTrimming.FirstRows(reader.ReadNextRecordBatch(), 15_000, owner.Scope.BatchAllocator);
                Assert.True(pool.InUseBytes > 0, "the trimmed batch's own buffers come from the scope");
                trimmed.Dispose();
            }

            // Assert
            Assert.Equal(0, pool.InUseBytes);
        }

        [Fact]
        public void FirstRows_BatchWithNoMoreRowsThanAsked_IsReturnedAsItIs()
        {
            // Arrange
            using RecordBatch batch = Batch(0, 100);

            // Act and assert
            Assert.Same(batch, RecordBatchTrimming.FirstRows(batch, 100, MemoryAllocator.Default.Value));
            Assert.Same(batch, RecordBatchTrimming.FirstRows(batch, 1000, MemoryAllocator.Default.Value));
            AssertValues(batch, 0, 100);
        }

        [Fact]
        public void FirstRows_ApacheArrowsOwnAllocator_TrimmedBatchIsReadableAfterTheNextBatch()
        {
            // Arrange
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches));

            // Act
            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(reader.ReadNextRecordBatch(), 999, MemoryAllocator.Default.Value);
            using RecordBatch second = reader.ReadNextRecordBatch();

            // Assert
            AssertValues(trimmed, 0, 999);
            AssertValues(second, 1, Rows);
        }

        [Fact]
        public void FirstRows_TenOfTwentyThousandRows_KeepsOnlyTheTenRowsBytes()
        {
            // Arrange
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(s_threeBatches));
            RecordBatch first = reader.ReadNextRecordBatch();
            long originalBytes = BufferBytes(first);

            // Act
            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(first, 10, MemoryAllocator.Default.Value);

            // Assert: ten ids (80 bytes), eleven offsets (44), ten short labels and a validity byte, each buffer padded
            // to 64 bytes by Apache.Arrow: far under a kilobyte, where the original holds hundreds
            AssertValues(trimmed, 0, 10);
            Assert.True(originalBytes > 200 * KiB, $"the original holds {originalBytes} bytes");
            Assert.True(BufferBytes(trimmed) < 1 * KiB, $"the trimmed batch holds {BufferBytes(trimmed)} bytes");
        }

        [Fact]
        public void FirstRows_NestedAndBooleanColumns_KeepTheFirstRowsValuesInTheirOwnBytes()
        {
            // Arrange: a list, a struct and a boolean column, the other layouts a result can hold
            const int AllRows = 5000;
            const int Kept = 7;
            ListArray.Builder lists = new ListArray.Builder(Int32Type.Default);
            Int32Array.Builder listValues = (Int32Array.Builder)lists.ValueBuilder;
            Int32Array.Builder numbers = new Int32Array.Builder();
            StringArray.Builder names = new StringArray.Builder();
            BooleanArray.Builder flags = new BooleanArray.Builder();
            for (int row = 0; row < AllRows; row++)
            {
                lists.Append();
                for (int item = 0; item < row % 4; item++)
                {
                    listValues.Append((row * 10) + item);
                }

                numbers.Append(row * 3);
                names.Append($"name-{row}");
                flags.Append(row % 3 == 0);
            }

            StructType pairType = new StructType(new[] { new Field("number", Int32Type.Default, false), new Field("name", StringType.Default, false) });
            StructArray pairs = new StructArray(pairType, AllRows, new IArrowArray[] { numbers.Build(), names.Build() }, ArrowBuffer.Empty);
            Schema schema = new Schema.Builder()
                .Field(new Field("list", new ListType(Int32Type.Default), true))
                .Field(new Field("pair", pairType, true))
                .Field(new Field("flag", BooleanType.Default, false))
                .Build();
            RecordBatch batch = new RecordBatch(schema, new IArrowArray[] { lists.Build(), pairs, flags.Build() }, AllRows);
            long originalBytes = BufferBytes(batch);

            // Act
            using RecordBatch trimmed = RecordBatchTrimming.FirstRows(batch, Kept, MemoryAllocator.Default.Value);

            // Assert
            Assert.Equal(Kept, trimmed.Length);
            ListArray keptLists = (ListArray)trimmed.Column(0);
            StructArray keptPairs = (StructArray)trimmed.Column(1);
            BooleanArray keptFlags = (BooleanArray)trimmed.Column(2);
            for (int row = 0; row < Kept; row++)
            {
                int[] expected = Enumerable.Range(0, row % 4).Select(item => (row * 10) + item).ToArray();
                Assert.Equal(expected, ((Int32Array)keptLists.GetSlicedValues(row)).Values.ToArray());
                Assert.Equal(row * 3, ((Int32Array)keptPairs.Fields[0]).GetValue(row));
                Assert.Equal($"name-{row}", ((StringArray)keptPairs.Fields[1]).GetString(row));
                Assert.Equal(row % 3 == 0, keptFlags.GetValue(row));
            }

            Assert.True(originalBytes > 50 * KiB, $"the original holds {originalBytes} bytes");
            Assert.True(BufferBytes(trimmed) < 2 * KiB, $"the trimmed batch holds {BufferBytes(trimmed)} bytes");
        }

        /// <summary>Bytes of every buffer of every column, children included.</summary>
        private static long BufferBytes(RecordBatch batch) => batch.Arrays.Sum(array => BufferBytes(array.Data));

        private static long BufferBytes(ArrayData data) =>
            data.Buffers.Sum(buffer => (long)buffer.Length) + (data.Children ?? System.Array.Empty<ArrayData>()).Sum(BufferBytes);
    }
}
