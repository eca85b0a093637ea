using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Numerics;
using System.Text;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>An exact DECIMAL value: unscaled integer and scale (38 digits do not fit .NET's decimal).</summary>
    public readonly record struct DecimalValue(BigInteger Unscaled, int Scale)
    {
        public static DecimalValue Parse(string text)
        {
            string trimmed = text.Trim();
            int exponent = 0;
            int e = trimmed.IndexOfAny(new[] { 'e', 'E' });
            if (e >= 0)
            {
                exponent = int.Parse(trimmed.AsSpan(e + 1), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
                trimmed = trimmed.Substring(0, e);
            }

            bool negative = trimmed.StartsWith('-');
            string digits = trimmed.TrimStart('-', '+');
            int point = digits.IndexOf('.');
            int scale = point < 0 ? 0 : digits.Length - point - 1;
            BigInteger unscaled = BigInteger.Parse(digits.Replace(".", string.Empty, StringComparison.Ordinal), CultureInfo.InvariantCulture);
            scale -= exponent;
            if (scale < 0)
            {
                unscaled *= BigInteger.Pow(10, -scale);
                scale = 0;
            }

            return new DecimalValue(negative ? -unscaled : unscaled, scale);
        }

        /// <summary>Digits before plus after the point, as Spark counts a literal's precision (at least the scale, at least 1).</summary>
        public int Precision => Math.Max(Math.Max(BigInteger.Abs(Unscaled).ToString(CultureInfo.InvariantCulture).Length, Scale), 1);

        /// <summary>The same value at another scale, rounded half up (Spark's CAST rounding).</summary>
        public DecimalValue Rescale(int scale)
        {
            if (scale == Scale)
            {
                return this;
            }

            if (scale > Scale)
            {
                return new DecimalValue(Unscaled * BigInteger.Pow(10, scale - Scale), scale);
            }

            BigInteger divisor = BigInteger.Pow(10, Scale - scale);
            BigInteger quotient = BigInteger.DivRem(BigInteger.Abs(Unscaled), divisor, out BigInteger remainder);
            if (remainder * 2 >= divisor)
            {
                quotient += 1;
            }

            return new DecimalValue(Unscaled.Sign < 0 ? -quotient : quotient, scale);
        }

        public double ToDouble() => double.Parse(ToString(), CultureInfo.InvariantCulture);

        /// <summary>Plain text with exactly <see cref="Scale"/> fraction digits (Java's BigDecimal.toPlainString).</summary>
        public override string ToString() => HiveStrings.Decimal(Unscaled, Scale);
    }

    /// <summary>An INTERVAL YEAR TO MONTH value (or one of its units): a number of months.</summary>
    public readonly record struct YearMonthInterval(int Months);

    /// <summary>An INTERVAL DAY TO SECOND value (or part of it): microseconds.</summary>
    public readonly record struct DayTimeInterval(long Micros);

    /// <summary>
    /// The text forms of values. <see cref="ToHiveString"/> is what a warehouse sends for a value it does not send natively
    /// (column-based results, intervals, complex types as strings, timestamps and decimals as strings): Spark's
    /// HiveResult.toHiveString, with strings quoted inside complex values and the complex values in JSON form.
    /// </summary>
    public static class SqlValues
    {
        public static string? ToHiveString(object? value, SqlType type) => value == null ? null : Format(value, type, nested: false);

        /// <summary>"Y-M" without padding, a minus sign in front when negative: 2 years 6 months is "2-6".</summary>
        public static string YearMonth(int months)
        {
            string sign = months < 0 ? "-" : string.Empty;
            long absolute = Math.Abs((long)months);
            return string.Create(CultureInfo.InvariantCulture, $"{sign}{absolute / 12}-{absolute % 12}");
        }

        /// <summary>"D HH:MM:SS.nnnnnnnnn" (nine fraction digits): 3 days 12:30:15 is "3 12:30:15.000000000".</summary>
        public static string DayTime(long micros)
        {
            string sign = micros < 0 ? "-" : string.Empty;
            ulong absolute = micros < 0 ? (ulong)(-(micros + 1)) + 1 : (ulong)micros;
            ulong seconds = absolute / 1_000_000;
            ulong fraction = absolute % 1_000_000;
            return string.Create(CultureInfo.InvariantCulture,
                $"{sign}{seconds / 86_400} {seconds / 3600 % 24:D2}:{seconds / 60 % 60:D2}:{seconds % 60:D2}.{fraction * 1000:D9}");
        }

        /// <summary>TIMESTAMP_NTZ text: the local date-time "yyyy-MM-dd HH:mm:ss[.ffffff]", fraction without trailing zeros.</summary>
        public static string LocalTimestamp(DateTime value)
        {
            long micros = (value.Ticks - DateTime.UnixEpoch.Ticks) / 10;
            return HiveStrings.Timestamp(micros);
        }

        private static string Format(object value, SqlType type, bool nested)
        {
            switch (type.Kind)
            {
                case SqlTypeKind.Boolean:
                    return (bool)value ? "true" : "false";
                case SqlTypeKind.Float:
                    return FloatText((float)value);
                case SqlTypeKind.Double:
                    return DoubleText((double)value);
                case SqlTypeKind.Decimal:
                    return ((DecimalValue)value).ToString();
                case SqlTypeKind.String or SqlTypeKind.Varchar or SqlTypeKind.Char:
                    return nested ? Quote((string)value) : (string)value;
                case SqlTypeKind.Variant:
                    // JSON text, nested as it is (it is JSON already).
                    return (string)value;
                case SqlTypeKind.Binary:
                    // Spark shows binary as its bytes read as UTF-8 text (inside complex values, base64 is not used either).
                    return Encoding.UTF8.GetString((byte[])value);
                case SqlTypeKind.Date:
                    string date = ((DateOnly)value).ToString("yyyy-MM-dd", CultureInfo.InvariantCulture);
                    return nested ? Quote(date) : date;
                case SqlTypeKind.Timestamp:
                    string timestamp = HiveStrings.Timestamp((((DateTimeOffset)value).UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) / 10);
                    return nested ? Quote(timestamp) : timestamp;
                case SqlTypeKind.TimestampNtz:
                    string local = LocalTimestamp((DateTime)value);
                    return nested ? Quote(local) : local;
                case SqlTypeKind.IntervalYearMonth:
                    string ym = YearMonth(((YearMonthInterval)value).Months);
                    return nested ? Quote(ym) : ym;
                case SqlTypeKind.IntervalDayTime:
                    string dt = DayTime(((DayTimeInterval)value).Micros);
                    return nested ? Quote(dt) : dt;
                case SqlTypeKind.Array:
                    return "[" + string.Join(",", ((IReadOnlyList<object?>)value).Select(v => Nested(v, type.Element!))) + "]";
                case SqlTypeKind.Map:
                    return "{" + string.Join(",", ((IReadOnlyList<KeyValuePair<object?, object?>>)value)
                        .Select(kv => Nested(kv.Key, type.Key!) + ":" + Nested(kv.Value, type.Element!))) + "}";
                case SqlTypeKind.Struct:
                    object?[] fields = (object?[])value;
                    return "{" + string.Join(",", type.Fields.Select((f, i) => Quote(f.Name) + ":" + Nested(fields[i], f.Type))) + "}";
                default:
                    return Convert.ToString(value, CultureInfo.InvariantCulture) ?? string.Empty;
            }
        }

        private static string Nested(object? value, SqlType type) => value == null ? "null" : Format(value, type, nested: true);

        private static string Quote(string text)
        {
            var builder = new StringBuilder(text.Length + 2).Append('"');
            foreach (char c in text)
            {
                builder.Append(c switch
                {
                    '"' => "\\\"",
                    '\\' => "\\\\",
                    '\n' => "\\n",
                    '\r' => "\\r",
                    '\t' => "\\t",
                    _ => c.ToString(),
                });
            }

            return builder.Append('"').ToString();
        }

        /// <summary>Java's Double.toString: "1.0", "0.001", "1.0E7", "1.5E-4", "NaN", "Infinity" (shortest round-trip digits).</summary>
        public static string DoubleText(double value) => JavaFloatingText(value, value.ToString("R", CultureInfo.InvariantCulture));

        /// <summary>Java's Float.toString, with the float's own shortest digits.</summary>
        public static string FloatText(float value) => JavaFloatingText(value, value.ToString("R", CultureInfo.InvariantCulture));

        private static string JavaFloatingText(double value, string shortest)
        {
            if (double.IsNaN(value))
            {
                return "NaN";
            }

            if (double.IsInfinity(value))
            {
                return value > 0 ? "Infinity" : "-Infinity";
            }

            if (value == 0)
            {
                return double.IsNegative(value) ? "-0.0" : "0.0";
            }

            // shortest = [-]digits[.digits][E[+-]n]: reduce to significant digits D and exponent k with value = 0.D x 10^k.
            string sign = shortest.StartsWith('-') ? "-" : string.Empty;
            string body = shortest.TrimStart('-');
            int exponent = 0;
            int e = body.IndexOf('E', StringComparison.Ordinal);
            if (e >= 0)
            {
                exponent = int.Parse(body.AsSpan(e + 1), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
                body = body[..e];
            }

            int point = body.IndexOf('.', StringComparison.Ordinal);
            int integerDigits = point < 0 ? body.Length : point;
            string allDigits = body.Replace(".", string.Empty, StringComparison.Ordinal);
            int leadingZeros = allDigits.Length - allDigits.TrimStart('0').Length;
            string significant = allDigits.Trim('0');
            int k = integerDigits + exponent - leadingZeros;
            double magnitude = Math.Abs(value);
            if (magnitude >= 1e-3 && magnitude < 1e7)
            {
                string integer = k <= 0 ? "0" : significant.PadRight(k, '0')[..k];
                string fraction = k <= 0 ? new string('0', -k) + significant : significant.Length > k ? significant[k..] : string.Empty;
                return sign + integer + "." + (fraction.Length == 0 ? "0" : fraction);
            }

            string mantissa = significant[..1] + "." + (significant.Length > 1 ? significant[1..] : "0");
            return sign + mantissa + "E" + (k - 1).ToString(CultureInfo.InvariantCulture);
        }
    }
}
