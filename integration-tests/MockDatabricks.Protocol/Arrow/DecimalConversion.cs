using System;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>Exact conversions between System.Decimal and Arrow's Decimal128 (two's complement unscaled value).</summary>
    public static class DecimalConversion
    {
        public static Int128 ToUnscaled(decimal value, int scale)
        {
            Span<int> bits = stackalloc int[4];
            decimal.GetBits(value, bits);
            UInt128 mantissa = ((UInt128)(uint)bits[2] << 64) | ((UInt128)(uint)bits[1] << 32) | (uint)bits[0];
            int valueScale = (bits[3] >> 16) & 0xFF;
            bool negative = bits[3] < 0;
            while (valueScale < scale)
            {
                mantissa *= 10;
                valueScale++;
            }

            while (valueScale > scale)
            {
                if (mantissa % 10 != 0)
                {
                    throw new ArgumentException($"{value} has more than {scale} fractional digits.");
                }

                mantissa /= 10;
                valueScale--;
            }

            Int128 result = (Int128)mantissa;
            return negative ? -result : result;
        }

        public static decimal FromUnscaled(Int128 unscaled, int scale)
        {
            bool negative = unscaled < 0;
            UInt128 magnitude = (UInt128)(negative ? -unscaled : unscaled);
            if (magnitude >> 96 != 0)
            {
                throw new OverflowException($"Decimal128 value {unscaled} does not fit in System.Decimal.");
            }

            int lo = (int)(uint)magnitude;
            int mid = (int)(uint)(magnitude >> 32);
            int hi = (int)(uint)(magnitude >> 64);
            return new decimal(lo, mid, hi, negative, (byte)scale);
        }
    }
}
