using System;
using System.Globalization;
using System.Numerics;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// The text a warehouse sends for a value it does not send natively: Spark's toHiveString forms, which clients parse
    /// (the Go driver with "2006-01-02 15:04:05.999999999" and "2006-01-02", the Python connector with
    /// Decimal()/date.fromisoformat). Seen in recorded warehouse replies (databricks-sql-go testdata, all_types*.json):
    /// TIMESTAMP "2021-07-01 05:43:28", DECIMAL(10,2) "3.30".
    /// </summary>
    public static class HiveStrings
    {
        private const long MicrosPerSecond = 1_000_000;

        /// <summary>"yyyy-MM-dd HH:mm:ss[.ffffff]" in UTC (the mock's session time zone), the fraction without trailing zeros.</summary>
        public static string Timestamp(long microsSinceEpoch)
        {
            long seconds = Math.DivRem(microsSinceEpoch, MicrosPerSecond, out long micros);
            if (micros < 0)
            {
                seconds--;
                micros += MicrosPerSecond;
            }

            string text = DateTimeOffset.FromUnixTimeSeconds(seconds).UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture);
            return micros == 0 ? text : text + "." + micros.ToString("D6", CultureInfo.InvariantCulture).TrimEnd('0');
        }

        /// <summary>"yyyy-MM-dd".</summary>
        public static string Date(int daysSinceEpoch) =>
            DateOnly.FromDayNumber(DateOnly.FromDateTime(DateTime.UnixEpoch).DayNumber + daysSinceEpoch).ToString("yyyy-MM-dd", CultureInfo.InvariantCulture);

        /// <summary>The plain decimal with exactly <paramref name="scale"/> fraction digits (Java's BigDecimal.toPlainString): "-12.3400".</summary>
        public static string Decimal(BigInteger unscaled, int scale)
        {
            string digits = BigInteger.Abs(unscaled).ToString(CultureInfo.InvariantCulture).PadLeft(scale + 1, '0');
            string sign = unscaled.Sign < 0 ? "-" : string.Empty;
            return scale == 0 ? sign + digits : $"{sign}{digits[..^scale]}.{digits[^scale..]}";
        }
    }
}
