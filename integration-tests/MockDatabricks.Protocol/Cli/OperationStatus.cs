using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TGetOperationStatusReq: operationHandle (1) required, getProgressUpdate (2) optional.</summary>
    public sealed class TGetOperationStatusReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public bool? GetProgressUpdate { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, OperationHandle);
            if (GetProgressUpdate is bool progress)
            {
                writer.WriteBoolField(2, progress);
            }

            writer.WriteFieldStop();
        }

        public static TGetOperationStatusReq Read(ThriftReader reader)
        {
            var value = new TGetOperationStatusReq();
            bool hasHandle = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.Struct:
                        value.OperationHandle = TOperationHandle.Read(reader);
                        hasHandle = true;
                        break;
                    case 2 when type == ThriftType.Bool:
                        value.GetProgressUpdate = reader.ReadBool();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasHandle, nameof(TGetOperationStatusReq), "operationHandle");
            return value;
        }
    }

    /// <summary>TGetOperationStatusResp: status (1) required; operationState (2) needed (unset reads as INITIALIZED).</summary>
    public sealed class TGetOperationStatusResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public TOperationState? OperationState { get; set; }

        public string? SqlState { get; set; }

        public int? ErrorCode { get; set; }

        public string? ErrorMessage { get; set; }

        public bool? HasResultSet { get; set; }

        public long? NumModifiedRows { get; set; }

        /// <summary>Leave unset on success: the driver throws any non-empty displayMessage as an error.</summary>
        public string? DisplayMessage { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            if (OperationState is TOperationState state)
            {
                writer.WriteI32Field(2, (int)state);
            }

            if (SqlState != null)
            {
                writer.WriteStringField(3, SqlState);
            }

            if (ErrorCode is int errorCode)
            {
                writer.WriteI32Field(4, errorCode);
            }

            if (ErrorMessage != null)
            {
                writer.WriteStringField(5, ErrorMessage);
            }

            if (HasResultSet is bool hasResultSet)
            {
                writer.WriteBoolField(9, hasResultSet);
            }

            if (NumModifiedRows is long modified)
            {
                writer.WriteI64Field(11, modified);
            }

            if (DisplayMessage != null)
            {
                writer.WriteStringField(1281, DisplayMessage);
            }

            writer.WriteFieldStop();
        }

        public static TGetOperationStatusResp Read(ThriftReader reader)
        {
            var value = new TGetOperationStatusResp();
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
                    case 2 when type == ThriftType.I32:
                        value.OperationState = (TOperationState)reader.ReadI32();
                        break;
                    case 3 when type == ThriftType.String:
                        value.SqlState = reader.ReadString();
                        break;
                    case 4 when type == ThriftType.I32:
                        value.ErrorCode = reader.ReadI32();
                        break;
                    case 5 when type == ThriftType.String:
                        value.ErrorMessage = reader.ReadString();
                        break;
                    case 9 when type == ThriftType.Bool:
                        value.HasResultSet = reader.ReadBool();
                        break;
                    case 11 when type == ThriftType.I64:
                        value.NumModifiedRows = reader.ReadI64();
                        break;
                    case 1281 when type == ThriftType.String:
                        value.DisplayMessage = reader.ReadString();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasStatus, nameof(TGetOperationStatusResp), "status");
            return value;
        }
    }
}
