using MockDatabricks.Protocol.Cli;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.ResultSets;

namespace MockDatabricks.Server.State
{
    /// <summary>A statement execution: what it returns, where sequential fetching stands, and its fault counters.</summary>
    public sealed class MockOperation
    {
        private readonly Dictionary<int, int> _downloadAttempts = new Dictionary<int, int>();
        private readonly Dictionary<int, int> _linkIssues = new Dictionary<int, int>();
        private readonly Dictionary<FaultRule, int> _rpcFaultHits = new Dictionary<FaultRule, int>();

        public MockOperation(TOperationHandle handle, string session, string statement, QuerySpec query, StoredDataset dataset, bool cloudFetch, bool lz4, bool columnBased)
        {
            Handle = handle;
            Id = handle.OperationId.ToHex();
            Session = session;
            Statement = statement;
            Query = query;
            Dataset = dataset;
            CloudFetch = cloudFetch;
            Lz4 = lz4;
            ColumnBased = columnBased;
            RunningPollsLeft = query.RunningPolls;
            RunningUntil = Created + query.RunningFor;
        }

        public object Lock { get; } = new object();

        public TOperationHandle Handle { get; }

        public string Id { get; }

        public string Session { get; }

        public string Statement { get; }

        public QuerySpec Query { get; }

        /// <summary>The result's rows (none for USE).</summary>
        public StoredDataset Dataset { get; }

        public bool CloudFetch { get; }

        public bool Lz4 { get; }

        /// <summary>The client sent canReadArrowResult=false: results go out as TRowSet.columns, inline, uncompressed.</summary>
        public bool ColumnBased { get; }

        public string? Tag => Query.Tag;

        public int RunningPollsLeft { get; set; }

        /// <summary>The statement runs (GetOperationStatus says RUNNING) until then, whatever the polls (QuerySpec.RunningFor).</summary>
        public DateTimeOffset RunningUntil { get; set; }

        /// <summary>Next row for a FetchResults without startRowOffset.</summary>
        public long Cursor { get; set; }

        public TOperationState State { get; set; } = TOperationState.Running;

        public DateTimeOffset Created { get; } = DateTimeOffset.UtcNow;

        /// <summary>Rows the client must see: the data set's, or fewer under LIMIT with limit_files=whole.</summary>
        public long ResultRows => Query.Limit is long limit ? Math.Min(limit, Dataset.Spec.Rows) : Dataset.Spec.Rows;

        /// <summary>
        /// The state a status poll reports, after moving a running statement on: it finishes (or fails with
        /// <see cref="QuerySpec.FailsWith"/>) once its RUNNING polls are used up and its running time is over.
        /// </summary>
        public TOperationState Poll()
        {
            lock (Lock)
            {
                if (State == TOperationState.Running && RunningPollsLeft-- <= 0 && DateTimeOffset.UtcNow >= RunningUntil)
                {
                    State = Query.FailsWith == null ? TOperationState.Finished : TOperationState.Error;
                }

                return State;
            }
        }

        public void Close()
        {
            lock (Lock)
            {
                State = TOperationState.Closed;
            }
        }

        /// <summary>Cancels the statement unless it is closed already.</summary>
        public void Cancel()
        {
            lock (Lock)
            {
                if (State != TOperationState.Closed)
                {
                    State = TOperationState.Canceled;
                }
            }
        }

        public int NextDownloadAttempt(int file)
        {
            lock (Lock)
            {
                _downloadAttempts.TryGetValue(file, out int attempts);
                _downloadAttempts[file] = ++attempts;
                return attempts;
            }
        }

        public int NextLinkIssue(int file)
        {
            lock (Lock)
            {
                _linkIssues.TryGetValue(file, out int issues);
                _linkIssues[file] = ++issues;
                return issues;
            }
        }

        /// <summary>The statement's RPC fault for this method, if it still has hits left.</summary>
        public FaultRule? TakeRpcFault(string method)
        {
            lock (Lock)
            {
                foreach (FaultRule rule in Query.Faults)
                {
                    if (rule.IsDownloadFault || !rule.AppliesToMethod(method))
                    {
                        continue;
                    }

                    _rpcFaultHits.TryGetValue(rule, out int hits);
                    if (hits < rule.Times)
                    {
                        _rpcFaultHits[rule] = hits + 1;
                        return rule;
                    }
                }

                return null;
            }
        }
    }
}
