using System;
using System.Collections.Generic;
using MockDatabricks.Protocol.Thrift;

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

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, OperationHandle);
            writer.WriteI32Field(2, (int)Orientation);
            writer.WriteI64Field(3, MaxRows);
            if (FetchType is short fetchType)
            {
                writer.WriteI16Field(4, fetchType);
            }

            if (MaxBytes is long maxBytes)
            {
                writer.WriteI64Field(1281, maxBytes);
            }

            if (StartRowOffset is long offset)
            {
                writer.WriteI64Field(1282, offset);
            }

            if (IncludeResultSetMetadata is bool include)
            {
                writer.WriteBoolField(1283, include);
            }

            writer.WriteFieldStop();
        }

        public static TFetchResultsReq Read(ThriftReader reader)
        {
            var value = new TFetchResultsReq();
            bool hasHandle = false, hasOrientation = false, hasMaxRows = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.Struct:
                        value.OperationHandle = TOperationHandle.Read(reader);
                        hasHandle = true;
                        break;
                    case 2 when type == ThriftType.I32:
                        value.Orientation = (TFetchOrientation)reader.ReadI32();
                        hasOrientation = true;
                        break;
                    case 3 when type == ThriftType.I64:
                        value.MaxRows = reader.ReadI64();
                        hasMaxRows = true;
                        break;
                    case 4 when type == ThriftType.I16:
                        value.FetchType = reader.ReadI16();
                        break;
                    case 1281 when type == ThriftType.I64:
                        value.MaxBytes = reader.ReadI64();
                        break;
                    case 1282 when type == ThriftType.I64:
                        value.StartRowOffset = reader.ReadI64();
                        break;
                    case 1283 when type == ThriftType.Bool:
                        value.IncludeResultSetMetadata = reader.ReadBool();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasHandle, nameof(TFetchResultsReq), "operationHandle");
            ThriftReader.Require(hasOrientation, nameof(TFetchResultsReq), "orientation");
            ThriftReader.Require(hasMaxRows, nameof(TFetchResultsReq), "maxRows");
            return value;
        }
    }

    /// <summary>TFetchResultsResp: status (1) required; hasMoreRows (2); results (3) needed by the driver on every reply.</summary>
    public sealed class TFetchResultsResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public bool? HasMoreRows { get; set; }

        public TRowSet? Results { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            if (HasMoreRows is bool hasMore)
            {
                writer.WriteBoolField(2, hasMore);
            }

            if (Results != null)
            {
                writer.WriteStructField(3, Results);
            }

            writer.WriteFieldStop();
        }

        public static TFetchResultsResp Read(ThriftReader reader)
        {
            var value = new TFetchResultsResp();
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
                    case 2 when type == ThriftType.Bool:
                        value.HasMoreRows = reader.ReadBool();
                        break;
                    case 3 when type == ThriftType.Struct:
                        value.Results = TRowSet.Read(reader);
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasStatus, nameof(TFetchResultsResp), "status");
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

        public void Write(ThriftWriter writer)
        {
            writer.WriteI64Field(1, StartRowOffset);
            writer.WriteFieldBegin(ThriftType.List, 2);
            writer.WriteListBegin(ThriftType.Struct, 0);
            if (ArrowBatches != null)
            {
                writer.WriteStructListField(1281, ArrowBatches);
            }

            if (ResultLinks != null)
            {
                writer.WriteStructListField(1282, ResultLinks);
            }

            writer.WriteFieldStop();
        }

        public static TRowSet Read(ThriftReader reader)
        {
            var value = new TRowSet();
            bool hasOffset = false, hasRows = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.I64:
                        value.StartRowOffset = reader.ReadI64();
                        hasOffset = true;
                        break;
                    case 2 when type == ThriftType.List:
                        reader.Skip(type);
                        hasRows = true;
                        break;
                    case 1281 when type == ThriftType.List:
                        value.ArrowBatches = reader.ReadStructList(TSparkArrowBatch.Read);
                        break;
                    case 1282 when type == ThriftType.List:
                        value.ResultLinks = reader.ReadStructList(TSparkArrowResultLink.Read);
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasOffset, nameof(TRowSet), "startRowOffset");
            ThriftReader.Require(hasRows, nameof(TRowSet), "rows");
            return value;
        }
    }

    /// <summary>TSparkArrowBatch: batch (1, one encapsulated IPC RecordBatch message, LZ4-framed when lz4Compressed) and rowCount (2), both required.</summary>
    public sealed class TSparkArrowBatch : IThriftStruct
    {
        public ReadOnlyMemory<byte> Batch { get; set; }

        public long RowCount { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteBinaryField(1, Batch.Span);
            writer.WriteI64Field(2, RowCount);
            writer.WriteFieldStop();
        }

        public static TSparkArrowBatch Read(ThriftReader reader)
        {
            var value = new TSparkArrowBatch();
            bool hasBatch = false, hasRows = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.String:
                        value.Batch = reader.ReadBinaryMemory();
                        hasBatch = true;
                        break;
                    case 2 when type == ThriftType.I64:
                        value.RowCount = reader.ReadI64();
                        hasRows = true;
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasBatch, nameof(TSparkArrowBatch), "batch");
            ThriftReader.Require(hasRows, nameof(TSparkArrowBatch), "rowCount");
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

        public void Write(ThriftWriter writer)
        {
            writer.WriteStringField(1, FileLink);
            writer.WriteI64Field(2, ExpiryTime);
            writer.WriteI64Field(3, StartRowOffset);
            writer.WriteI64Field(4, RowCount);
            writer.WriteI64Field(5, BytesNum);
            if (HttpHeaders != null)
            {
                writer.WriteStringMapField(6, HttpHeaders);
            }

            writer.WriteFieldStop();
        }

        public static TSparkArrowResultLink Read(ThriftReader reader)
        {
            var value = new TSparkArrowResultLink();
            int seen = 0;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.String:
                        value.FileLink = reader.ReadString();
                        seen |= 1;
                        break;
                    case 2 when type == ThriftType.I64:
                        value.ExpiryTime = reader.ReadI64();
                        seen |= 2;
                        break;
                    case 3 when type == ThriftType.I64:
                        value.StartRowOffset = reader.ReadI64();
                        seen |= 4;
                        break;
                    case 4 when type == ThriftType.I64:
                        value.RowCount = reader.ReadI64();
                        seen |= 8;
                        break;
                    case 5 when type == ThriftType.I64:
                        value.BytesNum = reader.ReadI64();
                        seen |= 16;
                        break;
                    case 6 when type == ThriftType.Map:
                        value.HttpHeaders = reader.ReadStringMap();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            string[] names = { "fileLink", "expiryTime", "startRowOffset", "rowCount", "bytesNum" };
            for (int i = 0; i < names.Length; i++)
            {
                ThriftReader.Require((seen & (1 << i)) != 0, nameof(TSparkArrowResultLink), names[i]);
            }

            return value;
        }
    }
}
