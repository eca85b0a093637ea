using System.Collections.Generic;
using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TOpenSessionReq (the fields the driver sets; getInfos and connectionProperties are skipped on read).</summary>
    public sealed class TOpenSessionReq : IThriftStruct
    {
        public int? ClientProtocol { get; set; }

        public string? Username { get; set; }

        public string? Password { get; set; }

        public Dictionary<string, string>? Configuration { get; set; }

        public long? ClientProtocolI64 { get; set; }

        public TNamespace? InitialNamespace { get; set; }

        public bool? CanUseMultipleCatalogs { get; set; }

        public void Write(ThriftWriter writer)
        {
            if (ClientProtocol is int protocol)
            {
                writer.WriteI32Field(1, protocol);
            }

            if (Username != null)
            {
                writer.WriteStringField(2, Username);
            }

            if (Password != null)
            {
                writer.WriteStringField(3, Password);
            }

            if (Configuration != null)
            {
                writer.WriteStringMapField(4, Configuration);
            }

            if (ClientProtocolI64 is long protocol64)
            {
                writer.WriteI64Field(1282, protocol64);
            }

            if (InitialNamespace != null)
            {
                writer.WriteStructField(1284, InitialNamespace);
            }

            if (CanUseMultipleCatalogs is bool multiple)
            {
                writer.WriteBoolField(1285, multiple);
            }

            writer.WriteFieldStop();
        }

        public static TOpenSessionReq Read(ThriftReader reader)
        {
            var value = new TOpenSessionReq();
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.I32:
                        value.ClientProtocol = reader.ReadI32();
                        break;
                    case 2 when type == ThriftType.String:
                        value.Username = reader.ReadString();
                        break;
                    case 3 when type == ThriftType.String:
                        value.Password = reader.ReadString();
                        break;
                    case 4 when type == ThriftType.Map:
                        value.Configuration = reader.ReadStringMap();
                        break;
                    case 1282 when type == ThriftType.I64:
                        value.ClientProtocolI64 = reader.ReadI64();
                        break;
                    case 1284 when type == ThriftType.Struct:
                        value.InitialNamespace = TNamespace.Read(reader);
                        break;
                    case 1285 when type == ThriftType.Bool:
                        value.CanUseMultipleCatalogs = reader.ReadBool();
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

    /// <summary>TOpenSessionResp: status (1) and serverProtocolVersion (2) required; sessionHandle needed by the driver.</summary>
    public sealed class TOpenSessionResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public int ServerProtocolVersion { get; set; } = TProtocolVersion.SparkV7;

        public TSessionHandle? SessionHandle { get; set; }

        public Dictionary<string, string>? Configuration { get; set; }

        public TNamespace? InitialNamespace { get; set; }

        public bool? CanUseMultipleCatalogs { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            writer.WriteI32Field(2, ServerProtocolVersion);
            if (SessionHandle != null)
            {
                writer.WriteStructField(3, SessionHandle);
            }

            if (Configuration != null)
            {
                writer.WriteStringMapField(4, Configuration);
            }

            if (InitialNamespace != null)
            {
                writer.WriteStructField(1284, InitialNamespace);
            }

            if (CanUseMultipleCatalogs is bool multiple)
            {
                writer.WriteBoolField(1285, multiple);
            }

            writer.WriteFieldStop();
        }

        public static TOpenSessionResp Read(ThriftReader reader)
        {
            var value = new TOpenSessionResp();
            bool hasStatus = false, hasVersion = false;
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
                        value.ServerProtocolVersion = reader.ReadI32();
                        hasVersion = true;
                        break;
                    case 3 when type == ThriftType.Struct:
                        value.SessionHandle = TSessionHandle.Read(reader);
                        break;
                    case 4 when type == ThriftType.Map:
                        value.Configuration = reader.ReadStringMap();
                        break;
                    case 1284 when type == ThriftType.Struct:
                        value.InitialNamespace = TNamespace.Read(reader);
                        break;
                    case 1285 when type == ThriftType.Bool:
                        value.CanUseMultipleCatalogs = reader.ReadBool();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasStatus, nameof(TOpenSessionResp), "status");
            ThriftReader.Require(hasVersion, nameof(TOpenSessionResp), "serverProtocolVersion");
            return value;
        }
    }
}
