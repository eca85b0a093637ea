using System;
using System.Collections.Generic;
using Apache.Arrow;
using Apache.Arrow.Ipc;

namespace Lz4Benchmarks
{
    /// <summary>
    /// Checks the Arrow paths' batches against the batches of the original (never compressed) IPC stream that the
    /// mock's deterministic generator wrote: same count, and per column the same length, null count, offset and
    /// buffer bytes, children and dictionaries included. A decoder that got one byte wrong fails here.
    /// </summary>
    internal sealed class BatchComparison : IDisposable
    {
        private readonly string _path;
        private readonly List<RecordBatch> _expected = new List<RecordBatch>();
        private int _seen;

        public BatchComparison(string path, byte[] originalIpc)
        {
            _path = path;
            using var reader = new ArrowStreamReader(ArrowReadPaths.WithoutEndOfStreamMarker(originalIpc));
            while (reader.ReadNextRecordBatch() is RecordBatch batch)
            {
                _expected.Add(batch); // points into originalIpc, which outlives this object
            }
        }

        public int ExpectedBatches => _expected.Count;

        /// <summary>An observe callback for <see cref="ArrowReadPaths"/>: compares each batch while it lives.</summary>
        public void Observe(RecordBatch? batch)
        {
            if (batch == null)
            {
                return;
            }

            if (_seen >= _expected.Count)
            {
                throw Mismatch($"more than the {_expected.Count} batches of the original");
            }

            RecordBatch expected = _expected[_seen];
            if (batch.Length != expected.Length || batch.ColumnCount != expected.ColumnCount)
            {
                throw Mismatch($"batch {_seen} has {batch.Length} rows x {batch.ColumnCount} columns, expected {expected.Length} x {expected.ColumnCount}");
            }

            for (int c = 0; c < batch.ColumnCount; c++)
            {
                Compare(batch.Column(c).Data, expected.Column(c).Data, $"batch {_seen} column {c}");
            }

            _seen++;
        }

        /// <summary>Throws unless every batch of the original was seen.</summary>
        public void CheckComplete()
        {
            if (_seen != _expected.Count)
            {
                throw Mismatch($"{_seen} batches read, the original has {_expected.Count}");
            }
        }

        public void Dispose()
        {
            foreach (RecordBatch batch in _expected)
            {
                batch.Dispose();
            }
        }

        private void Compare(ArrayData actual, ArrayData expected, string where)
        {
            ArrayData[] actualChildren = actual.Children ?? System.Array.Empty<ArrayData>(); // null for arrays without children
            ArrayData[] expectedChildren = expected.Children ?? System.Array.Empty<ArrayData>();
            if (actual.Length != expected.Length || actual.NullCount != expected.NullCount || actual.Offset != expected.Offset
                || actual.Buffers.Length != expected.Buffers.Length || actualChildren.Length != expectedChildren.Length)
            {
                throw Mismatch($"{where}: shape differs");
            }

            for (int b = 0; b < actual.Buffers.Length; b++)
            {
                if (!actual.Buffers[b].Span.SequenceEqual(expected.Buffers[b].Span))
                {
                    throw Mismatch($"{where}: buffer {b} differs");
                }
            }

            for (int child = 0; child < actualChildren.Length; child++)
            {
                Compare(actualChildren[child], expectedChildren[child], $"{where} child {child}");
            }

            if ((actual.Dictionary == null) != (expected.Dictionary == null))
            {
                throw Mismatch($"{where}: dictionary presence differs");
            }

            if (actual.Dictionary != null)
            {
                Compare(actual.Dictionary, expected.Dictionary!, $"{where} dictionary");
            }
        }

        private InvalidOperationException Mismatch(string what) => new InvalidOperationException($"{_path} produced wrong batches: {what}");
    }
}
