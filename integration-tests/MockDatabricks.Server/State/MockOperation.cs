using System;
using System.Collections.Generic;
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

        public MockOperation(TOperationHandle handle, string session, string statement, QuerySpec query, StoredDataset? dataset, bool cloudFetch, bool lz4, bool columnBased)
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
        }

        public object Lock { get; } = new object();

        public TOperationHandle Handle { get; }

        public string Id { get; }

        public string Session { get; }

        public string Statement { get; }

        public QuerySpec Query { get; }

        /// <summary>null for statements without a result set (USE/SET) and SELECT 1 (served from <see cref="StaticBatch"/>).</summary>
        public StoredDataset? Dataset { get; }

        /// <summary>The whole result of SELECT 1 (one INT row) and USE/SET (an empty string column).</summary>
        public Apache.Arrow.RecordBatch? StaticBatch { get; init; }

        public bool CloudFetch { get; }

        public bool Lz4 { get; }

        /// <summary>The client sent canReadArrowResult=false: results go out as TRowSet.columns, inline, uncompressed.</summary>
        public bool ColumnBased { get; }

        public string? Tag => Query.Tag;

        public int RunningPollsLeft { get; set; }

        /// <summary>Next row for a FetchResults without startRowOffset.</summary>
        public long Cursor { get; set; }

        public TOperationState State { get; set; } = TOperationState.Running;

        public DateTimeOffset Created { get; } = DateTimeOffset.UtcNow;

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
