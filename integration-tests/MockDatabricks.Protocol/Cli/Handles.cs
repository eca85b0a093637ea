using System;
using System.Collections.Generic;
using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>THandleIdentifier: guid (1) and secret (2), both required BINARY (16 bytes).</summary>
    public sealed class THandleIdentifier : IThriftStruct
    {
        public byte[] Guid { get; set; } = Array.Empty<byte>();

        public byte[] Secret { get; set; } = Array.Empty<byte>();

        public static THandleIdentifier CreateRandom() => new THandleIdentifier
        {
            Guid = System.Guid.NewGuid().ToByteArray(),
            Secret = System.Guid.NewGuid().ToByteArray(),
        };

        /// <summary>Lower-case hex of the guid: how the server keys sessions and operations and names them in the journal.</summary>
        public string ToHex() => Convert.ToHexStringLower(Guid);

        public void Write(ThriftWriter writer)
        {
            writer.WriteBinaryField(1, Guid);
            writer.WriteBinaryField(2, Secret);
            writer.WriteFieldStop();
        }

        public static THandleIdentifier Read(ThriftReader reader)
        {
            var value = new THandleIdentifier();
            bool hasGuid = false, hasSecret = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.String:
                        value.Guid = reader.ReadBinary();
                        hasGuid = true;
                        break;
                    case 2 when type == ThriftType.String:
                        value.Secret = reader.ReadBinary();
                        hasSecret = true;
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasGuid, nameof(THandleIdentifier), "guid");
            ThriftReader.Require(hasSecret, nameof(THandleIdentifier), "secret");
            return value;
        }
    }

    /// <summary>TSessionHandle: sessionId (1, required).</summary>
    public sealed class TSessionHandle : IThriftStruct
    {
        public THandleIdentifier SessionId { get; set; } = new THandleIdentifier();

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, SessionId);
            writer.WriteFieldStop();
        }

        public static TSessionHandle Read(ThriftReader reader)
        {
            THandleIdentifier? sessionId = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id == 1 && type == ThriftType.Struct)
                {
                    sessionId = THandleIdentifier.Read(reader);
                }
                else
                {
                    reader.Skip(type);
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(sessionId != null, nameof(TSessionHandle), "sessionId");
            return new TSessionHandle { SessionId = sessionId! };
        }
    }

    /// <summary>TOperationHandle: operationId (1), operationType (2), hasResultSet (3) required; modifiedRowCount (4) optional.</summary>
    public sealed class TOperationHandle : IThriftStruct
    {
        public THandleIdentifier OperationId { get; set; } = new THandleIdentifier();

        public TOperationType OperationType { get; set; } = TOperationType.ExecuteStatement;

        public bool HasResultSet { get; set; } = true;

        public double? ModifiedRowCount { get; set; }

        public void Write(ThriftWriter writer)
        {
            writer.WriteStructField(1, OperationId);
            writer.WriteI32Field(2, (int)OperationType);
            writer.WriteBoolField(3, HasResultSet);
            if (ModifiedRowCount is double modified)
            {
                writer.WriteDoubleField(4, modified);
            }

            writer.WriteFieldStop();
        }

        public static TOperationHandle Read(ThriftReader reader)
        {
            var value = new TOperationHandle();
            bool hasId = false, hasType = false, hasResultSet = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.Struct:
                        value.OperationId = THandleIdentifier.Read(reader);
                        hasId = true;
                        break;
                    case 2 when type == ThriftType.I32:
                        value.OperationType = (TOperationType)reader.ReadI32();
                        hasType = true;
                        break;
                    case 3 when type == ThriftType.Bool:
                        value.HasResultSet = reader.ReadBool();
                        hasResultSet = true;
                        break;
                    case 4 when type == ThriftType.Double:
                        value.ModifiedRowCount = reader.ReadDouble();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasId, nameof(TOperationHandle), "operationId");
            ThriftReader.Require(hasType, nameof(TOperationHandle), "operationType");
            ThriftReader.Require(hasResultSet, nameof(TOperationHandle), "hasResultSet");
            return value;
        }
    }

    /// <summary>TStatus: statusCode (1) required; infoMessages, sqlState, errorCode, errorMessage, displayMessage, errorDetailsJson optional.</summary>
    public sealed class TStatus : IThriftStruct
    {
        public TStatusCode StatusCode { get; set; }

        public List<string>? InfoMessages { get; set; }

        public string? SqlState { get; set; }

        public int? ErrorCode { get; set; }

        public string? ErrorMessage { get; set; }

        public string? DisplayMessage { get; set; }

        public string? ErrorDetailsJson { get; set; }

        public static TStatus Ok() => new TStatus { StatusCode = TStatusCode.Success };

        public static TStatus Failure(string message, string sqlState = "42000", int errorCode = 500, TStatusCode code = TStatusCode.Error) =>
            new TStatus { StatusCode = code, ErrorMessage = message, SqlState = sqlState, ErrorCode = errorCode };

        public void Write(ThriftWriter writer)
        {
            writer.WriteI32Field(1, (int)StatusCode);
            if (InfoMessages != null)
            {
                writer.WriteStringListField(2, InfoMessages);
            }

            if (SqlState != null)
            {
                writer.WriteStringField(3, SqlState);
            }

            if (ErrorCode is int errorCode)
            {
                writer.WriteI32Field(4, errorCode);
            }

            if (ErrorMessage != null)
            {
                writer.WriteStringField(5, ErrorMessage);
            }

            if (DisplayMessage != null)
            {
                writer.WriteStringField(6, DisplayMessage);
            }

            if (ErrorDetailsJson != null)
            {
                writer.WriteStringField(1281, ErrorDetailsJson);
            }

            writer.WriteFieldStop();
        }

        public static TStatus Read(ThriftReader reader)
        {
            var value = new TStatus();
            bool hasCode = false;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.I32:
                        value.StatusCode = (TStatusCode)reader.ReadI32();
                        hasCode = true;
                        break;
                    case 2 when type == ThriftType.List:
                        value.InfoMessages = reader.ReadStringList();
                        break;
                    case 3 when type == ThriftType.String:
                        value.SqlState = reader.ReadString();
                        break;
                    case 4 when type == ThriftType.I32:
                        value.ErrorCode = reader.ReadI32();
                        break;
                    case 5 when type == ThriftType.String:
                        value.ErrorMessage = reader.ReadString();
                        break;
                    case 6 when type == ThriftType.String:
                        value.DisplayMessage = reader.ReadString();
                        break;
                    case 1281 when type == ThriftType.String:
                        value.ErrorDetailsJson = reader.ReadString();
                        break;
                    default:
                        reader.Skip(type);
                        break;
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(hasCode, nameof(TStatus), "statusCode");
            return value;
        }
    }

    /// <summary>TNamespace: catalogName (1), schemaName (2), both optional.</summary>
    public sealed class TNamespace : IThriftStruct
    {
        public string? CatalogName { get; set; }

        public string? SchemaName { get; set; }

        public void Write(ThriftWriter writer)
        {
            if (CatalogName != null)
            {
                writer.WriteStringField(1, CatalogName);
            }

            if (SchemaName != null)
            {
                writer.WriteStringField(2, SchemaName);
            }

            writer.WriteFieldStop();
        }

        public static TNamespace Read(ThriftReader reader)
        {
            var value = new TNamespace();
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                switch (id)
                {
                    case 1 when type == ThriftType.String:
                        value.CatalogName = reader.ReadString();
                        break;
                    case 2 when type == ThriftType.String:
                        value.SchemaName = reader.ReadString();
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
