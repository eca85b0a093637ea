using System;
using Apache.Arrow;

namespace Harness.Support
{
    /// <summary>Reads one value of an Apache.Arrow array as the CLR type the data set generator uses.</summary>
    public static class ArrowValues
    {
        public static object? Get(IArrowArray array, int index)
        {
            if (array.IsNull(index))
            {
                return null;
            }

            return array switch
            {
                Int32Array a => a.GetValue(index),
                Int64Array a => a.GetValue(index),
                DoubleArray a => a.GetValue(index),
                Decimal128Array a => a.GetValue(index),
                StringArray a => a.GetString(index),
                TimestampArray a => a.GetTimestamp(index),
                Date32Array a => a.GetDateOnly(index),
                BooleanArray a => a.GetValue(index),
                _ => throw new NotSupportedException($"The harness does not read {array.GetType().Name}"),
            };
        }

        public static bool AreEqual(object? expected, object? actual) => (expected, actual) switch
        {
            (null, null) => true,
            (null, _) or (_, null) => false,
            (double e, double a) => e.Equals(a),
            (DateTimeOffset e, DateTimeOffset a) => e.UtcTicks == a.UtcTicks,
            _ => expected.Equals(actual),
        };
    }
}
