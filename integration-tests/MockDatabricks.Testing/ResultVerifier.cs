using System;
using System.Collections.Generic;
using Apache.Arrow;
using MockDatabricks.Protocol.Data;

namespace MockDatabricks.Testing
{
    /// <summary>Checks every value of a result, in order, against the data generator's formula.</summary>
    public static class ResultVerifier
    {
        /// <summary>Returns the number of rows checked; throws on the first difference with its row and column.</summary>
        public static long VerifyAllValues(IEnumerable<RecordBatch> batches, DatasetSpec spec, long firstRow = 0)
        {
            var generator = new DatasetGenerator(spec);
            string expectedSchema = ArrowValues.Describe(generator.Schema);
            long row = firstRow;
            foreach (RecordBatch batch in batches)
            {
                if (ArrowValues.Describe(batch.Schema) != expectedSchema)
                {
                    throw new InvalidOperationException($"Schema mismatch: expected {expectedSchema}, got {ArrowValues.Describe(batch.Schema)}.");
                }

                for (int i = 0; i < batch.Length; i++, row++)
                {
                    for (int column = 0; column < batch.ColumnCount; column++)
                    {
                        object? expected = generator.GetValue(row, column);
                        object? actual = ArrowValues.Get(batch.Column(column), i);
                        if (!ArrowValues.AreEqual(expected, actual))
                        {
                            throw new InvalidOperationException(
                                $"Row {row}, column {generator.Schema.FieldsList[column].Name}: expected {expected ?? "null"}, got {actual ?? "null"}.");
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
