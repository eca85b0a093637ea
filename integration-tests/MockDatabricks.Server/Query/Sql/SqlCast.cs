using System.Numerics;

namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>
    /// CAST with Spark's ANSI semantics (a Databricks SQL warehouse runs with ansi_mode on): invalid input and overflow
    /// are errors (CAST_INVALID_INPUT, CAST_OVERFLOW) unless TRY_CAST, fractions round half up into a DECIMAL and are
    /// truncated into an integer type, NULL casts to anything, complex values cast element by element.
    /// </summary>
    public static class SqlCast
    {
        public static bool CanCast(SqlType from, SqlType to)
        {
            if (from == to || from.Kind == SqlTypeKind.Void || to.IsStringLike)
            {
                return true;
            }

            return (from.Kind, to.Kind) switch
            {
                (_, _) when from.IsNumeric && to.IsNumeric => true,
                (_, SqlTypeKind.Boolean) when from.IsNumeric || from.IsStringLike => true,
                (SqlTypeKind.Boolean, _) when to.IsNumeric => true,
                (_, _) when from.IsStringLike && (to.IsNumeric || to.Kind is SqlTypeKind.Date or SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz or SqlTypeKind.Binary) => true,
                (SqlTypeKind.Date, SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz) => true,
                (SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz, SqlTypeKind.Date or SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz) => true,
                (SqlTypeKind.Array, SqlTypeKind.Array) => CanCast(from.Element!, to.Element!),
                (SqlTypeKind.Map, SqlTypeKind.Map) => CanCast(from.Key!, to.Key!) && CanCast(from.Element!, to.Element!),
                (SqlTypeKind.Struct, SqlTypeKind.Struct) => from.Fields.Count == to.Fields.Count && from.Fields.Zip(to.Fields).All(p => CanCast(p.First.Type, p.Second.Type)),
                (SqlTypeKind.IntervalYearMonth, SqlTypeKind.IntervalYearMonth) or (SqlTypeKind.IntervalDayTime, SqlTypeKind.IntervalDayTime) => true,
                _ => false,
            };
        }

        /// <summary>The value cast to <paramref name="to"/>; with <paramref name="tolerant"/> (TRY_CAST) a failure is NULL.</summary>
        public static object? Cast(object? value, SqlType from, SqlType to, bool tolerant = false)
        {
            if (value == null)
            {
                return null;
            }

            try
            {
                return CastValue(value, from, to);
            }
            catch (SqlError) when (tolerant)
            {
                return null;
            }
        }

        private static object? CastValue(object value, SqlType from, SqlType to)
        {
            if (from == to && !to.IsComplex)
            {
                return value;
            }

            if (to.IsStringLike)
            {
                return from.Kind == SqlTypeKind.Binary ? Encoding.UTF8.GetString((byte[])value) : SqlValues.ToHiveString(value, from);
            }

            if (from.IsStringLike)
            {
                return FromString(((string)value).Trim(), to, (string)value);
            }

            switch (to.Kind)
            {
                case SqlTypeKind.Boolean:
                    return from.IsNumeric ? ToDecimal(value, from).Unscaled != 0 : value;
                case SqlTypeKind.TinyInt or SqlTypeKind.SmallInt or SqlTypeKind.Int or SqlTypeKind.BigInt:
                    return ToIntegral(value, from, to);
                case SqlTypeKind.Float:
                    return from.Kind == SqlTypeKind.Boolean ? ((bool)value ? 1f : 0f) : (float)ToDouble(value, from);
                case SqlTypeKind.Double:
                    return from.Kind == SqlTypeKind.Boolean ? ((bool)value ? 1d : 0d) : ToDouble(value, from);
                case SqlTypeKind.Decimal:
                    return ToDecimalType(value, from, to);
                case SqlTypeKind.Date:
                    return value switch
                    {
                        DateTimeOffset t => DateOnly.FromDateTime(t.UtcDateTime),
                        DateTime t => DateOnly.FromDateTime(t),
                        _ => value,
                    };
                case SqlTypeKind.Timestamp:
                    return value switch
                    {
                        DateOnly d => new DateTimeOffset(d.ToDateTime(TimeOnly.MinValue), TimeSpan.Zero),
                        DateTime t => new DateTimeOffset(DateTime.SpecifyKind(t, DateTimeKind.Unspecified), TimeSpan.Zero),
                        _ => value,
                    };
                case SqlTypeKind.TimestampNtz:
                    return value switch
                    {
                        DateOnly d => d.ToDateTime(TimeOnly.MinValue),
                        DateTimeOffset t => DateTime.SpecifyKind(t.UtcDateTime, DateTimeKind.Unspecified),
                        _ => value,
                    };
                case SqlTypeKind.Array:
                    return ((IReadOnlyList<object?>)value).Select(v => Cast(v, from.Element!, to.Element!)).ToList();
                case SqlTypeKind.Map:
                    return ((IReadOnlyList<KeyValuePair<object?, object?>>)value)
                        .Select(kv => new KeyValuePair<object?, object?>(Cast(kv.Key, from.Key!, to.Key!), Cast(kv.Value, from.Element!, to.Element!)))
                        .ToList();
                case SqlTypeKind.Struct:
                    object?[] fields = (object?[])value;
                    return to.Fields.Select((f, i) => Cast(fields[i], from.Fields[i].Type, f.Type)).ToArray();
                case SqlTypeKind.IntervalYearMonth or SqlTypeKind.IntervalDayTime:
                    return value;
                default:
                    throw SqlError.DataType($"Cannot cast {from.Sql} to {to.Sql}.");
            }
        }

        private static object FromString(string text, SqlType to, string original)
        {
            SqlError Invalid() => SqlError.InvalidCast($"'{original}'", "STRING", to.Sql);
            switch (to.Kind)
            {
                case SqlTypeKind.Boolean:
                    return text.ToLowerInvariant() switch
                    {
                        "true" or "t" or "yes" or "y" or "1" => true,
                        "false" or "f" or "no" or "n" or "0" => false,
                        _ => throw Invalid(),
                    };
                case SqlTypeKind.TinyInt or SqlTypeKind.SmallInt or SqlTypeKind.Int or SqlTypeKind.BigInt:
                    if (!BigInteger.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out BigInteger integral))
                    {
                        if (!TryParseDecimal(text, out DecimalValue fractional))
                        {
                            throw Invalid();
                        }

                        integral = fractional.Rescale(0).Unscaled;
                    }

                    return FitIntegral(integral, to, $"'{original}'", "STRING");
                case SqlTypeKind.Float or SqlTypeKind.Double:
                    double number = text.ToLowerInvariant() switch
                    {
                        "nan" => double.NaN,
                        "inf" or "infinity" or "+infinity" => double.PositiveInfinity,
                        "-inf" or "-infinity" => double.NegativeInfinity,
                        _ => double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double parsed) ? parsed : throw Invalid(),
                    };
                    return to.Kind == SqlTypeKind.Float ? (float)number : number;
                case SqlTypeKind.Decimal:
                    return TryParseDecimal(text, out DecimalValue value) ? FitDecimal(value, to, $"'{original}'", "STRING") : throw Invalid();
                case SqlTypeKind.Date:
                    return SqlLiterals.ParseDate(text) ?? throw Invalid();
                case SqlTypeKind.Timestamp:
                    return SqlLiterals.ParseTimestamp(text, ntz: false) ?? throw Invalid();
                case SqlTypeKind.TimestampNtz:
                    return SqlLiterals.ParseTimestamp(text, ntz: true)?.DateTime ?? throw Invalid();
                case SqlTypeKind.Binary:
                    return Encoding.UTF8.GetBytes(original);
                default:
                    throw SqlError.DataType($"Cannot cast STRING to {to.Sql}.");
            }
        }

        private static bool TryParseDecimal(string text, out DecimalValue value)
        {
            try
            {
                value = DecimalValue.Parse(text);
                return true;
            }
            catch (FormatException)
            {
                value = default;
                return false;
            }
        }

        public static DecimalValue ToDecimal(object value, SqlType from) => value switch
        {
            DecimalValue d => d,
            sbyte v => new DecimalValue(v, 0),
            short v => new DecimalValue(v, 0),
            int v => new DecimalValue(v, 0),
            long v => new DecimalValue(v, 0),
            bool v => new DecimalValue(v ? 1 : 0, 0),
            double v when double.IsFinite(v) => DecimalValue.Parse(v.ToString("R", CultureInfo.InvariantCulture)),
            float v when float.IsFinite(v) => DecimalValue.Parse(v.ToString("R", CultureInfo.InvariantCulture)),
            _ => throw SqlError.Overflow(SqlValues.ToHiveString(value, from) ?? "NULL", from.Sql, "DECIMAL"),
        };

        public static double ToDouble(object value, SqlType from) => value switch
        {
            double v => v,
            float v => v,
            DecimalValue d => d.ToDouble(),
            bool v => v ? 1 : 0,
            _ => Convert.ToDouble(value, CultureInfo.InvariantCulture),
        };

        private static object ToIntegral(object value, SqlType from, SqlType to)
        {
            string text = SqlValues.ToHiveString(value, from) ?? "NULL";
            BigInteger integral = value switch
            {
                double v when !double.IsFinite(v) => throw SqlError.Overflow(text, from.Sql, to.Sql),
                float v when !float.IsFinite(v) => throw SqlError.Overflow(text, from.Sql, to.Sql),
                double v => new BigInteger(Math.Truncate(v)),
                float v => new BigInteger(Math.Truncate(v)),
                DecimalValue d => BigInteger.Divide(d.Unscaled, BigInteger.Pow(10, d.Scale)),
                bool v => v ? 1 : 0,
                _ => new BigInteger(Convert.ToInt64(value, CultureInfo.InvariantCulture)),
            };
            return FitIntegral(integral, to, text, from.Sql);
        }

        public static object FitIntegral(BigInteger value, SqlType to, string text, string from)
        {
            (BigInteger min, BigInteger max) = to.Kind switch
            {
                SqlTypeKind.TinyInt => ((BigInteger)sbyte.MinValue, (BigInteger)sbyte.MaxValue),
                SqlTypeKind.SmallInt => (short.MinValue, short.MaxValue),
                SqlTypeKind.Int => (int.MinValue, int.MaxValue),
                _ => (long.MinValue, long.MaxValue),
            };
            if (value < min || value > max)
            {
                throw SqlError.Overflow(text, from, to.Sql);
            }

            return to.Kind switch
            {
                SqlTypeKind.TinyInt => (sbyte)value,
                SqlTypeKind.SmallInt => (short)value,
                SqlTypeKind.Int => (int)value,
                _ => (object)(long)value,
            };
        }

        private static DecimalValue ToDecimalType(object value, SqlType from, SqlType to) =>
            FitDecimal(ToDecimal(value, from), to, SqlValues.ToHiveString(value, from) ?? "NULL", from.Sql);

        /// <summary>The value at the type's scale (rounded half up), or NUMERIC_VALUE_OUT_OF_RANGE when it has too many digits.</summary>
        public static DecimalValue FitDecimal(DecimalValue value, SqlType to, string text, string from)
        {
            DecimalValue scaled = value.Rescale(to.Scale);
            if (BigInteger.Abs(scaled.Unscaled) >= BigInteger.Pow(10, to.Precision))
            {
                throw new SqlError("NUMERIC_VALUE_OUT_OF_RANGE", $"{text} cannot be represented as {to.Sql}. If necessary set \"ansi_mode\" to \"false\" to bypass this error, and return NULL instead.", "22003");
            }

            return scaled;
        }
    }
}
