using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Server.Rest
{
    /// <summary>
    /// The manifest's column description of an Arrow field as served: type_text (the SQL type the driver maps back to
    /// Arrow with its ArrowTypeParser, so it must name the type the data really has) and type_name (the API's enum).
    /// A field carrying Databricks' "Spark:DataType:SqlName" metadata is described by it (how a warehouse names types
    /// Arrow cannot tell apart, such as INTERVAL sent as a string).
    /// </summary>
    public static class ArrowSqlTypes
    {
        public const string SqlNameMetadataKey = "Spark:DataType:SqlName";

        public static ColumnInfo Describe(Field field, int position)
        {
            string text = field.Metadata != null && field.Metadata.TryGetValue(SqlNameMetadataKey, out string? sqlName) && sqlName.Length > 0
                ? sqlName
                : TypeText(field.DataType);
            string head = text.Split('<', '(', ' ')[0].ToUpperInvariant();
            return new ColumnInfo
            {
                Name = field.Name,
                Position = position,
                TypeText = text,
                TypeName = TypeName(head),
                TypePrecision = field.DataType is Decimal128Type precise ? precise.Precision : null,
                TypeScale = field.DataType is Decimal128Type scaled ? scaled.Scale : null,
                TypeIntervalType = head == "INTERVAL" ? text.Substring("INTERVAL".Length).Trim() : null,
            };
        }

        public static string TypeText(IArrowType type) => type switch
        {
            BooleanType => "BOOLEAN",
            Int8Type => "TINYINT",
            Int16Type => "SMALLINT",
            Int32Type => "INT",
            Int64Type => "BIGINT",
            FloatType => "FLOAT",
            DoubleType => "DOUBLE",
            Decimal128Type d => string.Create(CultureInfo.InvariantCulture, $"DECIMAL({d.Precision},{d.Scale})"),
            StringType => "STRING",
            BinaryType => "BINARY",
            Date32Type => "DATE",
            TimestampType t => string.IsNullOrEmpty(t.Timezone) ? "TIMESTAMP_NTZ" : "TIMESTAMP",
            NullType => "VOID",

            // How a warehouse's REST results carry intervals natively (the driver turns them into strings).
            IntervalType { Unit: IntervalUnit.YearMonth } => "INTERVAL YEAR TO MONTH",
            DurationType => "INTERVAL DAY TO SECOND",
            ListType l => $"ARRAY<{TypeText(l.ValueDataType)}>",
            MapType m => $"MAP<{TypeText(m.KeyField.DataType)}, {TypeText(m.ValueField.DataType)}>",
            StructType s => $"STRUCT<{string.Join(", ", s.Fields.Select(f => $"{f.Name}: {TypeText(f.DataType)}"))}>",
            _ => throw new NotSupportedException($"No SQL type for Arrow type {type.Name}."),
        };

        private static string TypeName(string head) => head switch
        {
            "TINYINT" => "BYTE",
            "SMALLINT" => "SHORT",
            "INT" or "INTEGER" => "INT",
            "BIGINT" => "LONG",
            "TIMESTAMP_NTZ" => "TIMESTAMP",
            "VOID" => "NULL",
            "VARCHAR" => "STRING",
            _ => head,
        };
    }
}
