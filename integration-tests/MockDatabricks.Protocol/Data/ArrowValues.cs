using System;
using System.Collections.Generic;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>Reads Apache.Arrow arrays as the CLR values <see cref="DatasetGenerator.GetValue"/> returns, and names schemas for messages.</summary>
    public static class ArrowValues
    {
        public static object? Get(IArrowArray array, int index)
        {
            if (array.IsNull(index))
            {
                return null;
            }

            if (TryReadPlain(array, index, out object? plain))
            {
                return plain;
            }

            return array switch
            {
                Decimal128Array a => a.GetValue(index),
                TimestampArray a => a.GetTimestamp(index),
                _ => throw new NotSupportedException($"The mock's data sets have no {array.GetType().Name} columns."),
            };
        }

        /// <summary>
        /// Reads a value of a SQL result column in the CLR form <see cref="ArrowColumns"/> writes (DECIMAL as
        /// <see cref="DecimalValue"/>, intervals, lists, maps and structs), from its native Arrow array or, for a column
        /// served as strings, its string.
        /// </summary>
        public static object? Read(IArrowArray array, int index, SqlType type)
        {
            if (array.IsNull(index))
            {
                return null;
            }

            if (TryReadPlain(array, index, out object? plain))
            {
                return plain;
            }

            switch (array)
            {
                case Decimal128Array a:
                    return new DecimalValue(ArrowColumns.Unscaled(a, index), ((Decimal128Type)a.Data.DataType).Scale);
                case BinaryArray a:
                    return a.GetBytes(index).ToArray();
                case TimestampArray a:
                    DateTimeOffset instant = a.GetTimestamp(index)!.Value;
                    return type.Kind == SqlTypeKind.TimestampNtz ? DateTime.SpecifyKind(instant.UtcDateTime, DateTimeKind.Unspecified) : instant;
                case YearMonthIntervalArray a:
                    return new YearMonthInterval(a.GetValue(index)!.Value.Months);
                case DurationArray a:
                    return new DayTimeInterval(a.GetValue(index)!.Value);
                case MapArray a:
                    var entries = (StructArray)a.Values;
                    var pairs = new List<KeyValuePair<object?, object?>>();
                    for (int i = a.ValueOffsets[index]; i < a.ValueOffsets[index + 1]; i++)
                    {
                        pairs.Add(new KeyValuePair<object?, object?>(Read(entries.Fields[0], i, type.Key!), Read(entries.Fields[1], i, type.Element!)));
                    }

                    return pairs;
                case ListArray a:
                    var items = new List<object?>();
                    for (int i = a.ValueOffsets[index]; i < a.ValueOffsets[index + 1]; i++)
                    {
                        items.Add(Read(a.Values, i, type.Element!));
                    }

                    return items;
                case StructArray a:
                    return type.Fields.Select((f, i) => Read(a.Fields[i], index, f.Type)).ToArray();
                default:
                    throw new NotSupportedException($"No reader for {array.GetType().Name}.");
            }
        }

        /// <summary>
        /// Reads the non-null value of an array whose CLR form is the array's own (strings, booleans, integers, floating
        /// point, dates): the same for <see cref="Get"/> and <see cref="Read"/>. False for the types they read apart.
        /// </summary>
        private static bool TryReadPlain(IArrowArray array, int index, out object? value)
        {
            value = array switch
            {
                StringArray a => a.GetString(index),
                BooleanArray a => a.GetValue(index),
                Int8Array a => a.GetValue(index),
                Int16Array a => a.GetValue(index),
                Int32Array a => a.GetValue(index),
                Int64Array a => a.GetValue(index),
                FloatArray a => a.GetValue(index),
                DoubleArray a => a.GetValue(index),
                Date32Array a => a.GetDateOnly(index),
                _ => null,
            };
            return value != null;
        }

        /// <summary>Value equality as the tests need it: a timestamp is the same instant whatever its offset.</summary>
        public static bool AreEqual(object? expected, object? actual) => (expected, actual) switch
        {
            (null, null) => true,
            (null, _) or (_, null) => false,
            (DateTimeOffset e, DateTimeOffset a) => e.UtcTicks == a.UtcTicks,
            _ => expected.Equals(actual),
        };

        /// <summary>
        /// Compares the rows of <paramref name="batch"/>, whose first row is data set row <paramref name="firstRow"/>,
        /// with the generator's formula: every <paramref name="sampleEvery"/>-th row and the batch's last one. Reports
        /// each difference, and a row past the data set's end, to <paramref name="mismatch"/>; returns the values compared.
        /// </summary>
        public static long CompareWithGenerator(RecordBatch batch, long firstRow, DatasetGenerator generator, Action<string> mismatch, int sampleEvery = 1)
        {
            long compared = 0;
            for (int i = 0; i < batch.Length; i++)
            {
                long row = firstRow + i;
                if (row % sampleEvery != 0 && i != batch.Length - 1)
                {
                    continue;
                }

                if (row >= generator.Spec.Rows)
                {
                    mismatch($"row {row} is beyond the data set's {generator.Spec.Rows} rows");
                    break;
                }

                for (int column = 0; column < batch.ColumnCount; column++)
                {
                    compared++;
                    // The allocation-free check first; the boxed values only to describe a difference.
                    if (!generator.ValueEquals(row, column, batch.Column(column), i))
                    {
                        object? expected = generator.GetValue(row, column);
                        object? actual = Get(batch.Column(column), i);
                        mismatch($"row {row}, column {generator.Schema.FieldsList[column].Name}: expected {expected ?? "null"}, got {actual ?? "null"}");
                    }
                }
            }

            return compared;
        }

        /// <summary>"id: int64 not null, amount: decimal128(18,4), ...": enough to tell two schemas apart in a message.</summary>
        public static string Describe(Schema schema) => string.Join(", ", schema.FieldsList.Select(f =>
        {
            string type = f.DataType switch
            {
                Decimal128Type d => $"decimal128({d.Precision},{d.Scale})",
                TimestampType t => $"timestamp[{t.Unit}, tz={t.Timezone ?? "none"}]",
                _ => f.DataType.Name,
            };
            return $"{f.Name}: {type}{(f.IsNullable ? string.Empty : " not null")}";
        }));
    }
}
