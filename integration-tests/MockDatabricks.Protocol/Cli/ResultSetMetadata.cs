using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TGetResultSetMetadataReq: operationHandle (1) required.</summary>
    public sealed class TGetResultSetMetadataReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, OperationHandle);
            writer.WriteFieldStop();
        }

        public static TGetResultSetMetadataReq Read(ThriftReader reader) =>
            new TGetResultSetMetadataReq { OperationHandle = OperationHandleRequest.ReadHandleOnly(reader, nameof(TGetResultSetMetadataReq)) };
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

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            if (Schema != null)
            {
                writer.WriteStructField(2, Schema);
            }

            if (ResultFormat is TSparkRowSetType format)
            {
                writer.WriteI32Field(1281, (int)format);
            }

            if (Lz4Compressed is bool lz4)
            {
                writer.WriteBoolField(1282, lz4);
            }

            if (ArrowSchema != null)
            {
                writer.WriteBinaryField(1283, ArrowSchema);
            }

            if (UncompressedBytes is long uncompressed)
            {
                writer.WriteI64Field(1285, uncompressed);
            }

            if (CompressedBytes is long compressed)
            {
                writer.WriteI64Field(1286, compressed);
            }

            writer.WriteFieldStop();
        }

        public static TGetResultSetMetadataResp Read(ThriftReader reader)
        {
            var value = new TGetResultSetMetadataResp();
            bool hasStatus = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.Struct:
                        value.Status = TStatus.Read(reader);
                        hasStatus = true;
                        break;
                    case 2 when type == ThriftType.Struct:
                        value.Schema = TTableSchema.Read(reader);
                        break;
                    case 1281 when type == ThriftType.I32:
                        value.ResultFormat = (TSparkRowSetType)reader.ReadI32();
                        break;
                    case 1282 when type == ThriftType.Bool:
                        value.Lz4Compressed = reader.ReadBool();
                        break;
                    case 1283 when type == ThriftType.String:
                        value.ArrowSchema = reader.ReadBinary();
                        break;
                    case 1285 when type == ThriftType.I64:
                        value.UncompressedBytes = reader.ReadI64();
                        break;
                    case 1286 when type == ThriftType.I64:
                        value.CompressedBytes = reader.ReadI64();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasStatus, nameof(TGetResultSetMetadataResp), "status");
            return value;
        }
    }
}
