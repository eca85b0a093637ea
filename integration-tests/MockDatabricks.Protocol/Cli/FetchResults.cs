using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>
    /// TFetchResultsReq: operationHandle (1), orientation (2), maxRows (3) required; maxBytes (1281) and
    /// startRowOffset (1282) optional. startRowOffset is authoritative when set (sequential CloudFetch fetches and
    /// link refreshes with maxRows=1).
    /// </summary>
    public sealed class TFetchResultsReq : IThriftStruct
    {
        public TOperationHandle OperationHandle { get; set; } = new TOperationHandle();

        public TFetchOrientation Orientation { get; set; } = TFetchOrientation.FetchNext;

        public long MaxRows { get; set; }

        public short? FetchType { get; set; }

        public long? MaxBytes { get; set; }

        public long? StartRowOffset { get; set; }

        public bool? IncludeResultSetMetadata { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, OperationHandle, ct);
            await writer.WriteI32FieldAsync(2, (int)Orientation, ct);
            await writer.WriteI64FieldAsync(3, MaxRows, ct);
            if (FetchType is short fetchType)
            {
                await writer.WriteI16FieldAsync(4, fetchType, ct);
            }

            if (MaxBytes is long maxBytes)
            {
                await writer.WriteI64FieldAsync(1281, maxBytes, ct);
            }

            if (StartRowOffset is long offset)
            {
                await writer.WriteI64FieldAsync(1282, offset, ct);
            }

            if (IncludeResultSetMetadata is bool include)
            {
                await writer.WriteBoolFieldAsync(1283, include, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TFetchResultsReq> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TFetchResultsReq();
            bool hasHandle = false, hasOrientation = false, hasMaxRows = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.OperationHandle = await TOperationHandle.ReadAsync(reader, ct);
                        hasHandle = true;
                        break;
                    case 2 when type == TType.I32:
                        value.Orientation = (TFetchOrientation)await reader.ReadI32Async(ct);
                        hasOrientation = true;
                        break;
                    case 3 when type == TType.I64:
                        value.MaxRows = await reader.ReadI64Async(ct);
                        hasMaxRows = true;
                        break;
                    case 4 when type == TType.I16:
                        value.FetchType = await reader.ReadI16Async(ct);
                        break;
                    case 1281 when type == TType.I64:
                        value.MaxBytes = await reader.ReadI64Async(ct);
                        break;
                    case 1282 when type == TType.I64:
                        value.StartRowOffset = await reader.ReadI64Async(ct);
                        break;
                    case 1283 when type == TType.Bool:
                        value.IncludeResultSetMetadata = await reader.ReadBoolAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasHandle, nameof(TFetchResultsReq), "operationHandle");
            ThriftFields.Require(hasOrientation, nameof(TFetchResultsReq), "orientation");
            ThriftFields.Require(hasMaxRows, nameof(TFetchResultsReq), "maxRows");
            return value;
        }
    }

    /// <summary>TFetchResultsResp: status (1) required; hasMoreRows (2); results (3) needed by the driver on every reply.</summary>
    public sealed class TFetchResultsResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public bool? HasMoreRows { get; set; }

        public TRowSet? Results { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, Status, ct);
            if (HasMoreRows is bool hasMore)
            {
                await writer.WriteBoolFieldAsync(2, hasMore, ct);
            }

            if (Results != null)
            {
                await writer.WriteStructFieldAsync(3, Results, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TFetchResultsResp> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TFetchResultsResp();
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
                    case 2 when type == TType.Bool:
                        value.HasMoreRows = await reader.ReadBoolAsync(ct);
                        break;
                    case 3 when type == TType.Struct:
                        value.Results = await TRowSet.ReadAsync(reader, ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasStatus, nameof(TFetchResultsResp), "status");
            return value;
        }
    }

    /// <summary>
    /// TRowSet: startRowOffset (1) and rows (2, written as an empty list of TRow) required; arrowBatches (1281) for
    /// inline results, resultLinks (1282) for CloudFetch. Columns/binaryColumns are never used by the mock.
    /// </summary>
    public sealed class TRowSet : IThriftStruct
    {
        public long StartRowOffset { get; set; }

        public List<TSparkArrowBatch>? ArrowBatches { get; set; }

        public List<TSparkArrowResultLink>? ResultLinks { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteI64FieldAsync(1, StartRowOffset, ct);
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.List, 2), ct);
            await writer.WriteListBeginAsync(new TList(TType.Struct, 0), ct);
            if (ArrowBatches != null)
            {
                await writer.WriteStructListFieldAsync(1281, ArrowBatches, ct);
            }

            if (ResultLinks != null)
            {
                await writer.WriteStructListFieldAsync(1282, ResultLinks, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TRowSet> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TRowSet();
            bool hasOffset = false, hasRows = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.I64:
                        value.StartRowOffset = await reader.ReadI64Async(ct);
                        hasOffset = true;
                        break;
                    case 2 when type == TType.List:
                        await reader.SkipAsync(type, ct);
                        hasRows = true;
                        break;
                    case 1281 when type == TType.List:
                        value.ArrowBatches = await reader.ReadStructListAsync(TSparkArrowBatch.ReadAsync, ct);
                        break;
                    case 1282 when type == TType.List:
                        value.ResultLinks = await reader.ReadStructListAsync(TSparkArrowResultLink.ReadAsync, ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasOffset, nameof(TRowSet), "startRowOffset");
            ThriftFields.Require(hasRows, nameof(TRowSet), "rows");
            return value;
        }
    }

    /// <summary>TSparkArrowBatch: batch (1, one encapsulated IPC RecordBatch message, LZ4-framed when lz4Compressed) and rowCount (2), both required.</summary>
    public sealed class TSparkArrowBatch : IThriftStruct
    {
        public ReadOnlyMemory<byte> Batch { get; set; }

        public long RowCount { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteBinaryFieldAsync(1, Batch, ct);
            await writer.WriteI64FieldAsync(2, RowCount, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TSparkArrowBatch> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TSparkArrowBatch();
            bool hasBatch = false, hasRows = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.String:
                        value.Batch = await reader.ReadBinaryAsync(ct);
                        hasBatch = true;
                        break;
                    case 2 when type == TType.I64:
                        value.RowCount = await reader.ReadI64Async(ct);
                        hasRows = true;
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasBatch, nameof(TSparkArrowBatch), "batch");
            ThriftFields.Require(hasRows, nameof(TSparkArrowBatch), "rowCount");
            return value;
        }
    }

    /// <summary>TSparkArrowResultLink: fileLink, expiryTime (epoch ms), startRowOffset, rowCount, bytesNum required; httpHeaders optional.</summary>
    public sealed class TSparkArrowResultLink : IThriftStruct
    {
        public string FileLink { get; set; } = string.Empty;

        public long ExpiryTime { get; set; }

        public long StartRowOffset { get; set; }

        public long RowCount { get; set; }

        public long BytesNum { get; set; }

        public Dictionary<string, string>? HttpHeaders { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStringFieldAsync(1, FileLink, ct);
            await writer.WriteI64FieldAsync(2, ExpiryTime, ct);
            await writer.WriteI64FieldAsync(3, StartRowOffset, ct);
            await writer.WriteI64FieldAsync(4, RowCount, ct);
            await writer.WriteI64FieldAsync(5, BytesNum, ct);
            if (HttpHeaders != null)
            {
                await writer.WriteStringMapFieldAsync(6, HttpHeaders, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TSparkArrowResultLink> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TSparkArrowResultLink();
            int seen = 0;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.String:
                        value.FileLink = await reader.ReadStringAsync(ct);
                        seen |= 1;
                        break;
                    case 2 when type == TType.I64:
                        value.ExpiryTime = await reader.ReadI64Async(ct);
                        seen |= 2;
                        break;
                    case 3 when type == TType.I64:
                        value.StartRowOffset = await reader.ReadI64Async(ct);
                        seen |= 4;
                        break;
                    case 4 when type == TType.I64:
                        value.RowCount = await reader.ReadI64Async(ct);
                        seen |= 8;
                        break;
                    case 5 when type == TType.I64:
                        value.BytesNum = await reader.ReadI64Async(ct);
                        seen |= 16;
                        break;
                    case 6 when type == TType.Map:
                        value.HttpHeaders = await reader.ReadStringMapAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            string[] names = { "fileLink", "expiryTime", "startRowOffset", "rowCount", "bytesNum" };
            for (int i = 0; i < names.Length; i++)
            {
                ThriftFields.Require((seen & (1 << i)) != 0, nameof(TSparkArrowResultLink), names[i]);
            }

            return value;
        }
    }
}
