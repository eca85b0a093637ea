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
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Memory;
using Apache.Arrow.Types;
using Xunit;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// Arrow IPC streams whose every value follows from (batch number, row), written by Apache.Arrow's own writer, so a
    /// test can read them back through the driver and check each value of each batch.
    /// </summary>
    internal static class DbxmemArrowData
    {
        public static readonly Schema Schema = new Schema.Builder()
            .Field(f => f.Name("id").DataType(Int64Type.Default).Nullable(false))
            .Field(f => f.Name("label").DataType(StringType.Default).Nullable(true))
            .Build();

        public static long IdOf(int batch, int row) => (batch * 1_000_003L) + row;

        /// <summary>Every seventh row is null, so the validity bitmap is checked too.</summary>
        public static string? LabelOf(int batch, int row) => row % 7 == 3 ? null : $"b{batch}-r{row}";

        public static RecordBatch Batch(int batch, int rows)
        {
            Int64Array.Builder ids = new Int64Array.Builder();
            StringArray.Builder labels = new StringArray.Builder();
            for (int row = 0; row < rows; row++)
            {
                ids.Append(IdOf(batch, row));
                string? label = LabelOf(batch, row);
                if (label == null)
                {
                    labels.AppendNull();
                }
                else
                {
                    labels.Append(label);
                }
            }

            return new RecordBatch(Schema, new IArrowArray[] { ids.Build(), labels.Build() }, rows);
        }

        /// <summary>An IPC stream of <paramref name="batches"/> batches of <paramref name="rows"/> rows, numbered from <paramref name="firstBatch"/>.</summary>
        public static byte[] IpcStream(int batches, int rows, int firstBatch = 0)
        {
            int[] rowCounts = new int[batches];
            for (int i = 0; i < batches; i++)
            {
                rowCounts[i] = rows;
            }

            return IpcStream(rowCounts, firstBatch);
        }

        /// <summary>An IPC stream of one batch per entry of <paramref name="rowCounts"/>, numbered from <paramref name="firstBatch"/>.</summary>
        public static byte[] IpcStream(int[] rowCounts, int firstBatch = 0)
        {
            using (MemoryStream output = new MemoryStream())
            {
                using (ArrowStreamWriter writer = new ArrowStreamWriter(output, Schema, leaveOpen: true))
                {
                    for (int i = 0; i < rowCounts.Length; i++)
                    {
                        using (RecordBatch batch = Batch(firstBatch + i, rowCounts[i]))
                        {
                            writer.WriteRecordBatch(batch);
                        }
                    }

                    writer.WriteEnd();
                }

                return output.ToArray();
            }
        }

        /// <summary>Reads the first batch of <paramref name="stream"/> with <paramref name="allocator"/>.</summary>
        public static RecordBatch ReadOne(byte[] stream, MemoryAllocator allocator)
        {
            using (ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(stream), allocator))
            {
                return reader.ReadNextRecordBatch() ?? throw new InvalidDataException("the stream has no batch");
            }
        }

        /// <summary>Asserts every value of <paramref name="batch"/> against the generator.</summary>
        public static void AssertValues(RecordBatch batch, int batchNumber, int rows)
        {
            Assert.Equal(rows, batch.Length);
            Int64Array ids = (Int64Array)batch.Column(0);
            StringArray labels = (StringArray)batch.Column(1);
            for (int row = 0; row < rows; row++)
            {
                Assert.Equal(IdOf(batchNumber, row), ids.GetValue(row));
                Assert.Equal(LabelOf(batchNumber, row), labels.GetString(row));
            }
        }
    }
}
