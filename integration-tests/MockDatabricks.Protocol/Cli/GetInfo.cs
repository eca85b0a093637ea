using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TGetInfoReq: sessionHandle (1) and infoType (2, i32) required.</summary>
    public sealed class TGetInfoReq : IThriftStruct
    {
        public TSessionHandle SessionHandle { get; set; } = new TSessionHandle();

        public int InfoType { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, SessionHandle);
            writer.WriteI32Field(2, InfoType);
            writer.WriteFieldStop();
        }

        public static TGetInfoReq Read(ThriftReader reader)
        {
            var value = new TGetInfoReq();
            bool hasSession = false, hasType = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.Struct:
                        value.SessionHandle = TSessionHandle.Read(reader);
                        hasSession = true;
                        break;
                    case 2 when type == ThriftType.I32:
                        value.InfoType = reader.ReadI32();
                        hasType = true;
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasSession, nameof(TGetInfoReq), "sessionHandle");
            ThriftReader.Require(hasType, nameof(TGetInfoReq), "infoType");
            return value;
        }
    }

    /// <summary>TGetInfoValue union: the mock only uses stringValue (1); other members are skipped.</summary>
    public sealed class TGetInfoValue : IThriftStruct
    {
        public string? StringValue { get; set; }

        public int? Int32Value { get; set; }

        public void Write(ThriftWriter writer)
        {
            if (StringValue != null)
            {
                writer.WriteStringField(1, StringValue);
            }
            else if (Int32Value is int intValue)
            {
                writer.WriteI32Field(4, intValue);
            }

            writer.WriteFieldStop();
        }

        public static TGetInfoValue Read(ThriftReader reader)
        {
            var value = new TGetInfoValue();
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.String:
                        value.StringValue = reader.ReadString();
                        break;
                    case 4 when type == ThriftType.I32:
                        value.Int32Value = reader.ReadI32();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            return value;
        }
    }

    /// <summary>TGetInfoResp: status (1) and infoValue (2) required.</summary>
    public sealed class TGetInfoResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public TGetInfoValue InfoValue { get; set; } = new TGetInfoValue();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            writer.WriteStructField(2, InfoValue);
            writer.WriteFieldStop();
        }

        public static TGetInfoResp Read(ThriftReader reader)
        {
            var value = new TGetInfoResp();
            bool hasStatus = false, hasValue = false;
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
                        value.InfoValue = TGetInfoValue.Read(reader);
                        hasValue = true;
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasStatus, nameof(TGetInfoResp), "status");
            ThriftReader.Require(hasValue, nameof(TGetInfoResp), "infoValue");
            return value;
        }
    }
}
