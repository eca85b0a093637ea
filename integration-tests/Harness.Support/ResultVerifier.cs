using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using MockDatabricks.Protocol.Data;

namespace Harness.Support
{
    /// <summary>
    /// Reads a result stream to the end and checks every value (or every <c>sampleEvery</c>-th row) against the
    /// data set generator, so a lost batch, a reordered file or one corrupted byte is found, not just a wrong count.
    /// </summary>
    public sealed class ResultVerifier
    {
        private readonly DatasetGenerator _generator;
        private readonly int _sampleEvery;

        public ResultVerifier(DatasetSpec spec, int sampleEvery = 1)
        {
            _generator = new DatasetGenerator(spec);
            _sampleEvery = Math.Max(1, sampleEvery);
        }

        public long Rows { get; private set; }

        public long Batches { get; private set; }

        public long ValuesChecked { get; private set; }

        public List<string> Errors { get; } = new List<string>();

        /// <summary>From the first read to the first batch (or the end of the stream), in seconds.</summary>
        public double FirstBatchSeconds { get; private set; }

        /// <summary>
        /// The longest single wait for the next batch, in seconds: a pipeline stall (a download not started, a thread
        /// not available) shows here, where the total time only says the run was slow.
        /// </summary>
        public double LongestBatchWaitSeconds { get; private set; }

        /// <summary>
        /// False plays an application that never disposes its batches (it only drops them), so a measurement can
        /// show that the driver's memory stays bounded when the batches are left to the GC.
        /// </summary>
        public bool DisposeBatches { get; init; } = true;

        /// <summary>
        /// Stop after this many batches (null: read to the end), as an application that wants only the first rows does;
        /// the rows read are then checked, and reading fewer than the data set has is not an error.
        /// </summary>
        public long? StopAfterBatches { get; init; }

        public async Task ReadAllAsync(IArrowArrayStream stream)
        {
            var clock = Stopwatch.StartNew();
            while (true)
            {
                TimeSpan waitStart = clock.Elapsed;
                RecordBatch? batch = await stream.ReadNextRecordBatchAsync().ConfigureAwait(false);
                double waited = (clock.Elapsed - waitStart).TotalSeconds;
                LongestBatchWaitSeconds = Math.Max(LongestBatchWaitSeconds, waited);
                if (Batches == 0)
                {
                    FirstBatchSeconds = clock.Elapsed.TotalSeconds;
                }

                if (batch == null)
                {
                    break;
                }

                try
                {
                    Check(batch);
                }
                finally
                {
                    if (DisposeBatches)
                    {
                        batch.Dispose();
                    }
                }

                if (Batches == StopAfterBatches)
                {
                    return;
                }
            }

            if (Rows != _generator.Spec.Rows)
            {
                AddError($"read {Rows} rows, expected {_generator.Spec.Rows}");
            }
        }

        private void Check(RecordBatch batch)
        {
            Batches++;
            if (batch.ColumnCount != _generator.Schema.FieldsList.Count)
            {
                AddError($"batch {Batches} has {batch.ColumnCount} columns, expected {_generator.Schema.FieldsList.Count}");
                Rows += batch.Length;
                return;
            }

            ValuesChecked += ArrowValues.CompareWithGenerator(batch, Rows, _generator, AddError, _sampleEvery);
            Rows += batch.Length;
        }

        private void AddError(string error)
        {
            if (Errors.Count < 20)
            {
                Errors.Add(error);
            }
        }
    }
}
