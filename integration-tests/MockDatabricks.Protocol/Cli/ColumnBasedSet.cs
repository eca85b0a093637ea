using System;
using System.Collections.Generic;
using System.Linq;
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

        /// <summary>
        /// Rows of SQL-typed columns (SQL results, metadata answers) by their values: BOOLEAN boolVal, TINYINT byteVal,
        /// SMALLINT i16Val, INT i32Val, BIGINT i64Val, FLOAT and DOUBLE doubleVal, BINARY binaryVal, everything else
        /// stringVal in its warehouse text (<see cref="SqlValues.ToHiveString"/>).
        /// </summary>
        public static List<TColumn> From(IReadOnlyList<SqlField> fields, Func<long, int, object?> value, long start, int count)
        {
            var columns = new List<TColumn>(fields.Count);
            for (int c = 0; c < fields.Count; c++)
            {
                SqlType type = fields[c].Type;
                object?[] values = new object?[count];
                for (int i = 0; i < count; i++)
                {
                    values[i] = value(start + i, c);
                }

                byte[] nulls = NullBitmap(values.Select(v => v == null).ToArray());
                columns.Add(type.Kind switch
                {
                    SqlTypeKind.Boolean => new TColumn { BoolVal = new TBoolColumn(Typed(values, false), nulls) },
                    SqlTypeKind.TinyInt => new TColumn { ByteVal = new TByteColumn(Typed(values, (sbyte)0), nulls) },
                    SqlTypeKind.SmallInt => new TColumn { I16Val = new TI16Column(Typed(values, (short)0), nulls) },
                    SqlTypeKind.Int => new TColumn { I32Val = new TI32Column(Typed(values, 0), nulls) },
                    SqlTypeKind.BigInt => new TColumn { I64Val = new TI64Column(Typed(values, 0L), nulls) },
                    SqlTypeKind.Float => new TColumn { DoubleVal = new TDoubleColumn(values.Select(v => v == null ? 0d : (double)(float)v).ToList(), nulls) },
                    SqlTypeKind.Double => new TColumn { DoubleVal = new TDoubleColumn(Typed(values, 0d), nulls) },
                    SqlTypeKind.Binary => new TColumn { BinaryVal = new TBinaryColumn(Typed(values, System.Array.Empty<byte>()), nulls) },
                    _ => new TColumn { StringVal = new TStringColumn(values.Select(v => SqlValues.ToHiveString(v, type) ?? string.Empty).ToList(), nulls) },
                });
            }

            return columns;
        }

        private static List<T> Typed<T>(object?[] values, T placeholder) => values.Select(v => v == null ? placeholder : (T)v).ToList();

        /// <summary>Hive's null bitmap: 1 + (index of the last null + 1) / 8 bytes, bit i set when row i is null.</summary>
        private static byte[] NullBitmap(bool[] isNull)
        {
            int last = System.Array.LastIndexOf(isNull, true);
            byte[] nulls = new byte[1 + ((last + 1) / 8)];
            for (int j = 0; j <= last; j++)
            {
                if (isNull[j])
                {
                    nulls[j / 8] |= (byte)(1 << (j % 8));
                }
            }

            return nulls;
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
