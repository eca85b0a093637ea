using System.Collections.Generic;
using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TTableSchema: columns (1, required list of TColumnDesc).</summary>
    public sealed class TTableSchema : IThriftStruct
    {
        public List<TColumnDesc> Columns { get; set; } = new List<TColumnDesc>();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructListField(1, Columns);
            writer.WriteFieldStop();
        }

        public static TTableSchema Read(ThriftReader reader)
        {
            List<TColumnDesc>? columns = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id == 1 && type == ThriftType.List)
                {
                    columns = reader.ReadStructList(TColumnDesc.Read);
                }
                else
                {
                    reader.Skip(type);
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(columns != null, nameof(TTableSchema), "columns");
            return new TTableSchema { Columns = columns! };
        }
    }

    /// <summary>TColumnDesc: columnName (1), typeDesc (2), position (3, 1-based) required; comment (4) optional.</summary>
    public sealed class TColumnDesc : IThriftStruct
    {
        public string ColumnName { get; set; } = string.Empty;

        public TTypeId TypeId { get; set; }

        public int Position { get; set; }

        public string? Comment { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStringField(1, ColumnName);

            // typeDesc = TTypeDesc{ types(1) = [ TTypeEntry{ primitiveEntry(1) = TPrimitiveTypeEntry{ type(1) } } ] }
            writer.WriteFieldBegin(ThriftType.Struct, 2);
            writer.WriteFieldBegin(ThriftType.List, 1);
            writer.WriteListBegin(ThriftType.Struct, 1);
            writer.WriteFieldBegin(ThriftType.Struct, 1);
            writer.WriteI32Field(1, (int)TypeId);
            writer.WriteFieldStop(); // TPrimitiveTypeEntry
            writer.WriteFieldStop(); // TTypeEntry
            writer.WriteFieldStop(); // TTypeDesc

            writer.WriteI32Field(3, Position);
            if (Comment != null)
            {
                writer.WriteStringField(4, Comment);
            }

            writer.WriteFieldStop();
        }

        public static TColumnDesc Read(ThriftReader reader)
        {
            var value = new TColumnDesc();
            bool hasName = false, hasType = false, hasPosition = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.String:
                        value.ColumnName = reader.ReadString();
                        hasName = true;
                        break;
                    case 2 when type == ThriftType.Struct:
                        value.TypeId = ReadFirstPrimitiveType(reader);
                        hasType = true;
                        break;
                    case 3 when type == ThriftType.I32:
                        value.Position = reader.ReadI32();
                        hasPosition = true;
                        break;
                    case 4 when type == ThriftType.String:
                        value.Comment = reader.ReadString();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasName, nameof(TColumnDesc), "columnName");
            ThriftReader.Require(hasType, nameof(TColumnDesc), "typeDesc");
            ThriftReader.Require(hasPosition, nameof(TColumnDesc), "position");
            return value;
        }

        /// <summary>Reads TTypeDesc and returns types[0].primitiveEntry.type, as the driver does (other entries are skipped).</summary>
        private static TTypeId ReadFirstPrimitiveType(ThriftReader reader)
        {
            TTypeId? result = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id != 1 || type != ThriftType.List)
                {
                    reader.Skip(type);
                    continue;
                }

                (ThriftType elementType, int count) = reader.ReadListBegin();
                for (int i = 0; i < count; i++)
                {
                    if (elementType != ThriftType.Struct)
                    {
                        reader.Skip(elementType);
                        continue;
                    }

                    // TTypeEntry union
                    reader.ReadStructBegin();
                    while (reader.ReadFieldBegin(out ThriftType entryType, out short entryId))
                    {
                        if (entryId == 1 && entryType == ThriftType.Struct)
                        {
                            reader.ReadStructBegin();
                            while (reader.ReadFieldBegin(out ThriftType primType, out short primId))
                            {
                                if (primId == 1 && primType == ThriftType.I32)
                                {
                                    TTypeId typeId = (TTypeId)reader.ReadI32();
                                    result ??= typeId;
                                }
                                else
                                {
                                    reader.Skip(primType);
                                }
                            }

                            reader.ReadStructEnd();
                        }
                        else
                        {
                            reader.Skip(entryType);
                        }
                    }

                    reader.ReadStructEnd();
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(result != null, "TTypeDesc", "types[0].primitiveEntry.type");
            return result!.Value;
        }
    }
}
