using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TSparkGetDirectResults: maxRows (1, required), maxBytes (2, optional).</summary>
    public sealed class TSparkGetDirectResults : IThriftStruct
    {
        public long MaxRows { get; set; }

        public long? MaxBytes { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteI64FieldAsync(1, MaxRows, ct);
            if (MaxBytes is long maxBytes)
            {
                await writer.WriteI64FieldAsync(2, maxBytes, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TSparkGetDirectResults> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TSparkGetDirectResults();
            bool hasMaxRows = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.I64:
                        value.MaxRows = await reader.ReadI64Async(ct);
                        hasMaxRows = true;
                        break;
                    case 2 when type == TType.I64:
                        value.MaxBytes = await reader.ReadI64Async(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasMaxRows, nameof(TSparkGetDirectResults), "maxRows");
            return value;
        }
    }

    /// <summary>TSparkArrowTypes (all optional bools); the mock reads it only to echo it in tests.</summary>
    public sealed class TSparkArrowTypes : IThriftStruct
    {
        public bool? TimestampAsArrow { get; set; }

        public bool? DecimalAsArrow { get; set; }

        public bool? ComplexTypesAsArrow { get; set; }

        public bool? IntervalTypesAsArrow { get; set; }

        public bool? NullTypeAsArrow { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            bool?[] values = { TimestampAsArrow, DecimalAsArrow, ComplexTypesAsArrow, IntervalTypesAsArrow, NullTypeAsArrow };
            for (int i = 0; i < values.Length; i++)
            {
                if (values[i] is bool value)
                {
                    await writer.WriteBoolFieldAsync((short)(i + 1), value, ct);
                }
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TSparkArrowTypes> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TSparkArrowTypes();
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                if (type != TType.Bool || id < 1 || id > 5)
                {
                    await reader.SkipAsync(type, ct);
                    continue;
                }

                bool flag = await reader.ReadBoolAsync(ct);
                switch (id)
                {
                    case 1: value.TimestampAsArrow = flag; break;
                    case 2: value.DecimalAsArrow = flag; break;
                    case 3: value.ComplexTypesAsArrow = flag; break;
                    case 4: value.IntervalTypesAsArrow = flag; break;
                    default: value.NullTypeAsArrow = flag; break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            return value;
        }
    }

    /// <summary>TExecuteStatementReq: sessionHandle (1) and statement (2) required; the Databricks extensions the driver sends.</summary>
    public sealed class TExecuteStatementReq : IThriftStruct
    {
        public TSessionHandle SessionHandle { get; set; } = new TSessionHandle();

        public string Statement { get; set; } = string.Empty;

        public Dictionary<string, string>? ConfOverlay { get; set; }

        public bool? RunAsync { get; set; }

        public long? QueryTimeout { get; set; }

        public TSparkGetDirectResults? GetDirectResults { get; set; }

        public bool? CanReadArrowResult { get; set; }

        public bool? CanDownloadResult { get; set; }

        public bool? CanDecompressLZ4Result { get; set; }

        public long? MaxBytesPerFile { get; set; }

        public TSparkArrowTypes? UseArrowNativeTypes { get; set; }

        public long? ResultRowLimit { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, SessionHandle, ct);
            await writer.WriteStringFieldAsync(2, Statement, ct);
            if (ConfOverlay != null)
            {
                await writer.WriteStringMapFieldAsync(3, ConfOverlay, ct);
            }

            if (RunAsync is bool runAsync)
            {
                await writer.WriteBoolFieldAsync(4, runAsync, ct);
            }

            if (QueryTimeout is long timeout)
            {
                await writer.WriteI64FieldAsync(5, timeout, ct);
            }

            if (GetDirectResults != null)
            {
                await writer.WriteStructFieldAsync(1281, GetDirectResults, ct);
            }

            if (CanReadArrowResult is bool canReadArrow)
            {
                await writer.WriteBoolFieldAsync(1282, canReadArrow, ct);
            }

            if (CanDownloadResult is bool canDownload)
            {
                await writer.WriteBoolFieldAsync(1283, canDownload, ct);
            }

            if (CanDecompressLZ4Result is bool canLz4)
            {
                await writer.WriteBoolFieldAsync(1284, canLz4, ct);
            }

            if (MaxBytesPerFile is long maxBytesPerFile)
            {
                await writer.WriteI64FieldAsync(1285, maxBytesPerFile, ct);
            }

            if (UseArrowNativeTypes != null)
            {
                await writer.WriteStructFieldAsync(1286, UseArrowNativeTypes, ct);
            }

            if (ResultRowLimit is long rowLimit)
            {
                await writer.WriteI64FieldAsync(1287, rowLimit, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TExecuteStatementReq> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TExecuteStatementReq();
            bool hasSession = false, hasStatement = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.SessionHandle = await TSessionHandle.ReadAsync(reader, ct);
                        hasSession = true;
                        break;
                    case 2 when type == TType.String:
                        value.Statement = await reader.ReadStringAsync(ct);
                        hasStatement = true;
                        break;
                    case 3 when type == TType.Map:
                        value.ConfOverlay = await reader.ReadStringMapAsync(ct);
                        break;
                    case 4 when type == TType.Bool:
                        value.RunAsync = await reader.ReadBoolAsync(ct);
                        break;
                    case 5 when type == TType.I64:
                        value.QueryTimeout = await reader.ReadI64Async(ct);
                        break;
                    case 1281 when type == TType.Struct:
                        value.GetDirectResults = await TSparkGetDirectResults.ReadAsync(reader, ct);
                        break;
                    case 1282 when type == TType.Bool:
                        value.CanReadArrowResult = await reader.ReadBoolAsync(ct);
                        break;
                    case 1283 when type == TType.Bool:
                        value.CanDownloadResult = await reader.ReadBoolAsync(ct);
                        break;
                    case 1284 when type == TType.Bool:
                        value.CanDecompressLZ4Result = await reader.ReadBoolAsync(ct);
                        break;
                    case 1285 when type == TType.I64:
                        value.MaxBytesPerFile = await reader.ReadI64Async(ct);
                        break;
                    case 1286 when type == TType.Struct:
                        value.UseArrowNativeTypes = await TSparkArrowTypes.ReadAsync(reader, ct);
                        break;
                    case 1287 when type == TType.I64:
                        value.ResultRowLimit = await reader.ReadI64Async(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasSession, nameof(TExecuteStatementReq), "sessionHandle");
            ThriftFields.Require(hasStatement, nameof(TExecuteStatementReq), "statement");
            return value;
        }
    }

    /// <summary>TExecuteStatementResp: status (1) required; operationHandle (2) needed; directResults (1281) optional.</summary>
    public sealed class TExecuteStatementResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public TOperationHandle? OperationHandle { get; set; }

        public TSparkDirectResults? DirectResults { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            if (OperationHandle != null)
            {
                await writer.WriteStructFieldAsync(2, OperationHandle, ct);
            }

            if (DirectResults != null)
            {
                await writer.WriteStructFieldAsync(1281, DirectResults, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TExecuteStatementResp> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TExecuteStatementResp();
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
                        value.OperationHandle = await TOperationHandle.ReadAsync(reader, ct);
                        break;
                    case 1281 when type == TType.Struct:
                        value.DirectResults = await TSparkDirectResults.ReadAsync(reader, ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasStatus, nameof(TExecuteStatementResp), "status");
            return value;
        }
    }

    /// <summary>TSparkDirectResults: every member optional on the wire, but each nested response has a required status.</summary>
    public sealed class TSparkDirectResults : IThriftStruct
    {
        public TGetOperationStatusResp? OperationStatus { get; set; }

        public TGetResultSetMetadataResp? ResultSetMetadata { get; set; }

        public TFetchResultsResp? ResultSet { get; set; }

        public TCloseOperationResp? CloseOperation { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            if (OperationStatus != null)
            {
                await writer.WriteStructFieldAsync(1, OperationStatus, ct);
            }

            if (ResultSetMetadata != null)
            {
                await writer.WriteStructFieldAsync(2, ResultSetMetadata, ct);
            }

            if (ResultSet != null)
            {
                await writer.WriteStructFieldAsync(3, ResultSet, ct);
            }

            if (CloseOperation != null)
            {
                await writer.WriteStructFieldAsync(4, CloseOperation, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TSparkDirectResults> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TSparkDirectResults();
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.OperationStatus = await TGetOperationStatusResp.ReadAsync(reader, ct);
                        break;
                    case 2 when type == TType.Struct:
                        value.ResultSetMetadata = await TGetResultSetMetadataResp.ReadAsync(reader, ct);
                        break;
                    case 3 when type == TType.Struct:
                        value.ResultSet = await TFetchResultsResp.ReadAsync(reader, ct);
                        break;
                    case 4 when type == TType.Struct:
                        value.CloseOperation = await TCloseOperationResp.ReadAsync(reader, ct);
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
}
