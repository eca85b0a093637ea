using System;
using System.Collections.Generic;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>The Arrow types the mock produces (what Databricks sends for the common SQL types).</summary>
    public enum ArrowTypeId
    {
        Int32,
        Int64,
        Float64,
        Decimal128,
        Utf8,
        Timestamp,
        Date32,
        Bool,
    }

    /// <summary>
    /// An Arrow column type. Timestamps are always microsecond (what Databricks sends with useArrowNativeTypes);
    /// <see cref="TimeZone"/> is "Etc/UTC" by default, null for a zone-less timestamp.
    /// </summary>
    public sealed record ArrowColumnType(ArrowTypeId Id, int Precision = 0, int Scale = 0, string? TimeZone = null)
    {
        public static ArrowColumnType Int32 { get; } = new ArrowColumnType(ArrowTypeId.Int32);

        public static ArrowColumnType Int64 { get; } = new ArrowColumnType(ArrowTypeId.Int64);

        public static ArrowColumnType Float64 { get; } = new ArrowColumnType(ArrowTypeId.Float64);

        public static ArrowColumnType Utf8 { get; } = new ArrowColumnType(ArrowTypeId.Utf8);

        public static ArrowColumnType Date32 { get; } = new ArrowColumnType(ArrowTypeId.Date32);

        public static ArrowColumnType Bool { get; } = new ArrowColumnType(ArrowTypeId.Bool);

        public static ArrowColumnType TimestampUtc { get; } = new ArrowColumnType(ArrowTypeId.Timestamp, TimeZone: "Etc/UTC");

        public static ArrowColumnType Decimal(int precision, int scale)
        {
            if (precision < 1 || precision > 28 || scale < 0 || scale > precision)
            {
                // System.Decimal carries the values in tests, so stay within its 28 digits.
                throw new ArgumentOutOfRangeException(nameof(precision), $"decimal({precision},{scale}) is outside 1..28 digits.");
            }

            return new ArrowColumnType(ArrowTypeId.Decimal128, precision, scale);
        }

        /// <summary>Fixed byte width of one value, or 0 for bit-packed booleans and variable-width strings.</summary>
        public int ByteWidth => Id switch
        {
            ArrowTypeId.Int32 or ArrowTypeId.Date32 => 4,
            ArrowTypeId.Int64 or ArrowTypeId.Float64 or ArrowTypeId.Timestamp => 8,
            ArrowTypeId.Decimal128 => 16,
            _ => 0,
        };

        /// <summary>The CLR type values of this column have in the builders, the reader and the data generator.</summary>
        public Type ClrType => Id switch
        {
            ArrowTypeId.Int32 => typeof(int),
            ArrowTypeId.Int64 => typeof(long),
            ArrowTypeId.Float64 => typeof(double),
            ArrowTypeId.Decimal128 => typeof(decimal),
            ArrowTypeId.Utf8 => typeof(string),
            ArrowTypeId.Timestamp => typeof(DateTimeOffset),
            ArrowTypeId.Date32 => typeof(DateOnly),
            _ => typeof(bool),
        };

        public override string ToString() => Id switch
        {
            ArrowTypeId.Decimal128 => $"decimal128({Precision},{Scale})",
            ArrowTypeId.Timestamp => $"timestamp[us, tz={TimeZone ?? "none"}]",
            _ => Id.ToString().ToLowerInvariant(),
        };
    }

    public sealed record ArrowField(string Name, ArrowColumnType Type, bool Nullable = true);

    public sealed class ArrowSchema
    {
        public ArrowSchema(IReadOnlyList<ArrowField> fields)
        {
            Fields = fields;
        }

        public IReadOnlyList<ArrowField> Fields { get; }

        public override string ToString() => string.Join(", ", System.Linq.Enumerable.Select(Fields, f => $"{f.Name}: {f.Type}{(f.Nullable ? "" : " not null")}"));
    }
}
