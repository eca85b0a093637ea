#if NETFRAMEWORK
using System.Buffers.Binary;
using System.Globalization;
using System.Numerics;
using System.IO;
using System.Net.Http;
using System.Text;
using System.Text.Json;

// The .NET members the probe and the files it links (the mock's data generator, its verifier, the admin client) call,
// for the net472 build that runs under Mono: each does what its .NET member does, with what .NET Framework offers.

namespace System
{
    /// <summary>A date without a time (.NET 6's DateOnly): the data generator's DATE values.</summary>
    internal readonly struct DateOnly : IEquatable<DateOnly>
    {
        private static readonly DateTime s_dayZero = new DateTime(1, 1, 1, 0, 0, 0, DateTimeKind.Unspecified);

        private DateOnly(int dayNumber) => DayNumber = dayNumber;

        public DateOnly(int year, int month, int day)
            : this((int)(new DateTime(year, month, day) - s_dayZero).TotalDays)
        {
        }

        /// <summary>Days since 0001-01-01, as .NET's.</summary>
        public int DayNumber { get; }

        public static DateOnly FromDayNumber(int dayNumber) => new DateOnly(dayNumber);

        public static DateOnly FromDateTime(DateTime dateTime) => new DateOnly((int)(dateTime.Date - s_dayZero).TotalDays);

        public DateTime ToDateTime() => s_dayZero.AddDays(DayNumber);

        public string ToString(string format, IFormatProvider? provider) => ToDateTime().ToString(format, provider);

        public override string ToString() => ToString("yyyy-MM-dd", CultureInfo.InvariantCulture);

        public bool Equals(DateOnly other) => DayNumber == other.DayNumber;

        public override bool Equals(object? obj) => obj is DateOnly other && Equals(other);

        public override int GetHashCode() => DayNumber;

        public static bool operator ==(DateOnly left, DateOnly right) => left.Equals(right);

        public static bool operator !=(DateOnly left, DateOnly right) => !left.Equals(right);
    }

    /// <summary>
    /// A 128-bit integer (.NET 7's Int128) as far as the data generator uses one: a decimal's unscaled value, written and
    /// read as 16 little-endian two's complement bytes (BinaryPrimitives below).
    /// </summary>
    internal readonly struct Int128
    {
        private static readonly BigInteger s_min = -(BigInteger.One << 127);
        private static readonly BigInteger s_max = (BigInteger.One << 127) - 1;

        private Int128(BigInteger value) => Value = value;

        public BigInteger Value { get; }

        public static implicit operator Int128(long value) => new Int128(value);

        public static explicit operator Int128(BigInteger value) => value < s_min || value > s_max
            ? throw new OverflowException($"{value} does not fit in 128 bits")
            : new Int128(value);

        public static implicit operator BigInteger(Int128 value) => value.Value;
    }

    /// <summary>Its own class: two static extension properties of one name (DateTime's below) would clash.</summary>
    internal static class DateTimeOffsetShims
    {
        extension(DateTimeOffset)
        {
            public static DateTimeOffset UnixEpoch => new DateTimeOffset(1970, 1, 1, 0, 0, 0, TimeSpan.Zero);
        }
    }

    internal static class NetFrameworkStaticShims
    {
        extension(DateTime)
        {
            public static DateTime UnixEpoch => new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        }

        extension(Math)
        {
            public static int Clamp(int value, int min, int max) => min > max
                ? throw new ArgumentException($"{min} is above {max}")
                : value < min ? min : value > max ? max : value;

            public static long Clamp(long value, long min, long max) => min > max
                ? throw new ArgumentException($"{min} is above {max}")
                : value < min ? min : value > max ? max : value;
        }

        extension(double)
        {
            public static bool IsNegative(double value) => BitConverter.DoubleToInt64Bits(value) < 0;
        }

        extension(BitConverter)
        {
            public static unsafe int SingleToInt32Bits(float value) => *(int*)&value;
        }

        extension(string)
        {
            /// <summary>string.Create(provider, $"..."): the interpolation formatted with the provider.</summary>
            public static string Create(IFormatProvider provider, FormattableString text) => text.ToString(provider);
        }

        extension(BinaryPrimitives)
        {
            public static void WriteInt128LittleEndian(Span<byte> destination, Int128 value)
            {
                if (destination.Length < 16)
                {
                    throw new ArgumentOutOfRangeException(nameof(destination), "needs 16 bytes");
                }

                byte[] bytes = value.Value.ToByteArray(); // little-endian two's complement, as short as it can be
                destination.Slice(0, 16).Fill(value.Value.Sign < 0 ? (byte)0xFF : (byte)0);
                bytes.AsSpan(0, Math.Min(bytes.Length, 16)).CopyTo(destination);
            }

            public static Int128 ReadInt128LittleEndian(ReadOnlySpan<byte> source) => source.Length < 16
                ? throw new ArgumentOutOfRangeException(nameof(source), "needs 16 bytes")
                : (Int128)new BigInteger(source.Slice(0, 16).ToArray());
        }

        extension(File)
        {
            public static Task WriteAllTextAsync(string path, string contents)
            {
                File.WriteAllText(path, contents);
                return Task.CompletedTask;
            }
        }
    }
}

namespace System
{
    internal static class EnumerableShims
    {
        /// <summary>.NET Core 3's Zip into tuples.</summary>
        public static IEnumerable<(TFirst First, TSecond Second)> Zip<TFirst, TSecond>(this IEnumerable<TFirst> first, IEnumerable<TSecond> second) =>
            first.Zip(second, (a, b) => (a, b));
    }
}

namespace System
{
    internal static class StringShims
    {
        public static bool StartsWith(this string text, char value) => text.Length > 0 && text[0] == value;

        public static int IndexOf(this string text, char value, StringComparison comparison) => text.IndexOf(value.ToString(), comparison);

        public static string Replace(this string text, string oldValue, string newValue, StringComparison comparison) => comparison == StringComparison.Ordinal
            ? text.Replace(oldValue, newValue)
            : throw new NotSupportedException("only an ordinal replace is shimmed");

        public static int GetHashCode(this string text, StringComparison comparison) => comparison switch
        {
            StringComparison.Ordinal => StringComparer.Ordinal.GetHashCode(text),
            StringComparison.OrdinalIgnoreCase => StringComparer.OrdinalIgnoreCase.GetHashCode(text),
            _ => throw new NotSupportedException("only ordinal hash codes are shimmed"),
        };

        public static string GetString(this System.Text.Encoding encoding, ReadOnlySpan<byte> bytes) => encoding.GetString(bytes.ToArray());

        public static int GetBytes(this System.Text.Encoding encoding, string text, Span<byte> destination)
        {
            byte[] bytes = encoding.GetBytes(text);
            bytes.CopyTo(destination);
            return bytes.Length;
        }
    }

    internal static class ParseShims
    {
        extension(int)
        {
            public static int Parse(ReadOnlySpan<char> text, NumberStyles style, IFormatProvider provider) => int.Parse(text.ToString(), style, provider);
        }
    }
}

namespace System.Net.Http.Json
{
    /// <summary>System.Net.Http.Json's calls the admin client makes, over the driver's own System.Text.Json.</summary>
    internal static class HttpClientJsonShims
    {
        public static async Task<T?> GetFromJsonAsync<T>(this HttpClient http, string uri, JsonSerializerOptions options, CancellationToken cancellationToken)
        {
            using HttpResponseMessage response = await http.GetAsync(uri, cancellationToken).ConfigureAwait(false);
            response.EnsureSuccessStatusCode();
            return JsonSerializer.Deserialize<T>(await response.Content.ReadAsStringAsync().ConfigureAwait(false), options);
        }

        public static Task<HttpResponseMessage> PostAsJsonAsync<T>(this HttpClient http, string uri, T value, JsonSerializerOptions options, CancellationToken cancellationToken) =>
            http.PostAsync(uri, new StringContent(JsonSerializer.Serialize(value, options), Encoding.UTF8, "application/json"), cancellationToken);

        public static Task<string> GetStringAsync(this HttpClient http, string uri, CancellationToken cancellationToken) => http.GetStringAsync(uri);
    }
}

namespace Apache.Arrow
{
    /// <summary>Apache.Arrow's DateOnly members (its .NET 6 build's) for the DateOnly above, over its DateTime ones.</summary>
    internal static class ArrowDateShims
    {
        public static Date32Array.Builder Append(this Date32Array.Builder builder, DateOnly value) => builder.Append(value.ToDateTime());

        public static DateOnly? GetDateOnly(this Date32Array array, int index) =>
            array.GetDateTime(index) is DateTime value ? DateOnly.FromDateTime(value) : null;
    }
}
#endif
