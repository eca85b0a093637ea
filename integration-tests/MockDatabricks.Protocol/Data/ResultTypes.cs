using System;
using System.Buffers.Binary;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// Which of the data set's columns travel as native Arrow types, from the client's TSparkArrowTypes
    /// (useArrowNativeTypes). A warehouse sends a TIMESTAMP as Arrow timestamp only with timestampAsArrow=true and a
    /// DECIMAL as Arrow decimal only with decimalAsArrow=true; otherwise both are Utf8 columns holding
    /// <see cref="HiveStrings"/> (the column descriptors keep TIMESTAMP_TYPE / DECIMAL_TYPE). ARRAY, MAP and STRUCT columns are
    /// native Arrow lists, maps and structs only with complexTypesAsArrow=true, INTERVAL columns Arrow intervals and
    /// durations only with intervalTypesAsArrow=true; otherwise their warehouse strings (<see cref="SqlValues"/>). The
    /// mock.* data sets have neither, so those two flags matter only for SQL results (<see cref="ArrowColumns"/>).
    /// </summary>
    public sealed record ResultTypes(bool TimestampAsArrow, bool DecimalAsArrow, bool ComplexTypesAsArrow = false, bool IntervalTypesAsArrow = false)
    {
        /// <summary>What the ADBC driver asks for (timestamps and decimals native).</summary>
        public static readonly ResultTypes Native = new ResultTypes(true, true);

        public bool IsNative => TimestampAsArrow && DecimalAsArrow;

        /// <summary>Short form for cache keys and the journal: "native", "ts=string,dec=native", ... plus ",complex" / ",interval" when those are native.</summary>
        public override string ToString() =>
            (IsNative ? "native" : $"ts={(TimestampAsArrow ? "native" : "string")},dec={(DecimalAsArrow ? "native" : "string")}")
            + (ComplexTypesAsArrow ? ",complex" : string.Empty) + (IntervalTypesAsArrow ? ",interval" : string.Empty);

        public Schema Apply(Schema schema) =>
            IsNative ? schema : new Schema(schema.FieldsList.Select(f => AsString(f.DataType) ? new Field(f.Name, StringType.Default, f.IsNullable) : f), schema.Metadata);

        public RecordBatch Apply(RecordBatch batch)
        {
            if (IsNative)
            {
                return batch;
            }

            IArrowArray[] columns = Enumerable.Range(0, batch.ColumnCount)
                .Select(i => AsString(batch.Column(i).Data.DataType) ? ToStrings(batch.Column(i)) : batch.Column(i))
                .ToArray();
            return new RecordBatch(Apply(batch.Schema), columns, batch.Length);
        }

        private bool AsString(IArrowType type) =>
            (type is TimestampType && !TimestampAsArrow) || (type is Decimal128Type && !DecimalAsArrow);

        /// <summary>A timestamp or decimal column as the strings a warehouse sends in its place (nulls stay null).</summary>
        public static StringArray ToStrings(IArrowArray column)
        {
            var builder = new StringArray.Builder();
            for (int i = 0; i < column.Length; i++)
            {
                string? text = column.IsNull(i) ? null : column switch
                {
                    TimestampArray t => HiveStrings.Timestamp(t.GetValue(i)!.Value),
                    Decimal128Array d => HiveStrings.Decimal(BinaryPrimitives.ReadInt128LittleEndian(d.GetBytes(i)), ((Decimal128Type)d.Data.DataType).Scale),
                    Date32Array d => HiveStrings.Date(d.GetValue(i)!.Value),
                    _ => throw new NotSupportedException($"No warehouse string form for {column.Data.DataType.Name} here."),
                };
                if (text == null)
                {
                    builder.AppendNull();
                }
                else
                {
                    builder.Append(text);
                }
            }

            return builder.Build();
        }
    }
}
