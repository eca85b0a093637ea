using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Apache.Arrow;
using MockDatabricks.Protocol.Data;

namespace MockDatabricks.Server.Rest
{
    /// <summary>
    /// Rows of a record batch as the JSON_ARRAY format's data_array: every value a string, SQL NULL a JSON null.
    /// Timestamps, dates and decimals take the same Spark string forms the Thrift path sends in their place
    /// (<see cref="HiveStrings"/>); doubles round-trip ("R"); booleans are "true"/"false"; binary is base64.
    /// </summary>
    public static class JsonArrayRows
    {
        public static List<string?[]> From(RecordBatch batch)
        {
            var rows = new List<string?[]>(batch.Length);
            for (int row = 0; row < batch.Length; row++)
            {
                var values = new string?[batch.ColumnCount];
                for (int column = 0; column < batch.ColumnCount; column++)
                {
                    values[column] = Text(batch.Column(column), row);
                }

                rows.Add(values);
            }

            return rows;
        }

        public static string? Text(IArrowArray array, int index)
        {
            if (array.IsNull(index))
            {
                return null;
            }

            CultureInfo invariant = CultureInfo.InvariantCulture;
            return array switch
            {
                BooleanArray a => a.GetValue(index)!.Value ? "true" : "false",
                Int8Array a => a.GetValue(index)!.Value.ToString(invariant),
                Int16Array a => a.GetValue(index)!.Value.ToString(invariant),
                Int32Array a => a.GetValue(index)!.Value.ToString(invariant),
                Int64Array a => a.GetValue(index)!.Value.ToString(invariant),
                FloatArray a => a.GetValue(index)!.Value.ToString("R", invariant),
                DoubleArray a => a.GetValue(index)!.Value.ToString("R", invariant),
                Decimal128Array a => HiveStrings.Decimal(BinaryPrimitives.ReadInt128LittleEndian(a.GetBytes(index)), ((Apache.Arrow.Types.Decimal128Type)a.Data.DataType).Scale),
                StringArray a => a.GetString(index),
                BinaryArray a => Convert.ToBase64String(a.GetBytes(index)),
                TimestampArray a => HiveStrings.Timestamp(a.GetValue(index)!.Value),
                Date32Array a => HiveStrings.Date(a.GetValue(index)!.Value),
                ListArray a => "[" + string.Join(",", Enumerable.Range(0, a.GetValueLength(index)).Select(i => Quote(a.Values, a.ValueOffsets[index] + i))) + "]",
                _ => throw new NotSupportedException($"JSON_ARRAY has no form for Arrow type {array.Data.DataType.Name} in the mock."),
            };
        }

        private static string Quote(IArrowArray values, int index) =>
            Text(values, index) is string text
                ? values is StringArray ? System.Text.Json.JsonSerializer.Serialize(text) : text
                : "null";
    }
}
