using System;
using System.Collections.Generic;
using System.Linq;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Protocol.Thrift;
using Xunit;

namespace MockDatabricks.Tests.Protocol
{
    public class ThriftTests
    {
        [Fact]
        public void ExecuteStatementResponse_WithDirectResults_RoundTrips()
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
                        Schema = new TTableSchema { Columns = { new TColumnDesc { ColumnName = "id", TypeId = TTypeId.BigInt, Position = 1 } } },
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

            byte[] wire = ThriftMessages.EncodeReply("ExecuteStatement", 5, response);
            TExecuteStatementResp decoded = ThriftMessages.DecodeReply(wire, "ExecuteStatement", TExecuteStatementResp.Read);

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
        public void Reader_AcceptsNonStrictHeaders_AndSkipsUnknownFieldsOfEveryType()
        {
            var writer = new ThriftWriter();
            writer.WriteString("CloseSession");          // non-strict: name first
            writer.WriteByte((byte)ThriftMessageType.Call);
            writer.WriteI32(42);
            writer.WriteFieldBegin(ThriftType.Struct, 1);   // CloseSession_args.req
            writer.WriteI64Field(77, 1);                    // unknown fields of each wire type
            writer.WriteDoubleField(78, 2.5);
            writer.WriteStringListField(79, new[] { "a", "b" });
            writer.WriteStringMapField(80, new Dictionary<string, string> { ["k"] = "v" });
            writer.WriteStructField(81, TStatus.Ok());
            writer.WriteI32Field(1, 5);                     // the right id with the wrong type: skipped, then missing
            writer.WriteStructField(1, new TSessionHandle { SessionId = THandleIdentifier.CreateRandom() });
            writer.WriteFieldStop();
            writer.WriteFieldStop();

            var reader = new ThriftReader(writer.ToArray());
            ThriftMessageHeader header = ThriftMessages.ReadCallHeader(reader);
            TCloseSessionReq request = ThriftMessages.ReadCallArguments(reader, header.Name, TCloseSessionReq.Read);

            Assert.Equal(new ThriftMessageHeader("CloseSession", ThriftMessageType.Call, 42), header);
            Assert.Equal(16, request.SessionHandle.SessionId.Guid.Length);
        }

        [Fact]
        public void MissingRequiredFields_AndHostileLengths_AreProtocolErrors()
        {
            var writer = new ThriftWriter();
            writer.WriteI64Field(1, 0); // TRowSet.startRowOffset without the required rows list
            writer.WriteFieldStop();
            var missing = Assert.Throws<ThriftProtocolException>(() => TRowSet.Read(new ThriftReader(writer.ToArray())));
            Assert.Contains("rows", missing.Message);

            var hostile = new ThriftWriter();
            hostile.WriteFieldBegin(ThriftType.List, 9);
            hostile.WriteListBegin(ThriftType.I64, int.MaxValue);
            Assert.Throws<ThriftProtocolException>(() => TStatus.Read(new ThriftReader(hostile.ToArray())));

            Assert.Throws<ThriftProtocolException>(() => new ThriftReader(new byte[] { 0x80, 0x02, 0, 1 }).ReadMessageBegin());
        }

        [Fact]
        public void ExceptionMessages_SurfaceAsThriftApplicationException()
        {
            byte[] wire = ThriftMessages.EncodeException("Nope", 3, new ThriftApplicationException(ThriftApplicationErrorType.UnknownMethod, "Invalid method name: 'Nope'"));

            var error = Assert.Throws<ThriftApplicationException>(() => ThriftMessages.DecodeReply(wire, "Nope", TCloseSessionResp.Read));

            Assert.Equal(ThriftApplicationErrorType.UnknownMethod, error.Type);
            Assert.Equal("Invalid method name: 'Nope'", error.Message);
        }
    }
}
