using System;
using System.Collections.Generic;
using Apache.Arrow;
using MockDatabricks.Protocol.Data;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>
    /// Rows as TRowSet.columns (COLUMN_BASED_SET), what a warehouse answers a client that sent canReadArrowResult=false:
    /// BIGINT as i64Val, INT as i32Val, DOUBLE as doubleVal, BOOLEAN as boolVal, and every other type (STRING, DECIMAL,
    /// TIMESTAMP, DATE) as stringVal in its <see cref="HiveStrings"/> form. A null travels as a set bit in the column's
    /// bitmap with a placeholder value (0, false, ""); the bitmap is Hive's: 1 + (index of the last null + 1) / 8
    /// bytes, so a column without nulls has one zero byte (clients read missing bytes as "not null").
    /// </summary>
    public static class ColumnBasedSet
    {
        public static List<TColumn> From(RecordBatch batch)
        {
            var columns = new List<TColumn>(batch.ColumnCount);
            for (int i = 0; i < batch.ColumnCount; i++)
            {
                IArrowArray array = batch.Column(i);
                byte[] nulls = NullBitmap(array);
                columns.Add(array switch
                {
                    Int64Array a => new TColumn { I64Val = new TI64Column(Values(a, 0L, (x, j) => x.GetValue(j)!.Value), nulls) },
                    Int32Array a => new TColumn { I32Val = new TI32Column(Values(a, 0, (x, j) => x.GetValue(j)!.Value), nulls) },
                    DoubleArray a => new TColumn { DoubleVal = new TDoubleColumn(Values(a, 0d, (x, j) => x.GetValue(j)!.Value), nulls) },
                    BooleanArray a => new TColumn { BoolVal = new TBoolColumn(Values(a, false, (x, j) => x.GetValue(j)!.Value), nulls) },
                    StringArray a => new TColumn { StringVal = new TStringColumn(Values(a, string.Empty, (x, j) => x.GetString(j)), nulls) },
                    _ => new TColumn { StringVal = new TStringColumn(Values(ResultTypes.ToStrings(array), string.Empty, (x, j) => x.GetString(j)), nulls) },
                });
            }

            return columns;
        }

        /// <summary>Whether row <paramref name="row"/> is null in a Hive null bitmap (a byte past its end means "not null").</summary>
        public static bool IsNull(byte[] nulls, int row) => row / 8 < nulls.Length && (nulls[row / 8] & (1 << (row % 8))) != 0;

        private static List<T> Values<TArray, T>(TArray array, T placeholder, Func<TArray, int, T> value)
            where TArray : IArrowArray
        {
            var values = new List<T>(array.Length);
            for (int j = 0; j < array.Length; j++)
            {
                values.Add(array.IsNull(j) ? placeholder : value(array, j));
            }

            return values;
        }

        private static byte[] NullBitmap(IArrowArray array)
        {
            int last = -1;
            for (int j = 0; j < array.Length; j++)
            {
                if (array.IsNull(j))
                {
                    last = j;
                }
            }

            byte[] nulls = new byte[1 + ((last + 1) / 8)];
            for (int j = 0; j <= last; j++)
            {
                if (array.IsNull(j))
                {
                    nulls[j / 8] |= (byte)(1 << (j % 8));
                }
            }

            return nulls;
        }
    }
}
