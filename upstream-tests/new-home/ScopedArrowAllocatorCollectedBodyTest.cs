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
using System.Runtime.CompilerServices;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Apache.Arrow.Types;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// Batch bodies nobody disposes (<see cref="ScopedArrowAllocator"/>): a batch the application never disposes, a body
    /// Apache.Arrow's reader allocates for a message it then finds truncated, and a dictionary batch's body (the reader
    /// keeps the dictionary and never disposes it). Each is collected with what references it (the scope, its pool and
    /// its allocator hold no strong reference to what they lent out), and the pool's in-use count then goes back to zero
    /// with the bytes counted as collected, instead of drifting upwards with every such body.
    /// </summary>
    public class ScopedArrowAllocatorCollectedBodyTest
    {
        private const string ArrowBatches = DatabricksMemoryMetricNames.ArrowBatchesPool;
        private const int DictionarySize = 10_000;

        [Fact]
        public void ReadNextRecordBatch_BatchNeverDisposed_IsCollectedWithItsArrayWhileTheScopeLives()
        {
            // Arrange
            using DatabricksMemoryLease owner = CreateScope();

            // Act
            WeakReference batch = null!;
            WeakReference body = null!;
            OnOwnThread(() => (batch, body) = ReadAndForget(owner.Scope));
            FullCollect();

            // Assert
            Assert.False(batch.IsAlive, "the undisposed batch is still reachable");
            Assert.False(body.IsAlive, "the undisposed batch's pooled array is still reachable");
            Assert.False(owner.Scope.IsReleased); // the scope lives on and never got the array back
            Assert.Equal(0, owner.Scope.ArrowBatchPool.RetainedBytes);
        }

        [Fact]
        public void ReadNextRecordBatch_TruncatedMessage_ItsBodyIsCountedAsCollectedOnceTheReaderIsGone()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            byte[] stream = IpcStream(batches: 2, rows: 20_000);
            byte[] truncated = new byte[stream.Length - 100_000]; // inside the second batch's body
            Buffer.BlockCopy(stream, 0, truncated, 0, truncated.Length);

            // Act
            ReadUntilTheTruncation(truncated, scope);
            long inUseBeforeCollection = scope.ArrowBatchPool.InUseBytes;
            FullCollect();

            // Assert
            Assert.NotEqual(0, inUseBeforeCollection); // the reader's rental for the cut body, never disposed
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse, ArrowBatches));
            Assert.True(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Collected, ArrowBatches) > 0);
            AssertRentalsAccountedFor(metrics, scope);
        }

        [Fact]
        public void ReadNextRecordBatch_DictionaryBatch_ItsBodyIsCountedAsCollectedOnceTheReaderIsGone()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;

            // Act
            OnOwnThread(() => ReadDictionaryEncoded(DictionaryStream(), scope));
            FullCollect();

            // Assert
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            Assert.True(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Collected, ArrowBatches) > 0, "the dictionary's body was never rented from the scope");
            AssertRentalsAccountedFor(metrics, scope);
        }

        /// <summary>Every rental either came back or was collected.</summary>
        private static void AssertRentalsAccountedFor(DbxmemMetricsRecorder metrics, DatabricksMemoryScope scope) =>
            Assert.Equal(
                metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented, ArrowBatches),
                metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned, ArrowBatches) + metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Collected, ArrowBatches));

        /// <summary>In its own frame, so that no local of the test keeps the batch alive.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static (WeakReference Batch, WeakReference Body) ReadAndForget(DatabricksMemoryScope scope)
        {
            RecordBatch batch = ReadOne(IpcStream(batches: 1, rows: 10_000), scope.BatchAllocator);
            AssertValues(batch, 0, 10_000);
            return (new WeakReference(batch), new WeakReference(BodyArrayOf(batch)));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ReadUntilTheTruncation(byte[] truncated, DatabricksMemoryScope scope)
        {
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(truncated), scope.BatchAllocator);
            using (RecordBatch first = reader.ReadNextRecordBatch())
            {
                AssertValues(first, 0, 20_000);
            }

            Assert.ThrowsAny<Exception>(() => reader.ReadNextRecordBatch());
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ReadDictionaryEncoded(byte[] stream, DatabricksMemoryScope scope)
        {
            using ArrowStreamReader reader = new ArrowStreamReader(new MemoryStream(stream), scope.BatchAllocator);
            using RecordBatch batch = reader.ReadNextRecordBatch();
            DictionaryArray column = (DictionaryArray)batch.Column(0);
            StringArray dictionary = (StringArray)column.Dictionary;
            Int32Array indices = (Int32Array)column.Indices;
            for (int row = 0; row < batch.Length; row++)
            {
                Assert.Equal(DictionaryValue(row % DictionarySize), dictionary.GetString(indices.GetValue(row)!.Value));
            }
        }

        private static string DictionaryValue(int index) => $"dictionary-value-{index:D10}";

        /// <summary>
        /// One batch of 50,000 rows whose column is dictionary-encoded over <see cref="DictionarySize"/> strings: a
        /// dictionary body of ~300 KB, a pooled size (smaller bodies are exact unpooled arrays, outside the pool's count).
        /// </summary>
        private static byte[] DictionaryStream()
        {
            StringArray.Builder values = new StringArray.Builder();
            for (int i = 0; i < DictionarySize; i++)
            {
                values.Append(DictionaryValue(i));
            }

            Int32Array.Builder indices = new Int32Array.Builder();
            for (int row = 0; row < 50_000; row++)
            {
                indices.Append(row % DictionarySize);
            }

            DictionaryType type = new DictionaryType(Int32Type.Default, StringType.Default, false);
            DictionaryArray column = new DictionaryArray(type, indices.Build(), values.Build());
            Schema schema = new Schema.Builder().Field(f => f.Name("label").DataType(type).Nullable(false)).Build();
            using RecordBatch batch = new RecordBatch(schema, new IArrowArray[] { column }, 50_000);
            using MemoryStream output = new MemoryStream();
            using (ArrowStreamWriter writer = new ArrowStreamWriter(output, schema, leaveOpen: true))
            {
                writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }

            return output.ToArray();
        }
    }
}
