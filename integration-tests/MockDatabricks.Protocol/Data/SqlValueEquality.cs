using System;
using System.Collections.Generic;
using System.Linq;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// Equality of a generated value (<see cref="TableColumn.Value"/>) and what a client read back (<see cref="ArrowValues.Read"/>):
    /// structural for lists, maps and structs; a decimal equal at any scale; doubles by their bits (NaN equals NaN, as
    /// the same bits came back); a value served as a string equals its warehouse string.
    /// </summary>
    public static class SqlValueEquality
    {
        public static bool AreEqual(object? expected, object? actual) => (expected, actual) switch
        {
            (null, null) => true,
            (null, _) or (_, null) => false,
            (double e, double a) => BitConverter.DoubleToInt64Bits(e) == BitConverter.DoubleToInt64Bits(a),
            (float e, float a) => BitConverter.SingleToInt32Bits(e) == BitConverter.SingleToInt32Bits(a),
            (DecimalValue e, DecimalValue a) => e.Rescale(Math.Max(e.Scale, a.Scale)) == a.Rescale(Math.Max(e.Scale, a.Scale)),
            (DateTimeOffset e, DateTimeOffset a) => e.UtcTicks == a.UtcTicks,
            (byte[] e, byte[] a) => e.AsSpan().SequenceEqual(a),
            (IReadOnlyList<KeyValuePair<object?, object?>> e, IReadOnlyList<KeyValuePair<object?, object?>> a) =>
                e.Count == a.Count && e.Zip(a).All(p => AreEqual(p.First.Key, p.Second.Key) && AreEqual(p.First.Value, p.Second.Value)),
            (object?[] e, object?[] a) => e.Length == a.Length && e.Zip(a).All(p => AreEqual(p.First, p.Second)),
            (IReadOnlyList<object?> e, IReadOnlyList<object?> a) => e.Count == a.Count && e.Zip(a).All(p => AreEqual(p.First, p.Second)),
            _ => expected.Equals(actual),
        };
    }
}
