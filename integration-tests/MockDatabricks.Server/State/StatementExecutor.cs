using MockDatabricks.Protocol.Cli;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.Query.Sql;
using MockDatabricks.Server.ResultSets;

namespace MockDatabricks.Server.State
{
    /// <summary>What a client asked of a statement's result, whichever protocol it speaks.</summary>
    /// <param name="ArrowResults">Arrow batches; false: column-based rows, inline and uncompressed (a Thrift client that cannot read Arrow).</param>
    /// <param name="CanDownload">CloudFetch links are allowed (Thrift's canDownloadResult; REST: ARROW_STREAM not INLINE).</param>
    /// <param name="LinksForEveryResult">Links for every query result, however small (REST's EXTERNAL_LINKS); commands stay inline.</param>
    /// <param name="Lz4">The client decompresses LZ4 frames.</param>
    /// <param name="Types">The Arrow-native types the client asked for (else Spark's strings).</param>
    /// <param name="MaxBytesPerFile">The client's CloudFetch file size limit, which sizes a SQL result's files.</param>
    public sealed record ResultRequest(bool ArrowResults, bool CanDownload, bool LinksForEveryResult, bool Lz4, ResultTypes Types, long? MaxBytesPerFile = null);

    /// <summary>A statement the mock refuses: the warehouse's message ("[ERROR_CLASS] ... SQLSTATE: x"), its SQLSTATE and error code.</summary>
    public sealed class StatementRefusedException(string message, string sqlState, int errorCode) : Exception(message)
    {
        public string SqlState { get; } = sqlState;

        public int ErrorCode { get; } = errorCode;
    }

    /// <summary>
    /// Executes statements for both protocols (Thrift's ExecuteStatement and the catalog RPCs, the Statement Execution
    /// API): plans the text in its session (<see cref="StatementPlanner"/>), decides how the result is delivered to this
    /// client (CloudFetch or inline, LZ4, Arrow or column-based, which types are native), and registers the operation in
    /// the shared <see cref="SessionRegistry"/>. The protocols encode what it returns, and nothing else.
    /// </summary>
    public sealed class StatementExecutor(SessionRegistry sessions, DatasetStore datasets)
    {
        /// <summary>A running operation of the statement, planned in the open session; throws <see cref="StatementRefusedException"/>.</summary>
        public MockOperation Execute(string session, string statement, ResultRequest client)
        {
            QuerySpec query;
            try
            {
                SessionContext context = sessions.Context(session) ?? throw new InvalidOperationException($"Session {session} is not open.");
                query = StatementPlanner.Plan(statement, new StatementContext(context, client.MaxBytesPerFile));
            }
            catch (SqlError ex)
            {
                throw new StatementRefusedException(ex.Message, ex.SqlState, 0);
            }
            catch (Exception ex) when (ex is FormatException or ArgumentException)
            {
                throw new StatementRefusedException("[PARSE_SYNTAX_ERROR] " + ex.Message, "42601", 1064);
            }

            bool columnBased = !client.ArrowResults;
            bool lz4 = !columnBased && query.Lz4Allowed && (query.Lz4Always || client.Lz4);
            bool cloudFetch = !columnBased && ((client.LinksForEveryResult && query.Kind == StatementKind.Dataset) || query.UsesCloudFetch(client.CanDownload));

            // Inline batches are framed with the data set's frame options too; files and batches share one cache entry.
            // Column-based rows are built from the native batches, so their data set is the native one.
            ResultTypes types = columnBased ? ResultTypes.Native : client.Types;
            StoredDataset dataset = query.Cacheable
                ? datasets.Get(query.Dataset, lz4, query.Framing, types)
                : DatasetStore.Uncached(query.Dataset, lz4, query.Framing, types);
            return Register(new MockOperation(NewHandle(TOperationType.ExecuteStatement), session, statement, query, dataset, cloudFetch, lz4, columnBased));
        }

        /// <summary>
        /// A catalog RPC's answer (<see cref="Catalog.MetadataResults"/>) as an operation finished at once: a catalog lookup
        /// is done when the call returns, so the first poll already says FINISHED. Column-based, as a warehouse sends metadata.
        /// </summary>
        public MockOperation Answer(string session, TOperationType type, QuerySpec query)
        {
            StoredDataset dataset = DatasetStore.Uncached(query.Dataset, lz4: false, query.Framing, ResultTypes.Native);
            var operation = new MockOperation(NewHandle(type), session, type.ToString(), query, dataset, cloudFetch: false, lz4: false, columnBased: true)
            {
                RunningPollsLeft = 0,
                State = TOperationState.Finished,
            };
            return Register(operation);
        }

        private MockOperation Register(MockOperation operation)
        {
            sessions.AddOperation(operation);
            return operation;
        }

        private static TOperationHandle NewHandle(TOperationType type) =>
            new TOperationHandle { OperationId = THandleIdentifier.CreateRandom(), OperationType = type, HasResultSet = true };
    }
}
