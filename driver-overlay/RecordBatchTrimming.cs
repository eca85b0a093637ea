/*
* Licensed to the Apache Software Foundation (ASF) under one or more
* contributor license agreements.  See the NOTICE file distributed with
* this work for additional information regarding copyright ownership.
* The ASF licenses this file to You under the Apache License, Version 2.0
* (the "License"); you may not use this file except in compliance with
* the License.  You may obtain a copy of the License at
*
*    http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Memory;
using Apache.Arrow.Types;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Trims a record batch to its first rows without leaving the result pointing at freed memory.
    /// </summary>
    /// <remarks>
    /// A batch read by <c>ArrowStreamReader</c> owns one body for all its columns; <c>RecordBatch.Slice</c> makes views
    /// into that body that own nothing. Slicing and then disposing the original (what the readers did when a link's
    /// rowCount is smaller than its file's rows, upstream #126) frees the body under the slice: Apache.Arrow's native
    /// allocator then reads freed memory (a NullReferenceException, or another batch's bytes), the scope's allocator
    /// throws <see cref="ObjectDisposedException"/> on first access. Apache.Arrow's public API has no way to hand a
    /// slice the original's ownership, so the kept rows are copied into buffers the new batch owns (once per trimmed
    /// batch: at most one per file), and the original is disposed. Only the kept rows' bytes are copied: a slice's
    /// <c>Clone</c> copies every buffer whole, so a batch trimmed to 10 of 20,000 rows kept the original's size.
    /// </remarks>
    internal static class RecordBatchTrimming
    {
        /// <summary>
        /// The first <paramref name="rows"/> rows of <paramref name="batch"/> as a batch that owns its memory (from
        /// <paramref name="allocator"/>, or Apache.Arrow's default when null). <paramref name="batch"/> is consumed: disposed here, or returned as is when it
        /// has no more rows than that.
        /// </summary>
        public static RecordBatch FirstRows(RecordBatch batch, int rows, MemoryAllocator? allocator)
        {
            _ = batch ?? throw new ArgumentNullException(nameof(batch));
            if (rows < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(rows), rows, "must not be negative");
            }

            if (rows >= batch.Length)
            {
                return batch;
            }

            try
            {
                MemoryAllocator owner = allocator ?? MemoryAllocator.Default.Value;
                var columns = new IArrowArray[batch.ColumnCount];
                for (int i = 0; i < columns.Length; i++)
                {
                    columns[i] = ArrowArrayFactory.BuildArray(FirstRows(batch.Column(i).Data, rows, owner));
                }

                return new RecordBatch(batch.Schema, columns, rows);
            }
            finally
            {
                batch.Dispose();
            }
        }

        /// <summary>
        /// A copy of the first <paramref name="length"/> values of <paramref name="data"/>: for the layouts a CloudFetch
        /// file holds (fixed width and boolean, variable-size binary and strings, lists and maps, structs, fixed-size
        /// lists), just the bytes those values use; any other layout, or data that does not start at offset 0, copied
        /// whole through Apache.Arrow's own clone.
        /// </summary>
        private static ArrayData FirstRows(ArrayData data, int length, MemoryAllocator allocator)
        {
            if (data.Offset != 0 || data.Dictionary != null)
            {
                return data.Slice(0, length).Clone(allocator);
            }

            IArrowType type = data.DataType;
            int nullCount = data.Slice(0, length).GetNullCount();
            ArrowBuffer validity = Bits(data.Buffers[0], length, allocator);
            switch (type)
            {
                case BooleanType _:
                    return new ArrayData(type, length, nullCount, 0, new[] { validity, Bits(data.Buffers[1], length, allocator) });
                case FixedWidthType fixedWidth when fixedWidth.BitWidth % 8 == 0:
                    return new ArrayData(type, length, nullCount, 0, new[] { validity, Bytes(data.Buffers[1], length * (fixedWidth.BitWidth / 8), allocator) });
                case BinaryType _:
                case StringType _:
                {
                    int end = data.Buffers[1].Span.CastTo<int>()[length];
                    return new ArrayData(type, length, nullCount, 0, new[] { validity, Bytes(data.Buffers[1], (length + 1) * sizeof(int), allocator), Bytes(data.Buffers[2], end, allocator) });
                }

                case ListType _:
                case MapType _:
                {
                    int end = data.Buffers[1].Span.CastTo<int>()[length];
                    ArrayData values = FirstRows(data.Children[0], end, allocator);
                    return new ArrayData(type, length, nullCount, 0, new[] { validity, Bytes(data.Buffers[1], (length + 1) * sizeof(int), allocator) }, new[] { values });
                }

                case FixedSizeListType fixedSizeList:
                    return new ArrayData(type, length, nullCount, 0, new[] { validity }, new[] { FirstRows(data.Children[0], length * fixedSizeList.ListSize, allocator) });
                case StructType _:
                    return new ArrayData(type, length, nullCount, 0, new[] { validity }, data.Children.Select(child => FirstRows(child, length, allocator)).ToArray());

                default:
                    validity.Dispose();
                    return data.Slice(0, length).Clone(allocator);
            }
        }

        /// <summary>The first <paramref name="length"/> bits of a bitmap (a validity bitmap may be empty: no nulls).</summary>
        private static ArrowBuffer Bits(ArrowBuffer bitmap, int length, MemoryAllocator allocator) =>
            bitmap.IsEmpty ? ArrowBuffer.Empty : Bytes(bitmap, (length + 7) / 8, allocator);

        private static ArrowBuffer Bytes(ArrowBuffer buffer, int length, MemoryAllocator allocator) =>
            length == 0 ? ArrowBuffer.Empty : new ArrowBuffer.Builder<byte>(length).Append(buffer.Span.Slice(0, length)).Build(allocator);
    }
}
