using System;
using System.Collections.Generic;
using System.Linq;
using MockDatabricks.Protocol.Cli;

namespace MockDatabricks.Protocol.Data
{
    public enum SqlTypeKind
    {
        Boolean,
        TinyInt,
        SmallInt,
        Int,
        BigInt,
        Float,
        Double,
        Decimal,
        String,
        Varchar,
        Char,
        Binary,
        Date,
        Timestamp,
        TimestampNtz,
        IntervalYearMonth,
        IntervalDayTime,
        Array,
        Map,
        Struct,
        Void,

        /// <summary>Semi-structured data; its values are JSON text, as a warehouse sends VARIANT columns (a string).</summary>
        Variant,
    }

    /// <summary>A struct field, or a result column: name, type, nullability.</summary>
    public sealed record SqlField(string Name, SqlType Type, bool Nullable = true);

    /// <summary>
    /// A Spark SQL type as a warehouse describes it: its SQL text (<see cref="Sql"/>, what Spark's DataType.sql gives and
    /// what a warehouse puts in the Arrow field metadata "Spark:DataType:SqlName"), its Thrift type id for the column
    /// descriptors, and its parameters. Two types are equal when their SQL text is.
    /// </summary>
    public sealed class SqlType : IEquatable<SqlType>
    {
        // Before the instances below: static fields initialise in order, and Interval(...) reads these.
        private static readonly string[] s_yearMonthUnits = { "YEAR", "MONTH" };
        private static readonly string[] s_dayTimeUnits = { "DAY", "HOUR", "MINUTE", "SECOND" };

        public static readonly SqlType Boolean = new SqlType(SqlTypeKind.Boolean);
        public static readonly SqlType TinyInt = new SqlType(SqlTypeKind.TinyInt);
        public static readonly SqlType SmallInt = new SqlType(SqlTypeKind.SmallInt);
        public static readonly SqlType Int = new SqlType(SqlTypeKind.Int);
        public static readonly SqlType BigInt = new SqlType(SqlTypeKind.BigInt);
        public static readonly SqlType Float = new SqlType(SqlTypeKind.Float);
        public static readonly SqlType Double = new SqlType(SqlTypeKind.Double);
        public static readonly SqlType String = new SqlType(SqlTypeKind.String);
        public static readonly SqlType Binary = new SqlType(SqlTypeKind.Binary);
        public static readonly SqlType Date = new SqlType(SqlTypeKind.Date);
        public static readonly SqlType Timestamp = new SqlType(SqlTypeKind.Timestamp);
        public static readonly SqlType TimestampNtz = new SqlType(SqlTypeKind.TimestampNtz);
        public static readonly SqlType Void = new SqlType(SqlTypeKind.Void);
        public static readonly SqlType Variant = new SqlType(SqlTypeKind.Variant);
        public static readonly SqlType IntervalYearToMonth = Interval("YEAR", "MONTH");
        public static readonly SqlType IntervalDayToSecond = Interval("DAY", "SECOND");

        private SqlType(SqlTypeKind kind, int precision = 0, int scale = 0, int length = 0, SqlType? element = null, SqlType? key = null,
            IReadOnlyList<SqlField>? fields = null, string? intervalStart = null, string? intervalEnd = null)
        {
            Kind = kind;
            Precision = precision;
            Scale = scale;
            Length = length;
            Element = element;
            Key = key;
            Fields = fields ?? System.Array.Empty<SqlField>();
            IntervalStart = intervalStart;
            IntervalEnd = intervalEnd;
            Sql = Describe();
        }

        public SqlTypeKind Kind { get; }

        /// <summary>DECIMAL precision.</summary>
        public int Precision { get; }

        /// <summary>DECIMAL scale.</summary>
        public int Scale { get; }

        /// <summary>VARCHAR / CHAR length.</summary>
        public int Length { get; }

        /// <summary>ARRAY element type, MAP value type.</summary>
        public SqlType? Element { get; }

        /// <summary>MAP key type.</summary>
        public SqlType? Key { get; }

        public IReadOnlyList<SqlField> Fields { get; }

        /// <summary>First and last unit of an interval ("YEAR" TO "MONTH", "DAY" TO "SECOND", or one unit).</summary>
        public string? IntervalStart { get; }

        public string? IntervalEnd { get; }

        /// <summary>Spark's DataType.sql: INT, DECIMAL(10,2), ARRAY&lt;INT&gt;, MAP&lt;STRING, INT&gt;, STRUCT&lt;id: INT, name: STRING&gt;, INTERVAL DAY TO SECOND.</summary>
        public string Sql { get; }

        public bool IsComplex => Kind is SqlTypeKind.Array or SqlTypeKind.Map or SqlTypeKind.Struct;

        public bool IsInterval => Kind is SqlTypeKind.IntervalYearMonth or SqlTypeKind.IntervalDayTime;

        public bool IsIntegral => Kind is SqlTypeKind.TinyInt or SqlTypeKind.SmallInt or SqlTypeKind.Int or SqlTypeKind.BigInt;

        public bool IsNumeric => IsIntegral || Kind is SqlTypeKind.Float or SqlTypeKind.Double or SqlTypeKind.Decimal;

        public bool IsStringLike => Kind is SqlTypeKind.String or SqlTypeKind.Varchar or SqlTypeKind.Char;

        public static SqlType Decimal(int precision, int scale)
        {
            if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
            {
                throw new FormatException($"DECIMAL({precision},{scale}) is not a valid decimal type (precision 1..38, scale 0..precision).");
            }

            return new SqlType(SqlTypeKind.Decimal, precision, scale);
        }

        public static SqlType Varchar(int length) => new SqlType(SqlTypeKind.Varchar, length: length);

        public static SqlType Char(int length) => new SqlType(SqlTypeKind.Char, length: length);

        public static SqlType Array(SqlType element) => new SqlType(SqlTypeKind.Array, element: element);

        public static SqlType Map(SqlType key, SqlType value) => new SqlType(SqlTypeKind.Map, key: key, element: value);

        public static SqlType Struct(IReadOnlyList<SqlField> fields) => new SqlType(SqlTypeKind.Struct, fields: fields);

        /// <summary>INTERVAL YEAR [TO MONTH], INTERVAL DAY [TO SECOND], INTERVAL HOUR TO MINUTE, ...</summary>
        public static SqlType Interval(string start, string? end = null)
        {
            start = start.ToUpperInvariant();
            end = end?.ToUpperInvariant();
            if (s_yearMonthUnits.Contains(start))
            {
                if (end != null && System.Array.IndexOf(s_yearMonthUnits, end) < System.Array.IndexOf(s_yearMonthUnits, start))
                {
                    throw new FormatException($"INTERVAL {start} TO {end} is not a valid interval type.");
                }

                return new SqlType(SqlTypeKind.IntervalYearMonth, intervalStart: start, intervalEnd: end == start ? null : end);
            }

            if (s_dayTimeUnits.Contains(start) && (end == null || System.Array.IndexOf(s_dayTimeUnits, end) >= System.Array.IndexOf(s_dayTimeUnits, start)))
            {
                return new SqlType(SqlTypeKind.IntervalDayTime, intervalStart: start, intervalEnd: end == start ? null : end);
            }

            throw new FormatException($"INTERVAL {start}{(end == null ? string.Empty : " TO " + end)} is not a valid interval type.");
        }

        /// <summary>The Thrift TTypeId of a column descriptor (TIMESTAMP_NTZ is TIMESTAMP_TYPE there, VARIANT STRING_TYPE, VARCHAR and CHAR keep their own).</summary>
        public TTypeId ThriftTypeId => Kind switch
        {
            SqlTypeKind.Boolean => TTypeId.Boolean,
            SqlTypeKind.TinyInt => TTypeId.TinyInt,
            SqlTypeKind.SmallInt => TTypeId.SmallInt,
            SqlTypeKind.Int => TTypeId.Int,
            SqlTypeKind.BigInt => TTypeId.BigInt,
            SqlTypeKind.Float => TTypeId.Float,
            SqlTypeKind.Double => TTypeId.Double,
            SqlTypeKind.Decimal => TTypeId.Decimal,
            SqlTypeKind.String or SqlTypeKind.Variant => TTypeId.String,
            SqlTypeKind.Varchar => TTypeId.Varchar,
            SqlTypeKind.Char => TTypeId.Char,
            SqlTypeKind.Binary => TTypeId.Binary,
            SqlTypeKind.Date => TTypeId.Date,
            SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz => TTypeId.Timestamp,
            SqlTypeKind.IntervalYearMonth => TTypeId.IntervalYearMonth,
            SqlTypeKind.IntervalDayTime => TTypeId.IntervalDayTime,
            SqlTypeKind.Array => TTypeId.Array,
            SqlTypeKind.Map => TTypeId.Map,
            SqlTypeKind.Struct => TTypeId.Struct,
            _ => TTypeId.Null,
        };

        /// <summary>The JDBC java.sql.Types code (GetColumns' DATA_TYPE), as the Spark Thrift server reports it.</summary>
        public int JdbcType => Kind switch
        {
            SqlTypeKind.Boolean => 16,
            SqlTypeKind.TinyInt => -6,
            SqlTypeKind.SmallInt => 5,
            SqlTypeKind.Int => 4,
            SqlTypeKind.BigInt => -5,
            SqlTypeKind.Float => 6,
            SqlTypeKind.Double => 8,
            SqlTypeKind.Decimal => 3,
            SqlTypeKind.String or SqlTypeKind.Varchar => 12,
            SqlTypeKind.Char => 1,
            SqlTypeKind.Binary => -2,
            SqlTypeKind.Date => 91,
            SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz => 93,
            SqlTypeKind.Array => 2003,
            SqlTypeKind.Map => 2000,
            SqlTypeKind.Struct => 2002,
            SqlTypeKind.Void => 0,
            _ => 1111,
        };

        public bool Equals(SqlType? other) => other is not null && Sql == other.Sql;

        public override bool Equals(object? obj) => Equals(obj as SqlType);

        public override int GetHashCode() => Sql.GetHashCode(StringComparison.Ordinal);

        public override string ToString() => Sql;

        public static bool operator ==(SqlType? left, SqlType? right) => left is null ? right is null : left.Equals(right);

        public static bool operator !=(SqlType? left, SqlType? right) => !(left == right);

        private string Describe() => Kind switch
        {
            SqlTypeKind.Boolean => "BOOLEAN",
            SqlTypeKind.TinyInt => "TINYINT",
            SqlTypeKind.SmallInt => "SMALLINT",
            SqlTypeKind.Int => "INT",
            SqlTypeKind.BigInt => "BIGINT",
            SqlTypeKind.Float => "FLOAT",
            SqlTypeKind.Double => "DOUBLE",
            SqlTypeKind.Decimal => $"DECIMAL({Precision},{Scale})",
            SqlTypeKind.String => "STRING",
            SqlTypeKind.Varchar => $"VARCHAR({Length})",
            SqlTypeKind.Char => $"CHAR({Length})",
            SqlTypeKind.Binary => "BINARY",
            SqlTypeKind.Date => "DATE",
            SqlTypeKind.Timestamp => "TIMESTAMP",
            SqlTypeKind.TimestampNtz => "TIMESTAMP_NTZ",
            SqlTypeKind.IntervalYearMonth or SqlTypeKind.IntervalDayTime => IntervalEnd == null ? $"INTERVAL {IntervalStart}" : $"INTERVAL {IntervalStart} TO {IntervalEnd}",
            SqlTypeKind.Array => $"ARRAY<{Element!.Sql}>",
            SqlTypeKind.Map => $"MAP<{Key!.Sql}, {Element!.Sql}>",
            SqlTypeKind.Struct => $"STRUCT<{string.Join(", ", Fields.Select(f => $"{QuoteIfNeeded(f.Name)}: {f.Type.Sql}"))}>",
            SqlTypeKind.Variant => "VARIANT",
            _ => "VOID",
        };

        /// <summary>Spark quotes a struct field name with backticks unless it is a plain identifier.</summary>
        private static string QuoteIfNeeded(string name) =>
            name.Length > 0 && (char.IsLetter(name[0]) || name[0] == '_') && name.All(c => char.IsLetterOrDigit(c) || c == '_')
                ? name
                : "`" + name.Replace("`", "``", StringComparison.Ordinal) + "`";
    }
}
