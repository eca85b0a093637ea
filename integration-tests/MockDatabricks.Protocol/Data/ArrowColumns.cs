using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using System.Numerics;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// SQL values as the Arrow columns a warehouse serves for them, with Apache.Arrow's types and builders: the Arrow type
    /// of each SQL type under the client's useArrowNativeTypes (<see cref="ResultTypes"/>), the field with the
    /// "Spark:DataType:SqlName" metadata a warehouse puts on every field, and the array of a column's values. Values are the
    /// CLR forms <see cref="ArrowValues.Get"/> reads back: bool, sbyte, short, int, long, float, double, <see cref="DecimalValue"/>,
    /// string, byte[], DateOnly, DateTimeOffset (TIMESTAMP), DateTime (TIMESTAMP_NTZ), <see cref="YearMonthInterval"/>,
    /// <see cref="DayTimeInterval"/>, IReadOnlyList&lt;object?&gt; (ARRAY), IReadOnlyList&lt;KeyValuePair&lt;object?, object?&gt;&gt;
    /// (MAP), object?[] (STRUCT), or null.
    /// </summary>
    public static class ArrowColumns
    {
        /// <summary>The Arrow field metadata key a warehouse sets to the column's SQL type (Spark's DataType.sql).</summary>
        public const string SqlNameKey = "Spark:DataType:SqlName";

        /// <summary>The session time zone the mock's timestamps are in (what a warehouse names in its Arrow timestamps).</summary>
        public const string SessionTimeZone = "Etc/UTC";

        public static Field ServedField(SqlField column, ResultTypes types) =>
            new Field(column.Name, ServedType(column.Type, types), column.Nullable, new Dictionary<string, string> { [SqlNameKey] = column.Type.Sql });

        /// <summary>The Arrow type of a top-level column: native where the client asked for it, else the warehouse's string form.</summary>
        public static IArrowType ServedType(SqlType type, ResultTypes types) => ServedAsString(type, types) ? StringType.Default : NativeType(type);

        /// <summary>Whether a top-level column of this type travels as strings (<see cref="SqlValues.ToHiveString"/>) for this client.</summary>
        public static bool ServedAsString(SqlType type, ResultTypes types) => type.Kind switch
        {
            SqlTypeKind.Decimal => !types.DecimalAsArrow,
            SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz => !types.TimestampAsArrow,
            SqlTypeKind.IntervalYearMonth or SqlTypeKind.IntervalDayTime => !types.IntervalTypesAsArrow,
            SqlTypeKind.Array or SqlTypeKind.Map or SqlTypeKind.Struct => !types.ComplexTypesAsArrow,
            SqlTypeKind.Void or SqlTypeKind.Variant => true,
            _ => false,
        };

        /// <summary>Spark's Arrow mapping (ArrowUtils.toArrowType), also used for values nested in complex columns.</summary>
        public static IArrowType NativeType(SqlType type) => type.Kind switch
        {
            SqlTypeKind.Boolean => BooleanType.Default,
            SqlTypeKind.TinyInt => Int8Type.Default,
            SqlTypeKind.SmallInt => Int16Type.Default,
            SqlTypeKind.Int => Int32Type.Default,
            SqlTypeKind.BigInt => Int64Type.Default,
            SqlTypeKind.Float => FloatType.Default,
            SqlTypeKind.Double => DoubleType.Default,
            SqlTypeKind.Decimal => new Decimal128Type(type.Precision, type.Scale),
            SqlTypeKind.String or SqlTypeKind.Varchar or SqlTypeKind.Char or SqlTypeKind.Variant => StringType.Default,
            SqlTypeKind.Binary => BinaryType.Default,
            SqlTypeKind.Date => Date32Type.Default,
            SqlTypeKind.Timestamp => new TimestampType(TimeUnit.Microsecond, SessionTimeZone),
            SqlTypeKind.TimestampNtz => new TimestampType(TimeUnit.Microsecond, (string?)null),
            SqlTypeKind.IntervalYearMonth => new IntervalType(IntervalUnit.YearMonth),
            SqlTypeKind.IntervalDayTime => DurationType.Microsecond,
            SqlTypeKind.Array => new ListType(new Field("element", NativeType(type.Element!), nullable: true)),
            SqlTypeKind.Map => new MapType(new Field("key", NativeType(type.Key!), nullable: false), new Field("value", NativeType(type.Element!), nullable: true)),
            SqlTypeKind.Struct => new StructType(type.Fields.Select(f => new Field(f.Name, NativeType(f.Type), f.Nullable)).ToList()),
            _ => NullType.Default,
        };

        /// <summary>A top-level column's array as served to this client.</summary>
        public static IArrowArray Build(SqlType type, IReadOnlyList<object?> values, ResultTypes types) =>
            ServedAsString(type, types) ? Strings(values.Select(v => SqlValues.ToHiveString(v, type)).ToList()) : BuildNative(type, values);

        /// <summary>An array of native Arrow values (nested values are always native).</summary>
        public static IArrowArray BuildNative(SqlType type, IReadOnlyList<object?> values)
        {
            switch (type.Kind)
            {
                case SqlTypeKind.Boolean:
                    return Fill(new BooleanArray.Builder(), values, (b, v) => b.Append((bool)v));
                case SqlTypeKind.TinyInt:
                    return Fill(new Int8Array.Builder(), values, (b, v) => b.Append((sbyte)v));
                case SqlTypeKind.SmallInt:
                    return Fill(new Int16Array.Builder(), values, (b, v) => b.Append((short)v));
                case SqlTypeKind.Int:
                    return Fill(new Int32Array.Builder(), values, (b, v) => b.Append((int)v));
                case SqlTypeKind.BigInt:
                    return Fill(new Int64Array.Builder(), values, (b, v) => b.Append((long)v));
                case SqlTypeKind.Float:
                    return Fill(new FloatArray.Builder(), values, (b, v) => b.Append((float)v));
                case SqlTypeKind.Double:
                    return Fill(new DoubleArray.Builder(), values, (b, v) => b.Append((double)v));
                case SqlTypeKind.Decimal:
                    byte[] scratch = new byte[16];
                    return Fill(new Decimal128Array.Builder((Decimal128Type)NativeType(type)), values, (b, v) =>
                    {
                        BinaryPrimitives.WriteInt128LittleEndian(scratch, (Int128)((DecimalValue)v).Rescale(type.Scale).Unscaled);
                        b.Append(scratch.AsSpan());
                    });
                case SqlTypeKind.String or SqlTypeKind.Varchar or SqlTypeKind.Char or SqlTypeKind.Variant:
                    return Strings(values.Select(v => (string?)v).ToList());
                case SqlTypeKind.Binary:
                    return Fill(new BinaryArray.Builder(), values, (b, v) => b.Append(((byte[])v).AsSpan()));
                case SqlTypeKind.Date:
                    return Fill(new Date32Array.Builder(), values, (b, v) => b.Append((DateOnly)v));
                case SqlTypeKind.Timestamp:
                    return Fill(new TimestampArray.Builder((TimestampType)NativeType(type)), values, (b, v) => b.Append((DateTimeOffset)v));
                case SqlTypeKind.TimestampNtz:
                    return Fill(new TimestampArray.Builder((TimestampType)NativeType(type)), values,
                        (b, v) => b.Append(new DateTimeOffset(DateTime.SpecifyKind((DateTime)v, DateTimeKind.Unspecified), TimeSpan.Zero)));
                case SqlTypeKind.IntervalYearMonth:
                    return Fill(new YearMonthIntervalArray.Builder(), values, (b, v) => b.Append(new Apache.Arrow.Scalars.YearMonthInterval(((YearMonthInterval)v).Months)));
                case SqlTypeKind.IntervalDayTime:
                    return Fill(new DurationArray.Builder(DurationType.Microsecond), values, (b, v) => b.Append(((DayTimeInterval)v).Micros));
                case SqlTypeKind.Array:
                    return Nested(type, values, v => (IReadOnlyList<object?>)v, type.Element!);
                case SqlTypeKind.Map:
                    return BuildMap(type, values);
                case SqlTypeKind.Struct:
                    return BuildStruct((StructType)NativeType(type), type, values);
                default:
                    return new NullArray(values.Count);
            }
        }

        public static StringArray Strings(IReadOnlyList<string?> values)
        {
            var builder = new StringArray.Builder();
            builder.Reserve(values.Count);
            foreach (string? value in values)
            {
                if (value == null)
                {
                    builder.AppendNull();
                }
                else
                {
                    builder.Append(value);
                }
            }

            return builder.Build();
        }

        private static IArrowArray Fill<TBuilder>(TBuilder builder, IReadOnlyList<object?> values, Action<TBuilder, object> append)
            where TBuilder : IArrowArrayBuilder<IArrowArray, TBuilder>
        {
            builder.Reserve(values.Count);
            foreach (object? value in values)
            {
                if (value == null)
                {
                    builder.AppendNull();
                }
                else
                {
                    append(builder, value);
                }
            }

            return builder.Build(default);
        }

        private static IArrowArray Nested(SqlType type, IReadOnlyList<object?> values, Func<object, IReadOnlyList<object?>> items, SqlType itemType)
        {
            var offsets = new ArrowBuffer.Builder<int>();
            var validity = new ArrowBuffer.BitmapBuilder();
            var flattened = new List<object?>();
            offsets.Append(0);
            foreach (object? value in values)
            {
                validity.Append(value != null);
                if (value != null)
                {
                    flattened.AddRange(items(value));
                }

                offsets.Append(flattened.Count);
            }

            IArrowArray child = BuildNative(itemType, flattened);
            var data = new ArrayData(NativeType(type), values.Count, validity.UnsetBitCount, 0,
                new[] { validity.Build(), offsets.Build() }, new[] { child.Data });
            return ArrowArrayFactory.BuildArray(data);
        }

        private static IArrowArray BuildMap(SqlType type, IReadOnlyList<object?> values)
        {
            var mapType = (MapType)NativeType(type);
            var offsets = new ArrowBuffer.Builder<int>();
            var validity = new ArrowBuffer.BitmapBuilder();
            var keys = new List<object?>();
            var items = new List<object?>();
            offsets.Append(0);
            foreach (object? value in values)
            {
                validity.Append(value != null);
                if (value != null)
                {
                    foreach (KeyValuePair<object?, object?> entry in (IReadOnlyList<KeyValuePair<object?, object?>>)value)
                    {
                        keys.Add(entry.Key);
                        items.Add(entry.Value);
                    }
                }

                offsets.Append(keys.Count);
            }

            var entriesValidity = new ArrowBuffer.BitmapBuilder();
            entriesValidity.AppendRange(true, keys.Count);
            var entries = new ArrayData(mapType.KeyValueType, keys.Count, 0, 0, new[] { entriesValidity.Build() },
                new[] { BuildNative(type.Key!, keys).Data, BuildNative(type.Element!, items).Data });
            var data = new ArrayData(mapType, values.Count, validity.UnsetBitCount, 0, new[] { validity.Build(), offsets.Build() }, new[] { entries });
            return ArrowArrayFactory.BuildArray(data);
        }

        private static IArrowArray BuildStruct(StructType arrowType, SqlType type, IReadOnlyList<object?> values)
        {
            var validity = new ArrowBuffer.BitmapBuilder();
            foreach (object? value in values)
            {
                validity.Append(value != null);
            }

            ArrayData[] children = type.Fields
                .Select((field, i) => BuildNative(field.Type, values.Select(v => v == null ? null : ((object?[])v)[i]).ToList()).Data)
                .ToArray();
            var data = new ArrayData(arrowType, values.Count, validity.UnsetBitCount, 0, new[] { validity.Build() }, children);
            return ArrowArrayFactory.BuildArray(data);
        }

        /// <summary>The 16-byte little-endian two's complement of a decimal's unscaled value at the column's scale.</summary>
        public static BigInteger Unscaled(Decimal128Array array, int index) =>
            (BigInteger)BinaryPrimitives.ReadInt128LittleEndian(array.GetBytes(index));
    }
}
