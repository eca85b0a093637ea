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

                ArrowValues.CompareWithGenerator(batch, row, generator, difference => throw new InvalidOperationException(difference));
                row += batch.Length;
            }

            if (row - firstRow != spec.Rows - firstRow)
            {
                throw new InvalidOperationException($"Expected {spec.Rows - firstRow} rows, got {row - firstRow}.");
            }

            return row - firstRow;
        }
    }
}
