using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

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

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteBinaryFieldAsync(1, Guid, ct);
            await writer.WriteBinaryFieldAsync(2, Secret, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<THandleIdentifier> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new THandleIdentifier();
            bool hasGuid = false, hasSecret = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.String:
                        value.Guid = await reader.ReadBinaryAsync(ct);
                        hasGuid = true;
                        break;
                    case 2 when type == TType.String:
                        value.Secret = await reader.ReadBinaryAsync(ct);
                        hasSecret = true;
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasGuid, nameof(THandleIdentifier), "guid");
            ThriftFields.Require(hasSecret, nameof(THandleIdentifier), "secret");
            return value;
        }
    }

    /// <summary>TSessionHandle: sessionId (1, required).</summary>
    public sealed class TSessionHandle : IThriftStruct
    {
        public THandleIdentifier SessionId { get; set; } = new THandleIdentifier();

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, SessionId, ct);
            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TSessionHandle> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            THandleIdentifier? sessionId = null;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                if (id == 1 && type == TType.Struct)
                {
                    sessionId = await THandleIdentifier.ReadAsync(reader, ct);
                }
                else
                {
                    await reader.SkipAsync(type, ct);
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(sessionId != null, nameof(TSessionHandle), "sessionId");
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

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteStructFieldAsync(1, OperationId, ct);
            await writer.WriteI32FieldAsync(2, (int)OperationType, ct);
            await writer.WriteBoolFieldAsync(3, HasResultSet, ct);
            if (ModifiedRowCount is double modified)
            {
                await writer.WriteDoubleFieldAsync(4, modified, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TOperationHandle> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TOperationHandle();
            bool hasId = false, hasType = false, hasResultSet = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.Struct:
                        value.OperationId = await THandleIdentifier.ReadAsync(reader, ct);
                        hasId = true;
                        break;
                    case 2 when type == TType.I32:
                        value.OperationType = (TOperationType)await reader.ReadI32Async(ct);
                        hasType = true;
                        break;
                    case 3 when type == TType.Bool:
                        value.HasResultSet = await reader.ReadBoolAsync(ct);
                        hasResultSet = true;
                        break;
                    case 4 when type == TType.Double:
                        value.ModifiedRowCount = await reader.ReadDoubleAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasId, nameof(TOperationHandle), "operationId");
            ThriftFields.Require(hasType, nameof(TOperationHandle), "operationType");
            ThriftFields.Require(hasResultSet, nameof(TOperationHandle), "hasResultSet");
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

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            await writer.WriteI32FieldAsync(1, (int)StatusCode, ct);
            if (InfoMessages != null)
            {
                await writer.WriteStringListFieldAsync(2, InfoMessages, ct);
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

            if (DisplayMessage != null)
            {
                await writer.WriteStringFieldAsync(6, DisplayMessage, ct);
            }

            if (ErrorDetailsJson != null)
            {
                await writer.WriteStringFieldAsync(1281, ErrorDetailsJson, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TStatus> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TStatus();
            bool hasCode = false;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.I32:
                        value.StatusCode = (TStatusCode)await reader.ReadI32Async(ct);
                        hasCode = true;
                        break;
                    case 2 when type == TType.List:
                        value.InfoMessages = await reader.ReadStringListAsync(ct);
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
                    case 6 when type == TType.String:
                        value.DisplayMessage = await reader.ReadStringAsync(ct);
                        break;
                    case 1281 when type == TType.String:
                        value.ErrorDetailsJson = await reader.ReadStringAsync(ct);
                        break;
                    default:
                        await reader.SkipAsync(type, ct);
                        break;
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(hasCode, nameof(TStatus), "statusCode");
            return value;
        }
    }

    /// <summary>TNamespace: catalogName (1), schemaName (2), both optional.</summary>
    public sealed class TNamespace : IThriftStruct
    {
        public string? CatalogName { get; set; }

        public string? SchemaName { get; set; }

        public async Task WriteAsync(TProtocol writer, CancellationToken ct)
        {
            if (CatalogName != null)
            {
                await writer.WriteStringFieldAsync(1, CatalogName, ct);
            }

            if (SchemaName != null)
            {
                await writer.WriteStringFieldAsync(2, SchemaName, ct);
            }

            await writer.WriteFieldStopAsync(ct);
        }

        public static async Task<TNamespace> ReadAsync(TProtocol reader, CancellationToken ct)
        {
            var value = new TNamespace();
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                switch (id)
                {
                    case 1 when type == TType.String:
                        value.CatalogName = await reader.ReadStringAsync(ct);
                        break;
                    case 2 when type == TType.String:
                        value.SchemaName = await reader.ReadStringAsync(ct);
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
