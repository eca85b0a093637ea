using System;

namespace MockDatabricks.Protocol.Cli
{
    // Hand-written helpers beside the structs generated from Thrift/mock_tcli.thrift.

    public partial class THandleIdentifier
    {
        /// <summary>
        /// A fresh handle whose guid and secret are random UUIDs in RFC 4122 byte order, as a warehouse sends them.
        /// Why not <c>Guid.ToByteArray()</c>: .NET writes its first three fields little-endian, which moves the version
        /// nibble out of byte 6; clients that validate handles (the Node.js driver's uuid.stringify) then reject about
        /// half of them.
        /// </summary>
        public static THandleIdentifier CreateRandom() =>
            new THandleIdentifier(System.Guid.NewGuid().ToByteArray(bigEndian: true), System.Guid.NewGuid().ToByteArray(bigEndian: true));

        /// <summary>Lower-case hex of the guid: how the server keys sessions and operations and names them in the journal.</summary>
        public string ToHex() => Convert.ToHexStringLower(Guid);
    }

    public partial class TColumnDesc
    {
        /// <summary>A column of a primitive type: typeDesc = TTypeDesc{ types = [ TTypeEntry{ primitiveEntry = { type } } ] }.</summary>
        public static TColumnDesc Primitive(string name, TTypeId type, int position) =>
            new TColumnDesc(name, new TTypeDesc(new() { new TTypeEntry { PrimitiveEntry = new TPrimitiveTypeEntry(type) } }), position);

        /// <summary>
        /// The descriptor of a SQL column: its Thrift type id (complex and interval types too: a warehouse describes every
        /// column with one primitiveEntry), DECIMAL precision and scale and VARCHAR/CHAR length as type qualifiers.
        /// </summary>
        public static TColumnDesc Of(Data.SqlField field, int position)
        {
            TColumnDesc column = Primitive(field.Name, field.Type.ThriftTypeId, position);
            if (field.Type.Kind == Data.SqlTypeKind.Decimal)
            {
                column.TypeDesc.Types[0].PrimitiveEntry.TypeQualifiers = new TTypeQualifiers(new()
                {
                    ["precision"] = new TTypeQualifierValue { I32Value = field.Type.Precision },
                    ["scale"] = new TTypeQualifierValue { I32Value = field.Type.Scale },
                });
            }
            else if (field.Type.Kind is Data.SqlTypeKind.Varchar or Data.SqlTypeKind.Char)
            {
                column.TypeDesc.Types[0].PrimitiveEntry.TypeQualifiers = new TTypeQualifiers(new()
                {
                    ["characterMaximumLength"] = new TTypeQualifierValue { I32Value = field.Type.Length },
                });
            }

            return column;
        }

        public TTypeId TypeId => TypeDesc.Types[0].PrimitiveEntry.Type;
    }

    public partial class TStatus
    {
        public static TStatus Ok() => new TStatus(TStatusCode.Success);

        public static TStatus Failure(string message, string sqlState = "42000", int errorCode = 500, TStatusCode code = TStatusCode.Error) =>
            new TStatus(code) { ErrorMessage = message, SqlState = sqlState, ErrorCode = errorCode };
    }

    /// <summary>TProtocolVersion values the mock deals with (the driver refuses servers below SPARK V1).</summary>
    public static class TProtocolVersion
    {
        public const int HiveV7 = 6;
        public const int HiveV8 = 7;
        public const int HiveV9 = 8;
        public const int SparkV1 = 42241;
        public const int SparkV7 = 42247;
        public const int SparkV9 = 42249;
    }

    /// <summary>TGetInfoType codes the driver asks for.</summary>
    public static class TGetInfoType
    {
        public const int DbmsName = 17;
        public const int DbmsVersion = 18;
    }
}
