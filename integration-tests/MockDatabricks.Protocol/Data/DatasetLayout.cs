using System;
using System.Collections.Generic;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>A contiguous range of rows: one CloudFetch file, one record batch or one inline batch.</summary>
    public readonly record struct RowRange(int Index, long StartRow, long RowCount)
    {
        public long EndRow => StartRow + RowCount;
    }

    /// <summary>
    /// How a data set's rows are cut into files, computed from the spec alone (no data generated), so link
    /// row counts are known before any file is built.
    /// </summary>
    public sealed class DatasetLayout
    {
        public DatasetLayout(DatasetSpec spec)
        {
            spec.Validate();
            Spec = spec;
            long estimate = DatasetGenerator.EstimatedRowBytes(spec);
            RowsPerFile = spec.RowsPerFile ?? Math.Clamp(spec.TargetFileBytes / estimate, 1, int.MaxValue);
            FileCount = spec.Rows == 0 ? 0 : (int)((spec.Rows + RowsPerFile - 1) / RowsPerFile);
        }

        public DatasetSpec Spec { get; }

        public long RowsPerFile { get; }

        public int FileCount { get; }

        public RowRange File(int index)
        {
            if ((uint)index >= (uint)FileCount)
            {
                throw new ArgumentOutOfRangeException(nameof(index), $"File {index} outside 0..{FileCount - 1}.");
            }

            long start = index * RowsPerFile;
            return new RowRange(index, start, Math.Min(RowsPerFile, Spec.Rows - start));
        }

        /// <summary>The file that contains <paramref name="row"/>, or -1 past the end.</summary>
        public int FileContaining(long row) => row < 0 || row >= Spec.Rows ? -1 : (int)(row / RowsPerFile);

        /// <summary>Record batches of a file (each at most <see cref="DatasetSpec.RowsPerBatch"/> rows).</summary>
        public IEnumerable<RowRange> Batches(RowRange range)
        {
            int index = 0;
            for (long start = range.StartRow; start < range.EndRow; start += Spec.RowsPerBatch)
            {
                yield return new RowRange(index++, start, Math.Min(Spec.RowsPerBatch, range.EndRow - start));
            }
        }

        /// <summary>Inline batches of the whole result: the data set cut every <see cref="DatasetSpec.RowsPerBatch"/> rows.</summary>
        public long InlineBatchCount => (Spec.Rows + Spec.RowsPerBatch - 1) / Spec.RowsPerBatch;

        public RowRange InlineBatch(long index)
        {
            long start = index * Spec.RowsPerBatch;
            if (index < 0 || start >= Spec.Rows)
            {
                throw new ArgumentOutOfRangeException(nameof(index));
            }

            return new RowRange((int)index, start, Math.Min(Spec.RowsPerBatch, Spec.Rows - start));
        }
    }
}
