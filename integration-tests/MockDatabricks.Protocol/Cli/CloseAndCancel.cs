using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TCloseOperationReq: operationHandle (1) required.</summary>
    public sealed class TCloseOperationReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, OperationHandle);
            writer.WriteFieldStop();
        }

        public static TCloseOperationReq Read(ThriftReader reader) =>
            new TCloseOperationReq { OperationHandle = OperationHandleRequest.ReadHandleOnly(reader, nameof(TCloseOperationReq)) };
    }

    /// <summary>TCloseOperationResp: status (1) required.</summary>
    public sealed class TCloseOperationResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            writer.WriteFieldStop();
        }

        public static TCloseOperationResp Read(ThriftReader reader) =>
            new TCloseOperationResp { Status = OperationHandleRequest.ReadStatusOnly(reader, nameof(TCloseOperationResp)) };
    }

    /// <summary>TCancelOperationReq: operationHandle (1) required.</summary>
    public sealed class TCancelOperationReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, OperationHandle);
            writer.WriteFieldStop();
        }

        public static TCancelOperationReq Read(ThriftReader reader) =>
            new TCancelOperationReq { OperationHandle = OperationHandleRequest.ReadHandleOnly(reader, nameof(TCancelOperationReq)) };
    }

    /// <summary>TCancelOperationResp: status (1) required.</summary>
    public sealed class TCancelOperationResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            writer.WriteFieldStop();
        }

        public static TCancelOperationResp Read(ThriftReader reader) =>
            new TCancelOperationResp { Status = OperationHandleRequest.ReadStatusOnly(reader, nameof(TCancelOperationResp)) };
    }

    /// <summary>TCloseSessionReq: sessionHandle (1) required.</summary>
    public sealed class TCloseSessionReq : IThriftStruct
    {
        public TSessionHandle SessionHandle { get; set; } = new TSessionHandle();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, SessionHandle);
            writer.WriteFieldStop();
        }

        public static TCloseSessionReq Read(ThriftReader reader)
        {
            TSessionHandle? handle = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id == 1 && type == ThriftType.Struct)
                {
                    handle = TSessionHandle.Read(reader);
                }
                else
                {
                    reader.Skip(type);
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(handle != null, nameof(TCloseSessionReq), "sessionHandle");
            return new TCloseSessionReq { SessionHandle = handle! };
        }
    }

    /// <summary>TCloseSessionResp: status (1) required.</summary>
    public sealed class TCloseSessionResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            writer.WriteFieldStop();
        }

        public static TCloseSessionResp Read(ThriftReader reader) =>
            new TCloseSessionResp { Status = OperationHandleRequest.ReadStatusOnly(reader, nameof(TCloseSessionResp)) };
    }
}
