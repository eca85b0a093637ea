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
using Apache.Arrow;
using Apache.Arrow.Memory;

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
    /// slice the original's ownership, so the trimmed rows are cloned into buffers the new batch owns (once per trimmed
    /// batch: at most one per file), and the original is disposed.
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
            if (batch == null)
            {
                throw new ArgumentNullException(nameof(batch));
            }

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
                // The view owns nothing (disposing it frees nothing); its clone owns a copy of every buffer it reads.
                return batch.Slice(0, rows).Clone(allocator ?? MemoryAllocator.Default.Value);
            }
            finally
            {
                batch.Dispose();
            }
        }
    }
}
