using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TCloseOperationReq: operationHandle (1) required.</summary>
    public sealed class TCloseOperationReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, OperationHandle, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TCloseOperationReq> ReadAsync(TProtocol reader, CancellationToken ct) =>
            new TCloseOperationReq { OperationHandle = await OperationHandleRequest.ReadHandleOnlyAsync(reader, nameof(TCloseOperationReq), ct) };
    }

    /// <summary>TCloseOperationResp: status (1) required.</summary>
    public sealed class TCloseOperationResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TCloseOperationResp> ReadAsync(TProtocol reader, CancellationToken ct) =>
            new TCloseOperationResp { Status = await OperationHandleRequest.ReadStatusOnlyAsync(reader, nameof(TCloseOperationResp), ct) };
    }

    /// <summary>TCancelOperationReq: operationHandle (1) required.</summary>
    public sealed class TCancelOperationReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, OperationHandle, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TCancelOperationReq> ReadAsync(TProtocol reader, CancellationToken ct) =>
            new TCancelOperationReq { OperationHandle = await OperationHandleRequest.ReadHandleOnlyAsync(reader, nameof(TCancelOperationReq), ct) };
    }

    /// <summary>TCancelOperationResp: status (1) required.</summary>
    public sealed class TCancelOperationResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TCancelOperationResp> ReadAsync(TProtocol reader, CancellationToken ct) =>
            new TCancelOperationResp { Status = await OperationHandleRequest.ReadStatusOnlyAsync(reader, nameof(TCancelOperationResp), ct) };
    }

    /// <summary>TCloseSessionReq: sessionHandle (1) required.</summary>
    public sealed class TCloseSessionReq : IThriftStruct
    {
        public TSessionHandle SessionHandle { get; set; } = new TSessionHandle();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, SessionHandle, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TCloseSessionReq> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            TSessionHandle? handle = null;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                if (id == 1 && type == TType.Struct)
                {
                    handle = await TSessionHandle.ReadAsync(reader, ct);
                }
                else
                {
                    await reader.SkipAsync(type, ct);
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(handle != null, nameof(TCloseSessionReq), "sessionHandle");
            return new TCloseSessionReq { SessionHandle = handle! };
        }
    }

    /// <summary>TCloseSessionResp: status (1) required.</summary>
    public sealed class TCloseSessionResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TCloseSessionResp> ReadAsync(TProtocol reader, CancellationToken ct) =>
            new TCloseSessionResp { Status = await OperationHandleRequest.ReadStatusOnlyAsync(reader, nameof(TCloseSessionResp), ct) };
    }
}
