using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TGetResultSetMetadataReq: operationHandle (1) required.</summary>
    public sealed class TGetResultSetMetadataReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, OperationHandle, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TGetResultSetMetadataReq> ReadAsync(TProtocol reader, CancellationToken ct) =>
            new TGetResultSetMetadataReq { OperationHandle = await OperationHandleRequest.ReadHandleOnlyAsync(reader, nameof(TGetResultSetMetadataReq), ct) };
    }

    /// <summary>
    /// TGetResultSetMetadataResp: status (1) required; schema (2), resultFormat (1281), lz4Compressed (1282) and
    /// arrowSchema (1283, IPC stream bytes starting with a Schema message) are what the driver reads.
    /// </summary>
    public sealed class TGetResultSetMetadataResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public TTableSchema? Schema { get; set; }

        public TSparkRowSetType? ResultFormat { get; set; }

        public bool? Lz4Compressed { get; set; }

        public byte[]? ArrowSchema { get; set; }

        public long? UncompressedBytes { get; set; }

        public long? CompressedBytes { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            if (Schema != null)
            {
                await writer.WriteStructFieldAsync(2, Schema, ct);
            }

            if (ResultFormat is TSparkRowSetType format)
            {
                await writer.WriteI32FieldAsync(1281, (int)format, ct);
            }

            if (Lz4Compressed is bool lz4)
            {
                await writer.WriteBoolFieldAsync(1282, lz4, ct);
            }

            if (ArrowSchema != null)
            {
                await writer.WriteBinaryFieldAsync(1283, ArrowSchema, ct);
            }

            if (UncompressedBytes is long uncompressed)
            {
                await writer.WriteI64FieldAsync(1285, uncompressed, ct);
            }

            if (CompressedBytes is long compressed)
            {
                await writer.WriteI64FieldAsync(1286, compressed, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TGetResultSetMetadataResp> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TGetResultSetMetadataResp();
            bool hasStatus = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.Status = await TStatus.ReadAsync(reader, ct);
                        hasStatus = true;
                        break;
                    case 2 when type == TType.Struct:
                        value.Schema = await TTableSchema.ReadAsync(reader, ct);
                        break;
                    case 1281 when type == TType.I32:
                        value.ResultFormat = (TSparkRowSetType)await reader.ReadI32Async(ct);
                        break;
                    case 1282 when type == TType.Bool:
                        value.Lz4Compressed = await reader.ReadBoolAsync(ct);
                        break;
                    case 1283 when type == TType.String:
                        value.ArrowSchema = await reader.ReadBinaryAsync(ct);
                        break;
                    case 1285 when type == TType.I64:
                        value.UncompressedBytes = await reader.ReadI64Async(ct);
                        break;
                    case 1286 when type == TType.I64:
                        value.CompressedBytes = await reader.ReadI64Async(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasStatus, nameof(TGetResultSetMetadataResp), "status");
            return value;
        }
    }
}
