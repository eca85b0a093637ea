using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TTableSchema: columns (1, required list of TColumnDesc).</summary>
    public sealed class TTableSchema : IThriftStruct
    {
        public List<TColumnDesc> Columns { get; set; } = new List<TColumnDesc>();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructListFieldAsync(1, Columns, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TTableSchema> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            List<TColumnDesc>? columns = null;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                if (id == 1 && type == TType.List)
                {
                    columns = await reader.ReadStructListAsync(TColumnDesc.ReadAsync, ct);
                }
                else
                {
                    await reader.SkipAsync(type, ct);
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(columns != null, nameof(TTableSchema), "columns");
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

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStringFieldAsync(1, ColumnName, ct);

            // typeDesc = TTypeDesc{ types(1) = [ TTypeEntry{ primitiveEntry(1) = TPrimitiveTypeEntry{ type(1) } } ] }
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.Struct, 2), ct);
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.List, 1), ct);
            await writer.WriteListBeginAsync(new TList(TType.Struct, 1), ct);
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.Struct, 1), ct);
            await writer.WriteI32FieldAsync(1, (int)TypeId, ct);
            await writer.WriteFieldStopAsync(ct); // TPrimitiveTypeEntry
            await writer.WriteFieldStopAsync(ct); // TTypeEntry
            await writer.WriteFieldStopAsync(ct); // TTypeDesc

            await writer.WriteI32FieldAsync(3, Position, ct);
            if (Comment != null)
            {
                await writer.WriteStringFieldAsync(4, Comment, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TColumnDesc> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TColumnDesc();
            bool hasName = false, hasType = false, hasPosition = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.String:
                        value.ColumnName = await reader.ReadStringAsync(ct);
                        hasName = true;
                        break;
                    case 2 when type == TType.Struct:
                        value.TypeId = await ReadFirstPrimitiveTypeAsync(reader, ct);
                        hasType = true;
                        break;
                    case 3 when type == TType.I32:
                        value.Position = await reader.ReadI32Async(ct);
                        hasPosition = true;
                        break;
                    case 4 when type == TType.String:
                        value.Comment = await reader.ReadStringAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasName, nameof(TColumnDesc), "columnName");
            ThriftFields.Require(hasType, nameof(TColumnDesc), "typeDesc");
            ThriftFields.Require(hasPosition, nameof(TColumnDesc), "position");
            return value;
        }

        /// <summary>Reads TTypeDesc and returns types[0].primitiveEntry.type, as the driver does (other entries are skipped).</summary>
        private static async Task<TTypeId> ReadFirstPrimitiveTypeAsync(TProtocol reader, CancellationToken ct)
        {
            TTypeId? result = null;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                if (id != 1 || type != TType.List)
                {
                    await reader.SkipAsync(type, ct);
                    continue;
                }

                TList list = await reader.ReadListBeginAsync(ct);
                (TType elementType, int count) = (list.ElementType, list.Count);
                for (int i = 0; i < count; i++)
                {
                    if (elementType != TType.Struct)
                    {
                        await reader.SkipAsync(elementType, ct);
                        continue;
                    }

                    // TTypeEntry union
                    await reader.ReadStructBeginAsync(ct);
                    while (await reader.ReadFieldHeaderAsync(ct) is (true, var entryType, var entryId))
                    {
                        if (entryId == 1 && entryType == TType.Struct)
                        {
                            await reader.ReadStructBeginAsync(ct);
                            while (await reader.ReadFieldHeaderAsync(ct) is (true, var primType, var primId))
                            {
                                if (primId == 1 && primType == TType.I32)
                                {
                                    TTypeId typeId = (TTypeId)await reader.ReadI32Async(ct);
                                    result ??= typeId;
                                }
                                else
                                {
                                    await reader.SkipAsync(primType, ct);
                                }
                            }

                            await reader.ReadStructEndAsync(ct);
                        }
                        else
                        {
                            await reader.SkipAsync(entryType, ct);
                        }
                    }

                    await reader.ReadStructEndAsync(ct);
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(result != null, "TTypeDesc", "types[0].primitiveEntry.type");
            return result!.Value;
        }
    }
}
