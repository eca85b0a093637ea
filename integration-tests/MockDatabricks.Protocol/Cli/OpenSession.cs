using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

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

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            if (ClientProtocol is int protocol)
            {
                await writer.WriteI32FieldAsync(1, protocol, ct);
            }

            if (Username != null)
            {
                await writer.WriteStringFieldAsync(2, Username, ct);
            }

            if (Password != null)
            {
                await writer.WriteStringFieldAsync(3, Password, ct);
            }

            if (Configuration != null)
            {
                await writer.WriteStringMapFieldAsync(4, Configuration, ct);
            }

            if (ClientProtocolI64 is long protocol64)
            {
                await writer.WriteI64FieldAsync(1282, protocol64, ct);
            }

            if (InitialNamespace != null)
            {
                await writer.WriteStructFieldAsync(1284, InitialNamespace, ct);
            }

            if (CanUseMultipleCatalogs is bool multiple)
            {
                await writer.WriteBoolFieldAsync(1285, multiple, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TOpenSessionReq> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TOpenSessionReq();
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.I32:
                        value.ClientProtocol = await reader.ReadI32Async(ct);
                        break;
                    case 2 when type == TType.String:
                        value.Username = await reader.ReadStringAsync(ct);
                        break;
                    case 3 when type == TType.String:
                        value.Password = await reader.ReadStringAsync(ct);
                        break;
                    case 4 when type == TType.Map:
                        value.Configuration = await reader.ReadStringMapAsync(ct);
                        break;
                    case 1282 when type == TType.I64:
                        value.ClientProtocolI64 = await reader.ReadI64Async(ct);
                        break;
                    case 1284 when type == TType.Struct:
                        value.InitialNamespace = await TNamespace.ReadAsync(reader, ct);
                        break;
                    case 1285 when type == TType.Bool:
                        value.CanUseMultipleCatalogs = await reader.ReadBoolAsync(ct);
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

    /// <summary>TOpenSessionResp: status (1) and serverProtocolVersion (2) required; sessionHandle needed by the driver.</summary>
    public sealed class TOpenSessionResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public int ServerProtocolVersion { get; set; } = TProtocolVersion.SparkV7;

        public TSessionHandle? SessionHandle { get; set; }

        public Dictionary<string, string>? Configuration { get; set; }

        public TNamespace? InitialNamespace { get; set; }

        public bool? CanUseMultipleCatalogs { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            await writer.WriteI32FieldAsync(2, ServerProtocolVersion, ct);
            if (SessionHandle != null)
            {
                await writer.WriteStructFieldAsync(3, SessionHandle, ct);
            }

            if (Configuration != null)
            {
                await writer.WriteStringMapFieldAsync(4, Configuration, ct);
            }

            if (InitialNamespace != null)
            {
                await writer.WriteStructFieldAsync(1284, InitialNamespace, ct);
            }

            if (CanUseMultipleCatalogs is bool multiple)
            {
                await writer.WriteBoolFieldAsync(1285, multiple, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TOpenSessionResp> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TOpenSessionResp();
            bool hasStatus = false, hasVersion = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.Status = await TStatus.ReadAsync(reader, ct);
                        hasStatus = true;
                        break;
                    case 2 when type == TType.I32:
                        value.ServerProtocolVersion = await reader.ReadI32Async(ct);
                        hasVersion = true;
                        break;
                    case 3 when type == TType.Struct:
                        value.SessionHandle = await TSessionHandle.ReadAsync(reader, ct);
                        break;
                    case 4 when type == TType.Map:
                        value.Configuration = await reader.ReadStringMapAsync(ct);
                        break;
                    case 1284 when type == TType.Struct:
                        value.InitialNamespace = await TNamespace.ReadAsync(reader, ct);
                        break;
                    case 1285 when type == TType.Bool:
                        value.CanUseMultipleCatalogs = await reader.ReadBoolAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasStatus, nameof(TOpenSessionResp), "status");
            ThriftFields.Require(hasVersion, nameof(TOpenSessionResp), "serverProtocolVersion");
            return value;
        }
    }
}
