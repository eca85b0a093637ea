using System.Collections.Generic;
using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>TSparkGetDirectResults: maxRows (1, required), maxBytes (2, optional).</summary>
    public sealed class TSparkGetDirectResults : IThriftStruct
    {
        public long MaxRows { get; set; }

        public long? MaxBytes { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteI64Field(1, MaxRows);
            if (MaxBytes is long maxBytes)
            {
                writer.WriteI64Field(2, maxBytes);
            }

            writer.WriteFieldStop();
        }

        public static TSparkGetDirectResults Read(ThriftReader reader)
        {
            var value = new TSparkGetDirectResults();
            bool hasMaxRows = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.I64:
                        value.MaxRows = reader.ReadI64();
                        hasMaxRows = true;
                        break;
                    case 2 when type == ThriftType.I64:
                        value.MaxBytes = reader.ReadI64();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasMaxRows, nameof(TSparkGetDirectResults), "maxRows");
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

        public void Write(ThriftWriter writer)
        {
            bool?[] values = { TimestampAsArrow, DecimalAsArrow, ComplexTypesAsArrow, IntervalTypesAsArrow, NullTypeAsArrow };
            for (int i = 0; i < values.Length; i++)
            {
                if (values[i] is bool value)
                {
                    writer.WriteBoolField((short)(i + 1), value);
                }
            }

            writer.WriteFieldStop();
        }

        public static TSparkArrowTypes Read(ThriftReader reader)
        {
            var value = new TSparkArrowTypes();
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (type != ThriftType.Bool || id < 1 || id > 5)
                {
                    reader.Skip(type);
                    continue;
                }

                bool flag = reader.ReadBool();
                switch (id)
                {
                    case 1: value.TimestampAsArrow = flag; break;
                    case 2: value.DecimalAsArrow = flag; break;
                    case 3: value.ComplexTypesAsArrow = flag; break;
                    case 4: value.IntervalTypesAsArrow = flag; break;
                    default: value.NullTypeAsArrow = flag; break;
                }
            }

            reader.ReadStructEnd();
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

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, SessionHandle);
            writer.WriteStringField(2, Statement);
            if (ConfOverlay != null)
            {
                writer.WriteStringMapField(3, ConfOverlay);
            }

            if (RunAsync is bool runAsync)
            {
                writer.WriteBoolField(4, runAsync);
            }

            if (QueryTimeout is long timeout)
            {
                writer.WriteI64Field(5, timeout);
            }

            if (GetDirectResults != null)
            {
                writer.WriteStructField(1281, GetDirectResults);
            }

            if (CanReadArrowResult is bool canReadArrow)
            {
                writer.WriteBoolField(1282, canReadArrow);
            }

            if (CanDownloadResult is bool canDownload)
            {
                writer.WriteBoolField(1283, canDownload);
            }

            if (CanDecompressLZ4Result is bool canLz4)
            {
                writer.WriteBoolField(1284, canLz4);
            }

            if (MaxBytesPerFile is long maxBytesPerFile)
            {
                writer.WriteI64Field(1285, maxBytesPerFile);
            }

            if (UseArrowNativeTypes != null)
            {
                writer.WriteStructField(1286, UseArrowNativeTypes);
            }

            if (ResultRowLimit is long rowLimit)
            {
                writer.WriteI64Field(1287, rowLimit);
            }

            writer.WriteFieldStop();
        }

        public static TExecuteStatementReq Read(ThriftReader reader)
        {
            var value = new TExecuteStatementReq();
            bool hasSession = false, hasStatement = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.Struct:
                        value.SessionHandle = TSessionHandle.Read(reader);
                        hasSession = true;
                        break;
                    case 2 when type == ThriftType.String:
                        value.Statement = reader.ReadString();
                        hasStatement = true;
                        break;
                    case 3 when type == ThriftType.Map:
                        value.ConfOverlay = reader.ReadStringMap();
                        break;
                    case 4 when type == ThriftType.Bool:
                        value.RunAsync = reader.ReadBool();
                        break;
                    case 5 when type == ThriftType.I64:
                        value.QueryTimeout = reader.ReadI64();
                        break;
                    case 1281 when type == ThriftType.Struct:
                        value.GetDirectResults = TSparkGetDirectResults.Read(reader);
                        break;
                    case 1282 when type == ThriftType.Bool:
                        value.CanReadArrowResult = reader.ReadBool();
                        break;
                    case 1283 when type == ThriftType.Bool:
                        value.CanDownloadResult = reader.ReadBool();
                        break;
                    case 1284 when type == ThriftType.Bool:
                        value.CanDecompressLZ4Result = reader.ReadBool();
                        break;
                    case 1285 when type == ThriftType.I64:
                        value.MaxBytesPerFile = reader.ReadI64();
                        break;
                    case 1286 when type == ThriftType.Struct:
                        value.UseArrowNativeTypes = TSparkArrowTypes.Read(reader);
                        break;
                    case 1287 when type == ThriftType.I64:
                        value.ResultRowLimit = reader.ReadI64();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasSession, nameof(TExecuteStatementReq), "sessionHandle");
            ThriftReader.Require(hasStatement, nameof(TExecuteStatementReq), "statement");
            return value;
        }
    }

    /// <summary>TExecuteStatementResp: status (1) required; operationHandle (2) needed; directResults (1281) optional.</summary>
    public sealed class TExecuteStatementResp : IThriftStruct
    {
        public TStatus Status { get; set; } = TStatus.Ok();

        public TOperationHandle? OperationHandle { get; set; }

        public TSparkDirectResults? DirectResults { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, Status);
            if (OperationHandle != null)
            {
                writer.WriteStructField(2, OperationHandle);
            }

            if (DirectResults != null)
            {
                writer.WriteStructField(1281, DirectResults);
            }

            writer.WriteFieldStop();
        }

        public static TExecuteStatementResp Read(ThriftReader reader)
        {
            var value = new TExecuteStatementResp();
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
                    case 2 when type == ThriftType.Struct:
                        value.OperationHandle = TOperationHandle.Read(reader);
                        break;
                    case 1281 when type == ThriftType.Struct:
                        value.DirectResults = TSparkDirectResults.Read(reader);
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasStatus, nameof(TExecuteStatementResp), "status");
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

        public void Write(ThriftWriter writer)
        {
            if (OperationStatus != null)
            {
                writer.WriteStructField(1, OperationStatus);
            }

            if (ResultSetMetadata != null)
            {
                writer.WriteStructField(2, ResultSetMetadata);
            }

            if (ResultSet != null)
            {
                writer.WriteStructField(3, ResultSet);
            }

            if (CloseOperation != null)
            {
                writer.WriteStructField(4, CloseOperation);
            }

            writer.WriteFieldStop();
        }

        public static TSparkDirectResults Read(ThriftReader reader)
        {
            var value = new TSparkDirectResults();
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.Struct:
                        value.OperationStatus = TGetOperationStatusResp.Read(reader);
                        break;
                    case 2 when type == ThriftType.Struct:
                        value.ResultSetMetadata = TGetResultSetMetadataResp.Read(reader);
                        break;
                    case 3 when type == ThriftType.Struct:
                        value.ResultSet = TFetchResultsResp.Read(reader);
                        break;
                    case 4 when type == ThriftType.Struct:
                        value.CloseOperation = TCloseOperationResp.Read(reader);
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
}
