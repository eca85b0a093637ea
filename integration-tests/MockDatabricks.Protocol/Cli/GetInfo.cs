using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TGetInfoReq: sessionHandle (1) and infoType (2, i32) required.</summary>
    public sealed class TGetInfoReq : IThriftStruct
    {
        public TSessionHandle SessionHandle { get; set; } = new TSessionHandle();

        public int InfoType { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, SessionHandle, ct);
            await writer.WriteI32FieldAsync(2, InfoType, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TGetInfoReq> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TGetInfoReq();
            bool hasSession = false, hasType = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.SessionHandle = await TSessionHandle.ReadAsync(reader, ct);
                        hasSession = true;
                        break;
                    case 2 when type == TType.I32:
                        value.InfoType = await reader.ReadI32Async(ct);
                        hasType = true;
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasSession, nameof(TGetInfoReq), "sessionHandle");
            ThriftFields.Require(hasType, nameof(TGetInfoReq), "infoType");
            return value;
        }
    }

    /// <summary>TGetInfoValue union: the mock only uses stringValue (1); other members are skipped.</summary>
    public sealed class TGetInfoValue : IThriftStruct
    {
        public string? StringValue { get; set; }

        public int? Int32Value { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            if (StringValue != null)
            {
                await writer.WriteStringFieldAsync(1, StringValue, ct);
            }
            else if (Int32Value is int intValue)
            {
                await writer.WriteI32FieldAsync(4, intValue, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TGetInfoValue> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TGetInfoValue();
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.String:
                        value.StringValue = await reader.ReadStringAsync(ct);
                        break;
                    case 4 when type == TType.I32:
                        value.Int32Value = await reader.ReadI32Async(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            return value;
        }
    }

    /// <summary>TGetInfoResp: status (1) and infoValue (2) required.</summary>
    public sealed class TGetInfoResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public TGetInfoValue InfoValue { get; set; } = new TGetInfoValue();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            await writer.WriteStructFieldAsync(2, InfoValue, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TGetInfoResp> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TGetInfoResp();
            bool hasStatus = false, hasValue = false;
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
                        value.InfoValue = await TGetInfoValue.ReadAsync(reader, ct);
                        hasValue = true;
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasStatus, nameof(TGetInfoResp), "status");
            ThriftFields.Require(hasValue, nameof(TGetInfoResp), "infoValue");
            return value;
        }
    }
}
