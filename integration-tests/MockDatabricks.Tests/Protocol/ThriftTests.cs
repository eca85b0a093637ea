using MockDatabricks.Protocol.Thrift;
using Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;
using Thrift.Transport;

namespace MockDatabricks.Tests.Protocol
{
    /// <summary>The hand-written TCLIService structs over ApacheThrift's binary protocol.</summary>
    public class ThriftTests
    {
        [Fact]
        public async Task ExecuteStatementResponse_WithDirectResults_RoundTrips()
        {
            var response = new TExecuteStatementResp
            {
                Status = TStatus.Ok(),
                OperationHandle = new TOperationHandle { OperationId = THandleIdentifier.CreateRandom() },
                DirectResults = new TSparkDirectResults
                {
                    OperationStatus = new TGetOperationStatusResp { Status = TStatus.Ok(), OperationState = TOperationState.Finished },
                    ResultSetMetadata = new TGetResultSetMetadataResp
                    {
                        Status = TStatus.Ok(),
                        Schema = new TTableSchema { Columns = new() { TColumnDesc.Primitive("id", TTypeId.BigInt, 1) } },
                        ResultFormat = TSparkRowSetType.UrlBasedSet,
                        Lz4Compressed = true,
                        ArrowSchema = new byte[] { 1, 2, 3 },
                    },
                    ResultSet = new TFetchResultsResp
                    {
                        Status = TStatus.Ok(),
                        HasMoreRows = true,
                        Results = new TRowSet
                        {
                            StartRowOffset = 0,
                            ResultLinks = new List<TSparkArrowResultLink>
                            {
                                new TSparkArrowResultLink { FileLink = "http://x/y", ExpiryTime = 1_700_000_000_000, StartRowOffset = 0, RowCount = 10, BytesNum = 99 },
                            },
                            ArrowBatches = new List<TSparkArrowBatch> { new TSparkArrowBatch { Batch = new byte[] { 9, 8 }, RowCount = 2 } },
                        },
                    },
                },
            };

            byte[] wire = await ThriftMessages.EncodeReplyAsync("ExecuteStatement", 5, response);
            TExecuteStatementResp decoded = await ThriftMessages.DecodeReplyAsync<TExecuteStatementResp>(wire, "ExecuteStatement");

            Assert.Equal(response.OperationHandle.OperationId.Guid, decoded.OperationHandle!.OperationId.Guid);
            Assert.Equal(TOperationState.Finished, decoded.DirectResults!.OperationStatus!.OperationState);
            Assert.Equal("id", decoded.DirectResults.ResultSetMetadata!.Schema!.Columns.Single().ColumnName);
            Assert.Equal(TTypeId.BigInt, decoded.DirectResults.ResultSetMetadata.Schema.Columns[0].TypeId);
            Assert.Equal(new byte[] { 1, 2, 3 }, decoded.DirectResults.ResultSetMetadata.ArrowSchema);
            TSparkArrowResultLink link = decoded.DirectResults.ResultSet!.Results!.ResultLinks!.Single();
            Assert.Equal(("http://x/y", 1_700_000_000_000L, 10L, 99L), (link.FileLink, link.ExpiryTime, link.RowCount, link.BytesNum));
            Assert.Equal(new byte[] { 9, 8 }, decoded.DirectResults.ResultSet.Results.ArrowBatches!.Single().Batch.ToArray());

            // Strict header: version 1, REPLY, name, the request's sequence id.
            Assert.Equal(new byte[] { 0x80, 0x01, 0x00, 0x02 }, wire.Take(4).ToArray());
        }

        [Fact]
        public async Task Reader_AcceptsNonStrictHeaders_AndSkipsUnknownFieldsOfEveryType()
        {
            byte[] wire = await RawThrift.EncodeAsync(async (writer, ct) =>
            {
                await writer.WriteMessageBeginAsync(new TMessage("CloseSession", TMessageType.Call, 42), ct);
                await writer.WriteStructBeginAsync(new TStruct("CloseSession_args"), ct);
                await writer.WriteFieldBeginAsync(new TField("req", TType.Struct, 1), ct);
                await writer.WriteI64FieldAsync(77, 1, ct);                    // unknown fields of each wire type
                await writer.WriteDoubleFieldAsync(78, 2.5, ct);
                await writer.WriteStringListFieldAsync(79, new[] { "a", "b" }, ct);
                await writer.WriteStringMapFieldAsync(80, new Dictionary<string, string> { ["k"] = "v" }, ct);
                await writer.WriteStructFieldAsync(81, TStatus.Ok(), ct);
                await writer.WriteI32FieldAsync(1, 5, ct);                     // the right id with the wrong type: skipped
                await writer.WriteStructFieldAsync(1, new TSessionHandle { SessionId = THandleIdentifier.CreateRandom() }, ct);
                await writer.WriteFieldStopAsync(ct);
                await writer.WriteFieldStopAsync(ct);
            }, strictWrite: false);

            using TProtocol reader = ThriftMessages.OpenReader(wire);
            TMessage header = await ThriftMessages.ReadCallHeaderAsync(reader);
            TCloseSessionReq request = await ThriftMessages.ReadCallArgumentsAsync<TCloseSessionReq>(reader, header.Name);

            Assert.Equal(("CloseSession", TMessageType.Call, 42), (header.Name, header.Type, header.SeqID));
            Assert.Equal(16, request.SessionHandle.SessionId.Guid.Length);
        }

        [Fact]
        public async Task MissingRequiredField_IsInvalidData()
        {
            byte[] wire = await RawThrift.EncodeAsync(async (writer, ct) =>
            {
                await writer.WriteI64FieldAsync(1, 0, ct); // TRowSet.startRowOffset without the required rows list
                await writer.WriteFieldStopAsync(ct);
            });

            using TProtocol reader = ThriftMessages.OpenReader(wire);
            var missing = await Assert.ThrowsAsync<TProtocolException>(() => new TRowSet().ReadAsync(reader, CancellationToken.None));

            // The 0.17 netstd generator's Read throws INVALID_DATA without naming the field.
            Assert.Equal(TProtocolException.INVALID_DATA, missing.GetExceptionType());
        }

        [Fact]
        public async Task ContainerLongerThanTheMessage_FailsBeforeAllocating()
        {
            byte[] wire = await RawThrift.EncodeAsync(async (writer, ct) =>
            {
                await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.List, 9), ct);
                await writer.WriteListBeginAsync(new TList(TType.I64, int.MaxValue), ct);
            });

            using TProtocol reader = ThriftMessages.OpenReader(wire);
            var tooLong = await Assert.ThrowsAsync<TTransportException>(() => new TStatus().ReadAsync(reader, CancellationToken.None));

            Assert.Equal(TTransportException.ExceptionType.MessageSizeLimit, tooLong.Type);
        }

        [Fact]
        public async Task UnknownProtocolVersion_IsBadVersion()
        {
            using TProtocol reader = ThriftMessages.OpenReader(new byte[] { 0x80, 0x02, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 });

            var error = await Assert.ThrowsAsync<TProtocolException>(() => ThriftMessages.ReadCallHeaderAsync(reader));

            Assert.Equal(TProtocolException.BAD_VERSION, error.GetExceptionType());
        }

        [Fact]
        public async Task ExceptionMessages_SurfaceAsTApplicationException()
        {
            byte[] wire = await ThriftMessages.EncodeExceptionAsync("Nope", 3, new TApplicationException(TApplicationException.ExceptionType.UnknownMethod, "Invalid method name: 'Nope'"));

            var error = await Assert.ThrowsAsync<TApplicationException>(() => ThriftMessages.DecodeReplyAsync<TCloseSessionResp>(wire, "Nope"));

            Assert.Equal(TApplicationException.ExceptionType.UnknownMethod, error.Type);
            Assert.Equal("Invalid method name: 'Nope'", error.Message);
        }
    }
}
