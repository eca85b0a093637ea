using System.Runtime.CompilerServices;
using Apache.Arrow;
using Apache.Arrow.Types;
using static DriverOverlay.Tests.Memory.ArrowBatchData;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// Bodies Apache.Arrow's reader allocates and never disposes: one for a message it then finds truncated (it throws
    /// before making a batch), and a dictionary batch's (the reader keeps the dictionary and never disposes it). Both
    /// rentals are collected with their reader; the pool's in-use count then goes back to zero and the bytes show as
    /// collected, where before they stayed in use for good (the gauge drifted with every such body).
    /// </summary>
    public class UnreturnedBodyTests
    {
        private const string ArrowBatches = DatabricksMemoryMetricNames.ArrowBatchesPool;
        private const int DictionarySize = 10_000;

        [Fact]
        public void ABodyAllocatedForATruncatedMessageIsCountedAsCollectedOnceTheReaderIsGone()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            byte[] stream = ArrowBatchData.Stream(batches: 2, rows: 20_000);
            byte[] truncated = stream.AsSpan(0, stream.Length - 100_000).ToArray(); // inside the second batch's body

            ReadUntilTheTruncation(truncated, scope);
            Assert.NotEqual(0, scope.ArrowBatchPool.InUseBytes); // the reader's rental for the cut body, never disposed
            FullCollect();

            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse, ArrowBatches));
            Assert.True(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Collected, ArrowBatches) > 0);
            Assert.Equal(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented, ArrowBatches), metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned, ArrowBatches) + metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Collected, ArrowBatches));
        }

        [Fact]
        public void ADictionaryBatchBodyIsCountedAsCollectedOnceTheReaderIsGone()
        {
            using var metrics = new MemoryMetricsRecorder();
            using DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;

            OnOwnThread(() => ReadDictionaryEncoded(DictionaryStream(), scope));
            FullCollect();

            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            Assert.True(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Collected, ArrowBatches) > 0, "the dictionary's body was never rented from the scope");
            Assert.Equal(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented, ArrowBatches), metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned, ArrowBatches) + metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Collected, ArrowBatches));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ReadUntilTheTruncation(byte[] truncated, DatabricksMemoryScope scope)
        {
            using var reader = new ArrowStreamReader(new MemoryStream(truncated), scope.BatchAllocator);
            using (RecordBatch first = reader.ReadNextRecordBatch())
            {
                AssertValues(first, 0, 20_000);
            }

            Assert.ThrowsAny<Exception>(() => reader.ReadNextRecordBatch());
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void ReadDictionaryEncoded(byte[] stream, DatabricksMemoryScope scope)
        {
            using var reader = new ArrowStreamReader(new MemoryStream(stream), scope.BatchAllocator);
            using RecordBatch batch = reader.ReadNextRecordBatch();
            var column = (DictionaryArray)batch.Column(0);
            var dictionary = (StringArray)column.Dictionary;
            var indices = (Int32Array)column.Indices;
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
            var values = new StringArray.Builder();
            for (int i = 0; i < DictionarySize; i++)
            {
                values.Append(DictionaryValue(i));
            }

            var indices = new Int32Array.Builder();
            for (int row = 0; row < 50_000; row++)
            {
                indices.Append(row % DictionarySize);
            }

            var type = new DictionaryType(Int32Type.Default, StringType.Default, false);
            var column = new DictionaryArray(type, indices.Build(), values.Build());
            var schema = new Schema.Builder().Field(f => f.Name("label").DataType(type).Nullable(false)).Build();
            using var batch = new RecordBatch(schema, new IArrowArray[] { column }, 50_000);
            using var output = new MemoryStream();
            using (var writer = new ArrowStreamWriter(output, schema, leaveOpen: true))
            {
                writer.WriteRecordBatch(batch);
                writer.WriteEnd();
            }

            return output.ToArray();
        }
    }
}
