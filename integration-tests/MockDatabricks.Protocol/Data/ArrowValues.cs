using System;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>Reads Apache.Arrow arrays as the CLR values <see cref="DatasetGenerator.GetValue"/> returns, and names schemas for messages.</summary>
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
                _ => throw new NotSupportedException($"The mock's data sets have no {array.GetType().Name} columns."),
            };
        }

        /// <summary>Value equality as the tests need it: a timestamp is the same instant whatever its offset.</summary>
        public static bool AreEqual(object? expected, object? actual) => (expected, actual) switch
        {
            (null, null) => true,
            (null, _) or (_, null) => false,
            (DateTimeOffset e, DateTimeOffset a) => e.UtcTicks == a.UtcTicks,
            _ => expected.Equals(actual),
        };

        /// <summary>"id: int64 not null, amount: decimal128(18,4), ...": enough to tell two schemas apart in a message.</summary>
        public static string Describe(Schema schema) => string.Join(", ", schema.FieldsList.Select(f =>
        {
            string type = f.DataType switch
            {
                Decimal128Type d => $"decimal128({d.Precision},{d.Scale})",
                TimestampType t => $"timestamp[{t.Unit}, tz={t.Timezone ?? "none"}]",
                _ => f.DataType.Name,
            };
            return $"{f.Name}: {type}{(f.IsNullable ? string.Empty : " not null")}";
        }));
    }
}
