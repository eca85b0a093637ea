using System.Buffers.Binary;
using System.IO;
using System.Text.Json;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Server.Rest
{
    /// <summary>
    /// Rows of a record batch as the JSON_ARRAY format's data_array: every value a string, SQL NULL a JSON null, in the
    /// forms the Thrift path and the driver use for values sent as text: timestamps, dates and decimals as Spark's strings
    /// (<see cref="HiveStrings"/>), intervals as "Y-M" and "D HH:MM:SS.nnnnnnnnn" (the driver's own interval strings),
    /// arrays, maps and structs as JSON text; doubles round-trip ("R"), booleans "true"/"false", binary base64.
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
                Decimal128Array a => HiveStrings.Decimal(BinaryPrimitives.ReadInt128LittleEndian(a.GetBytes(index)), ((Decimal128Type)a.Data.DataType).Scale),
                StringArray a => a.GetString(index),
                BinaryArray a => Convert.ToBase64String(a.GetBytes(index)),
                TimestampArray a => HiveStrings.Timestamp(a.GetValue(index)!.Value),
                Date32Array a => HiveStrings.Date(a.GetValue(index)!.Value),
                YearMonthIntervalArray a => YearMonth(a.GetValue(index)!.Value.Months),
                DurationArray a => Duration(a.GetValue(index)!.Value, ((DurationType)a.Data.DataType).Unit),
                ListArray or StructArray => Json(array, index),
                _ => throw new NotSupportedException($"JSON_ARRAY has no form for Arrow type {array.Data.DataType.Name} in the mock."),
            };
        }

        /// <summary>"Y-M" ("-1-6" for minus 18 months).</summary>
        private static string YearMonth(int months) =>
            string.Create(CultureInfo.InvariantCulture, $"{(months < 0 ? "-" : string.Empty)}{Math.Abs((long)months) / 12}-{Math.Abs((long)months) % 12}");

        /// <summary>"D HH:MM:SS.nnnnnnnnn".</summary>
        private static string Duration(long value, TimeUnit unit)
        {
            long nanosPerUnit = unit switch
            {
                TimeUnit.Second => 1_000_000_000,
                TimeUnit.Millisecond => 1_000_000,
                TimeUnit.Microsecond => 1_000,
                _ => 1,
            };
            Int128 nanos = (Int128)value * nanosPerUnit;
            bool negative = nanos < 0;
            UInt128 total = (UInt128)(negative ? -nanos : nanos);
            ulong fraction = (ulong)(total % 1_000_000_000);
            ulong seconds = (ulong)(total / 1_000_000_000);
            return string.Create(CultureInfo.InvariantCulture,
                $"{(negative ? "-" : string.Empty)}{seconds / 86_400} {seconds / 3_600 % 24:D2}:{seconds / 60 % 60:D2}:{seconds % 60:D2}.{fraction:D9}");
        }

        /// <summary>An array, map or struct value as JSON text (maps as objects keyed by their keys' text).</summary>
        private static string Json(IArrowArray array, int index)
        {
            using var buffer = new MemoryStream();
            using (var json = new Utf8JsonWriter(buffer))
            {
                WriteJson(json, array, index);
            }

            return Encoding.UTF8.GetString(buffer.ToArray());
        }

        private static void WriteJson(Utf8JsonWriter json, IArrowArray array, int index)
        {
            if (array.IsNull(index))
            {
                json.WriteNullValue();
                return;
            }

            switch (array)
            {
                case MapArray map:
                    json.WriteStartObject();
                    for (int i = map.ValueOffsets[index]; i < map.ValueOffsets[index + 1]; i++)
                    {
                        json.WritePropertyName(Text(map.Keys, i) ?? "null");
                        WriteJson(json, map.Values, i);
                    }

                    json.WriteEndObject();
                    break;
                case ListArray list:
                    json.WriteStartArray();
                    for (int i = list.ValueOffsets[index]; i < list.ValueOffsets[index + 1]; i++)
                    {
                        WriteJson(json, list.Values, i);
                    }

                    json.WriteEndArray();
                    break;
                case StructArray structure:
                    json.WriteStartObject();
                    var fields = ((StructType)structure.Data.DataType).Fields;
                    for (int f = 0; f < fields.Count; f++)
                    {
                        json.WritePropertyName(fields[f].Name);
                        WriteJson(json, structure.Fields[f], index);
                    }

                    json.WriteEndObject();
                    break;
                case BooleanArray b:
                    json.WriteBooleanValue(b.GetValue(index)!.Value);
                    break;
                case Int8Array or Int16Array or Int32Array or Int64Array or Decimal128Array:
                    json.WriteRawValue(Text(array, index)!);
                    break;
                case FloatArray or DoubleArray:
                    string number = Text(array, index)!;
                    if (double.IsFinite(double.Parse(number, CultureInfo.InvariantCulture)))
                    {
                        json.WriteRawValue(number);
                    }
                    else
                    {
                        json.WriteStringValue(number);
                    }

                    break;
                default:
                    json.WriteStringValue(Text(array, index));
                    break;
            }
        }
    }
}
