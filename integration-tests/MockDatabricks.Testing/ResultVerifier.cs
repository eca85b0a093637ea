using System;
using System.Collections.Generic;
using MockDatabricks.Protocol.Arrow;
using MockDatabricks.Protocol.Data;

namespace MockDatabricks.Testing
{
    /// <summary>Checks every value of a result, in order, against the data generator.</summary>
    public static class ResultVerifier
    {
        /// <summary>Returns the number of rows checked; throws on the first difference with its row and column.</summary>
        public static long VerifyAllValues(IEnumerable<ArrowRecordBatchData> batches, DatasetSpec spec, long firstRow = 0)
        {
            var generator = new DatasetGenerator(spec);
            string expectedSchema = generator.Schema.ToString();
            long row = firstRow;
            foreach (ArrowRecordBatchData batch in batches)
            {
                if (batch.Schema.ToString() != expectedSchema)
                {
                    throw new InvalidOperationException($"Schema mismatch: expected {expectedSchema}, got {batch.Schema}.");
                }

                for (int i = 0; i < batch.Length; i++, row++)
                {
                    for (int column = 0; column < batch.Columns.Count; column++)
                    {
                        object? expected = generator.GetValue(row, column);
                        object? actual = batch.Columns[column].GetValue(i);
                        if (!Equals(expected, actual))
                        {
                            throw new InvalidOperationException(
                                $"Row {row}, column {generator.Schema.Fields[column].Name}: expected {expected ?? "null"}, got {actual ?? "null"}.");
                        }
                    }
                }
            }

            if (row - firstRow != spec.Rows - firstRow)
            {
                throw new InvalidOperationException($"Expected {spec.Rows - firstRow} rows, got {row - firstRow}.");
            }

            return row - firstRow;
        }
    }
}
