using System.Numerics;
using System.Text.RegularExpressions;

namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>
    /// Literals with Spark's types and column names: 1 INT, 3000000000 BIGINT, 1L BIGINT, 1S SMALLINT, 1Y TINYINT,
    /// 1.5 DECIMAL(2,1), 1.5BD DECIMAL(2,1), 1.5D and 1e3 DOUBLE, 1.5F FLOAT; DATE '...', TIMESTAMP '...' (in the session
    /// time zone, UTC), TIMESTAMP_NTZ '...'; INTERVAL '2-6' YEAR TO MONTH, INTERVAL '3 12:30:15' DAY TO SECOND, INTERVAL 1 DAY.
    /// </summary>
    public static partial class SqlLiterals
    {
        private const long MicrosPerSecond = 1_000_000;

        public static LiteralExpr Number(string text, int position)
        {
            string upper = text.ToUpperInvariant();
            try
            {
                if (upper.EndsWith("BD", StringComparison.Ordinal))
                {
                    DecimalValue exact = DecimalValue.Parse(text[..^2]);
                    return new LiteralExpr(exact, SqlType.Decimal(exact.Precision, exact.Scale), exact.ToString(), position);
                }

                char suffix = upper[^1];
                string digits = char.IsLetter(suffix) ? text[..^1] : text;
                switch (suffix)
                {
                    case 'L':
                        return Integral(long.Parse(digits, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture), SqlType.BigInt, position);
                    case 'S':
                        return Integral(short.Parse(digits, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture), SqlType.SmallInt, position);
                    case 'Y':
                        return Integral(sbyte.Parse(digits, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture), SqlType.TinyInt, position);
                    case 'D':
                        double d = double.Parse(digits, NumberStyles.Float, CultureInfo.InvariantCulture);
                        return new LiteralExpr(d, SqlType.Double, SqlValues.DoubleText(d), position);
                    case 'F':
                        float f = float.Parse(digits, NumberStyles.Float, CultureInfo.InvariantCulture);
                        return new LiteralExpr(f, SqlType.Float, SqlValues.FloatText(f), position);
                }

                if (upper.Contains('E', StringComparison.Ordinal))
                {
                    double e = double.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture);
                    return new LiteralExpr(e, SqlType.Double, SqlValues.DoubleText(e), position);
                }

                if (text.Contains('.', StringComparison.Ordinal))
                {
                    DecimalValue value = DecimalValue.Parse(text);
                    return new LiteralExpr(value, SqlType.Decimal(value.Precision, value.Scale), text.StartsWith('.') ? "0" + text : text.Replace("-.", "-0.", StringComparison.Ordinal), position);
                }

                if (int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int small))
                {
                    return Integral(small, SqlType.Int, position);
                }

                if (long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long large))
                {
                    return Integral(large, SqlType.BigInt, position);
                }

                DecimalValue huge = DecimalValue.Parse(text);
                return new LiteralExpr(huge, SqlType.Decimal(huge.Precision, 0), huge.ToString(), position);
            }
            catch (Exception ex) when (ex is OverflowException or FormatException)
            {
                throw new SqlError("INVALID_NUMERIC_LITERAL_RANGE", $"Numeric literal {text} is outside the valid range for its type.", "22003");
            }
        }

        private static LiteralExpr Integral(object value, SqlType type, int position) =>
            new LiteralExpr(value, type, Convert.ToString(value, CultureInfo.InvariantCulture)!, position);

        /// <summary>DATE '...', TIMESTAMP '...', TIMESTAMP_NTZ '...', TIMESTAMP_LTZ '...'.</summary>
        public static LiteralExpr Typed(string keyword, string text, int position)
        {
            switch (keyword)
            {
                case "DATE":
                    DateOnly date = ParseDate(text) ?? throw InvalidTyped("DATE", text);
                    return new LiteralExpr(date, SqlType.Date, $"DATE '{date:yyyy-MM-dd}'", position);
                case "TIMESTAMP_NTZ":
                    DateTime local = ParseTimestamp(text, ntz: true)?.DateTime ?? throw InvalidTyped("TIMESTAMP_NTZ", text);
                    return new LiteralExpr(local, SqlType.TimestampNtz, $"TIMESTAMP_NTZ '{SqlValues.LocalTimestamp(local)}'", position);
                default:
                    DateTimeOffset instant = ParseTimestamp(text, ntz: false) ?? throw InvalidTyped("TIMESTAMP", text);
                    return new LiteralExpr(instant, SqlType.Timestamp, $"TIMESTAMP '{SqlValues.ToHiveString(instant, SqlType.Timestamp)}'", position);
            }
        }

        private static SqlError InvalidTyped(string type, string text) =>
            new SqlError("INVALID_TYPED_LITERAL", $"The value of the typed literal \"{type}\" is invalid: '{text}'.", "42604");

        /// <summary>yyyy-M-d (Spark also accepts a time part after a date, which it drops).</summary>
        public static DateOnly? ParseDate(string text)
        {
            Match match = DateRegex().Match(text.Trim());
            if (!match.Success)
            {
                return null;
            }

            try
            {
                return new DateOnly(int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture), int.Parse(match.Groups[2].Value, CultureInfo.InvariantCulture), int.Parse(match.Groups[3].Value, CultureInfo.InvariantCulture));
            }
            catch (ArgumentOutOfRangeException)
            {
                return null;
            }
        }

        /// <summary>yyyy-M-d[ |T]H:m[:s[.ffffff]][Z|+hh:mm]; without a zone the session time zone (UTC) applies.</summary>
        public static DateTimeOffset? ParseTimestamp(string text, bool ntz)
        {
            Match match = TimestampRegex().Match(text.Trim());
            if (!match.Success)
            {
                return null;
            }

            try
            {
                int Part(int group) => match.Groups[group].Success && match.Groups[group].Length > 0 ? int.Parse(match.Groups[group].Value, CultureInfo.InvariantCulture) : 0;
                var value = new DateTime(Part(1), Part(2), Part(3), Part(4), Part(5), Part(6), DateTimeKind.Unspecified);
                string fraction = match.Groups[7].Success ? match.Groups[7].Value.PadRight(6, '0')[..6] : "0";
                value = value.AddTicks(long.Parse(fraction, CultureInfo.InvariantCulture) * 10);
                TimeSpan offset = TimeSpan.Zero;
                if (!ntz && match.Groups[8].Success && match.Groups[8].Value.Length > 0 && match.Groups[8].Value != "Z")
                {
                    offset = TimeSpan.ParseExact(match.Groups[8].Value.TrimStart('+', '-'), @"hh\:mm", CultureInfo.InvariantCulture);
                    if (match.Groups[8].Value.StartsWith('-'))
                    {
                        offset = -offset;
                    }
                }

                return new DateTimeOffset(value, offset).ToUniversalTime();
            }
            catch (ArgumentOutOfRangeException)
            {
                return null;
            }
        }

        /// <summary>INTERVAL 'text' start [TO end].</summary>
        public static LiteralExpr Interval(string text, string start, string? end, int position)
        {
            SqlType type = MakeIntervalType(start, end);
            string trimmed = text.Trim();
            bool negative = trimmed.StartsWith('-');
            string body = trimmed.TrimStart('-', '+');
            object value;
            if (type.Kind == SqlTypeKind.IntervalYearMonth)
            {
                int months;
                string[] parts = body.Split('-');
                if (start == "YEAR" && end == "MONTH" && parts.Length == 2)
                {
                    months = checked((int.Parse(parts[0], CultureInfo.InvariantCulture) * 12) + int.Parse(parts[1], CultureInfo.InvariantCulture));
                }
                else if (parts.Length == 1 && end == null)
                {
                    months = checked(int.Parse(parts[0], CultureInfo.InvariantCulture) * (start == "YEAR" ? 12 : 1));
                }
                else
                {
                    throw InvalidInterval(text, type);
                }

                value = new YearMonthInterval(negative ? -months : months);
            }
            else
            {
                long micros = ParseDayTime(body, start, end ?? start) ?? throw InvalidInterval(text, type);
                value = new DayTimeInterval(negative ? -micros : micros);
            }

            return new LiteralExpr(value, type, IntervalName(value, type), position);
        }

        /// <summary>INTERVAL 1 DAY 2 HOURS ...: year/month units give a year-month interval, the others a day-time one.</summary>
        public static LiteralExpr IntervalUnits(IReadOnlyList<(string Value, string Unit)> parts, int position)
        {
            bool yearMonth = parts.All(p => p.Unit is "YEAR" or "MONTH");
            if (!yearMonth && parts.Any(p => p.Unit is "YEAR" or "MONTH"))
            {
                throw new SqlError("INVALID_INTERVAL_FORMAT", "Cannot mix year-month and day-time fields in one interval literal.", "22006");
            }

            if (yearMonth)
            {
                int months = parts.Sum(p => int.Parse(p.Value, CultureInfo.InvariantCulture) * (p.Unit == "YEAR" ? 12 : 1));
                SqlType type = SqlType.Interval(parts.Any(p => p.Unit == "YEAR") ? "YEAR" : "MONTH", parts.Any(p => p.Unit == "YEAR") && parts.Any(p => p.Unit == "MONTH") ? "MONTH" : null);
                return new LiteralExpr(new YearMonthInterval(months), type, IntervalName(new YearMonthInterval(months), type), position);
            }

            long micros = 0;
            foreach ((string text, string unit) in parts)
            {
                decimal amount = decimal.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture);
                micros += (long)(amount * unit switch
                {
                    "WEEK" => 7m * 86_400 * MicrosPerSecond,
                    "DAY" => 86_400m * MicrosPerSecond,
                    "HOUR" => 3_600m * MicrosPerSecond,
                    "MINUTE" => 60m * MicrosPerSecond,
                    "SECOND" => MicrosPerSecond,
                    "MILLISECOND" => 1_000m,
                    _ => 1m,
                });
            }

            string[] order = { "DAY", "HOUR", "MINUTE", "SECOND" };
            string Normal(string unit) => unit switch { "WEEK" => "DAY", "MILLISECOND" or "MICROSECOND" => "SECOND", _ => unit };
            string first = order.First(u => parts.Any(p => Normal(p.Unit) == u));
            string last = order.Last(u => parts.Any(p => Normal(p.Unit) == u));
            SqlType dayTime = SqlType.Interval(first, first == last ? null : last);
            return new LiteralExpr(new DayTimeInterval(micros), dayTime, IntervalName(new DayTimeInterval(micros), dayTime), position);
        }

        private static SqlType MakeIntervalType(string start, string? end)
        {
            try
            {
                return SqlType.Interval(start, end);
            }
            catch (FormatException ex)
            {
                throw new SqlError("INVALID_INTERVAL_FORMAT", ex.Message, "22006");
            }
        }

        private static SqlError InvalidInterval(string text, SqlType type) =>
            new SqlError("INVALID_INTERVAL_FORMAT", $"Error parsing '{text}' to interval, invalid format for {type.Sql}.", "22006");

        /// <summary>"D HH:MM:SS.ffffff" and its shorter forms, by the literal's first and last unit.</summary>
        private static long? ParseDayTime(string body, string start, string end)
        {
            string[] units = { "DAY", "HOUR", "MINUTE", "SECOND" };
            int from = Array.IndexOf(units, start);
            int to = Array.IndexOf(units, end);
            string[] pieces = body.Split(' ', ':');
            if (pieces.Length != to - from + 1)
            {
                return null;
            }

            long micros = 0;
            for (int i = 0; i < pieces.Length; i++)
            {
                string unit = units[from + i];
                if (unit == "SECOND")
                {
                    if (!decimal.TryParse(pieces[i], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out decimal seconds))
                    {
                        return null;
                    }

                    micros += (long)(seconds * MicrosPerSecond);
                }
                else
                {
                    if (!long.TryParse(pieces[i], NumberStyles.None, CultureInfo.InvariantCulture, out long amount))
                    {
                        return null;
                    }

                    micros += amount * unit switch { "DAY" => 86_400L, "HOUR" => 3_600L, _ => 60L } * MicrosPerSecond;
                }
            }

            return micros;
        }

        /// <summary>Spark's SQL text of an interval literal: INTERVAL '2-6' YEAR TO MONTH, INTERVAL '3 12:30:15' DAY TO SECOND.</summary>
        public static string IntervalName(object value, SqlType type)
        {
            string units = type.Sql["INTERVAL ".Length..];
            if (value is YearMonthInterval ym)
            {
                string text = type.IntervalEnd == null
                    ? (type.IntervalStart == "YEAR" ? ym.Months / 12 : ym.Months).ToString(CultureInfo.InvariantCulture)
                    : SqlValues.YearMonth(ym.Months);
                return $"INTERVAL '{text}' {units}";
            }

            long micros = ((DayTimeInterval)value).Micros;
            string full = SqlValues.DayTime(micros);
            string trimmed = full.EndsWith(".000000000", StringComparison.Ordinal) ? full[..^10] : full.TrimEnd('0');
            return $"INTERVAL '{trimmed}' {units}";
        }

        [GeneratedRegex(@"^([+-]?\d{1,6})-(\d{1,2})-(\d{1,2})(?:[ T].*)?$")]
        private static partial Regex DateRegex();

        [GeneratedRegex(@"^([+-]?\d{1,6})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:\d{2})?$")]
        private static partial Regex TimestampRegex();
    }
}
