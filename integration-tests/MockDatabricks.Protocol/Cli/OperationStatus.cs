using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TGetOperationStatusReq: operationHandle (1) required, getProgressUpdate (2) optional.</summary>
    public sealed class TGetOperationStatusReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public bool? GetProgressUpdate { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, OperationHandle, ct);
            if (GetProgressUpdate is bool progress)
            {
                await writer.WriteBoolFieldAsync(2, progress, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TGetOperationStatusReq> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TGetOperationStatusReq();
            bool hasHandle = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.OperationHandle = await TOperationHandle.ReadAsync(reader, ct);
                        hasHandle = true;
                        break;
                    case 2 when type == TType.Bool:
                        value.GetProgressUpdate = await reader.ReadBoolAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasHandle, nameof(TGetOperationStatusReq), "operationHandle");
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

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            if (OperationState is TOperationState state)
            {
                await writer.WriteI32FieldAsync(2, (int)state, ct);
            }

            if (SqlState != null)
            {
                await writer.WriteStringFieldAsync(3, SqlState, ct);
            }

            if (ErrorCode is int errorCode)
            {
                await writer.WriteI32FieldAsync(4, errorCode, ct);
            }

            if (ErrorMessage != null)
            {
                await writer.WriteStringFieldAsync(5, ErrorMessage, ct);
            }

            if (HasResultSet is bool hasResultSet)
            {
                await writer.WriteBoolFieldAsync(9, hasResultSet, ct);
            }

            if (NumModifiedRows is long modified)
            {
                await writer.WriteI64FieldAsync(11, modified, ct);
            }

            if (DisplayMessage != null)
            {
                await writer.WriteStringFieldAsync(1281, DisplayMessage, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TGetOperationStatusResp> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TGetOperationStatusResp();
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
                    case 2 when type == TType.I32:
                        value.OperationState = (TOperationState)await reader.ReadI32Async(ct);
                        break;
                    case 3 when type == TType.String:
                        value.SqlState = await reader.ReadStringAsync(ct);
                        break;
                    case 4 when type == TType.I32:
                        value.ErrorCode = await reader.ReadI32Async(ct);
                        break;
                    case 5 when type == TType.String:
                        value.ErrorMessage = await reader.ReadStringAsync(ct);
                        break;
                    case 9 when type == TType.Bool:
                        value.HasResultSet = await reader.ReadBoolAsync(ct);
                        break;
                    case 11 when type == TType.I64:
                        value.NumModifiedRows = await reader.ReadI64Async(ct);
                        break;
                    case 1281 when type == TType.String:
                        value.DisplayMessage = await reader.ReadStringAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasStatus, nameof(TGetOperationStatusResp), "status");
            return value;
        }
    }
}
