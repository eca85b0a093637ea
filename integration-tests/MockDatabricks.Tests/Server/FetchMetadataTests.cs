using Apache.Arrow;
using Lz4Reference;

namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// FetchResults answers with resultSetMetadata when the request sets includeResultSetMetadata, as a warehouse does.
    /// The official Python connector (databricks-sql-python, thrift_backend.py fetch_results) sends
    /// includeResultSetMetadata=true on every FetchResults and reads the page with resp.resultSetMetadata.resultFormat;
    /// without the field every result larger than its first page failed in it ("'NoneType' object has no attribute
    /// 'resultFormat'"). The Python connector cannot run here (no PyPI), so these tests send what it sends, in its order,
    /// and read what it reads: ExecuteStatement with runAsync and getDirectResults, GetOperationStatus until the state
    /// is no longer RUNNING/PENDING, GetResultSetMetadata when there were no direct results, then FetchResults (FETCH_NEXT,
    /// maxRows, maxBytes, no startRowOffset, an operation handle copied with hasResultSet=false) until hasMoreRows is false.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class FetchMetadataTests(MockServerFixture fixture)
    {
        // The Python connector's defaults: arraysize 10,000 rows per fetch, 10 MB per fetch.
        private const long PageRows = 10_000;
        private const long PageBytes = 10 * 1024 * 1024;

        [Theory]
        [InlineData("inline")]
        [InlineData("cloudfetch")]
        public async Task PagesPastTheFirst_WithoutDirectResults_AsyncExecute_CarryTheMetadataTheConnectorReads(string mode)
        {
            var spec = new DatasetSpec { Rows = 25_000, Seed = 41, RowsPerBatch = 4_000, RowsPerFile = 8_000 };

            ConnectorRead read = await ReadLikeThePythonConnectorAsync(MockSql.Select(spec, $"mode={mode}, direct=false, running_polls=2"));

            Assert.False(read.UsedDirectResults);
            Assert.True(read.Pages.Count > 1, $"expected several pages, got {read.Pages.Count}");
            TSparkRowSetType expected = mode == "inline" ? TSparkRowSetType.ArrowBasedSet : TSparkRowSetType.UrlBasedSet;
            Assert.Equal(expected, read.Metadata.ResultFormat);
            Assert.All(read.Pages, page => AssertSameMetadata(read.Metadata, page.ResultSetMetadata));
            Assert.Equal(spec.Rows, ResultVerifier.VerifyAllValues(read.Batches, spec));
        }

        [Fact]
        public async Task PagesAfterDirectResults_CarryTheMetadata()
        {
            var spec = new DatasetSpec { Rows = 30_000, Seed = 42, RowsPerBatch = 5_000 };

            ConnectorRead read = await ReadLikeThePythonConnectorAsync(MockSql.Select(spec, "mode=inline"), directMaxRows: PageRows);

            Assert.True(read.UsedDirectResults);
            Assert.Equal(2, read.Pages.Count);
            Assert.All(read.Pages, page => AssertSameMetadata(read.Metadata, page.ResultSetMetadata));
            Assert.Equal(spec.Rows, ResultVerifier.VerifyAllValues(read.Batches, spec));
        }

        [Fact]
        public async Task WithoutTheFlag_FetchResultsCarriesNoMetadata()
        {
            var spec = new DatasetSpec { Rows = 3_000, Seed = 43, RowsPerBatch = 1_000 };
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await MockServerFixture.ExecuteInNewSessionAsync(client, MockSql.Select(spec, "mode=inline"), new ExecuteOptions { DirectResults = false });
            await WaitUntilDoneAsync(client, executed.OperationHandle!);

            TFetchResultsResp unasked = await client.FetchResultsAsync(executed.OperationHandle!, 1_000, maxBytes: PageBytes);
            TFetchResultsResp declined = await client.FetchResultsAsync(executed.OperationHandle!, 1_000, maxBytes: PageBytes, includeResultSetMetadata: false);
            TFetchResultsResp asked = await client.FetchResultsAsync(executed.OperationHandle!, 1_000, maxBytes: PageBytes, includeResultSetMetadata: true);

            Assert.Null(unasked.ResultSetMetadata);
            Assert.Null(declined.ResultSetMetadata);
            Assert.NotNull(asked.ResultSetMetadata);
            Assert.Equal(new long[] { 0, 1_000, 2_000 }, new[] { unasked, declined, asked }.Select(r => r.Results!.StartRowOffset));
        }

        private static void AssertSameMetadata(TGetResultSetMetadataResp expected, TGetResultSetMetadataResp? actual)
        {
            // What the connector reads from it: the format (to build its queue); and it must agree with the rest.
            Assert.NotNull(actual);
            Assert.Equal(TStatusCode.Success, actual.Status.StatusCode);
            Assert.Equal(expected.ResultFormat, actual.ResultFormat);
            Assert.Equal(expected.Lz4Compressed, actual.Lz4Compressed);
            Assert.Equal(expected.ArrowSchema, actual.ArrowSchema);
            Assert.Equal(expected.Schema!.Columns.Select(c => (c.ColumnName, c.TypeId)), actual.Schema!.Columns.Select(c => (c.ColumnName, c.TypeId)));
        }

        /// <summary>Everything read, and every FetchResults reply.</summary>
        private sealed record ConnectorRead(TGetResultSetMetadataResp Metadata, bool UsedDirectResults, List<TFetchResultsResp> Pages, List<RecordBatch> Batches);

        private async Task<ConnectorRead> ReadLikeThePythonConnectorAsync(string statement, long directMaxRows = PageRows)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            // execute_command: runAsync, getDirectResults(maxRows=arraysize, maxBytes), Arrow with native types, LZ4, CloudFetch.
            TExecuteStatementResp executed = await client.ExecuteStatementAsync(session, statement, new ExecuteOptions
            {
                DirectResults = true,
                DirectMaxRows = directMaxRows,
                DirectMaxBytes = PageBytes,
                ArrowNativeTypes = new TSparkArrowTypes { TimestampAsArrow = true, DecimalAsArrow = true, ComplexTypesAsArrow = true, IntervalTypesAsArrow = false },
            });
            Assert.Equal(TStatusCode.Success, executed.Status.StatusCode);
            TOperationHandle operation = executed.OperationHandle!;

            // _handle_execute_response: wait for the command, then metadata from direct results or GetResultSetMetadata.
            TSparkDirectResults? direct = executed.DirectResults;
            if (direct?.OperationStatus?.OperationState is not (TOperationState.Finished or TOperationState.Closed))
            {
                await WaitUntilDoneAsync(client, operation);
            }

            TGetResultSetMetadataResp metadata = direct?.ResultSetMetadata ?? await client.GetResultSetMetadataAsync(operation);
            var batches = new List<RecordBatch>();
            bool hasMoreRows = true;
            if (direct?.ResultSet != null)
            {
                batches.AddRange(await ReadRowSetAsync(client, metadata.ResultFormat, direct.ResultSet.Results!, metadata));
                hasMoreRows = direct.ResultSet.HasMoreRows;
            }

            // fetch_results: the handle as the connector rebuilds it (hasResultSet=false), FETCH_NEXT, no startRowOffset.
            var handle = new TOperationHandle(operation.OperationId, operation.OperationType, false);
            var pages = new List<TFetchResultsResp>();
            while (hasMoreRows)
            {
                TFetchResultsResp page = await client.FetchResultsAsync(handle, PageRows, maxBytes: PageBytes, includeResultSetMetadata: true);
                Assert.Equal(TStatusCode.Success, page.Status.StatusCode);
                pages.Add(page);

                // ResultSetQueueFactory.build_queue(row_set_type=resp.resultSetMetadata.resultFormat, ...)
                Assert.NotNull(page.ResultSetMetadata);
                batches.AddRange(await ReadRowSetAsync(client, page.ResultSetMetadata.ResultFormat, page.Results!, metadata));
                hasMoreRows = page.HasMoreRows;
            }

            await client.CloseOperationAsync(operation);
            return new ConnectorRead(metadata, direct?.ResultSet != null, pages, batches);
        }

        private static async Task WaitUntilDoneAsync(MockDatabricksClient client, TOperationHandle operation)
        {
            TOperationState state;
            do
            {
                TGetOperationStatusResp status = await client.GetOperationStatusAsync(operation);
                state = status.OperationState;
            }
            while (state is TOperationState.Running or TOperationState.Pending);

            Assert.Equal(TOperationState.Finished, state);
        }

        /// <summary>
        /// The connector's queues: ARROW_BASED_SET is arrowSchema followed by every (LZ4-decoded) batch, read as one IPC
        /// stream; URL_BASED_SET downloads each link and reads the (LZ4-decoded) file as a stream.
        /// </summary>
        private static async Task<List<RecordBatch>> ReadRowSetAsync(MockDatabricksClient client, TSparkRowSetType format, TRowSet rowSet, TGetResultSetMetadataResp metadata)
        {
            Func<byte[], byte[]> decode = metadata.Lz4Compressed ? bytes => NativeLz4.DecompressFrame(bytes) : bytes => bytes;
            var stream = new MemoryStream();
            switch (format)
            {
                case TSparkRowSetType.ArrowBasedSet:
                    stream.Write(metadata.ArrowSchema);
                    foreach (TSparkArrowBatch batch in rowSet.ArrowBatches!)
                    {
                        stream.Write(decode(batch.Batch));
                    }

                    break;
                case TSparkRowSetType.UrlBasedSet:
                    var batches = new List<RecordBatch>();
                    foreach (TSparkArrowResultLink link in rowSet.ResultLinks!)
                    {
                        batches.AddRange(DriverLikeReader.ReadStream(new MemoryStream(decode(await client.DownloadAsync(link.FileLink)))));
                    }

                    return batches;
                default:
                    throw new InvalidOperationException($"The connector does not read {format} here.");
            }

            stream.Position = 0;
            return DriverLikeReader.ReadStream(stream);
        }
    }
}
