using MockDatabricks.Server.Faults;

namespace MockDatabricks.Server.Query
{
    public enum ResultMode
    {
        Auto,
        Inline,
        CloudFetch,
    }

    public enum StatementKind
    {
        /// <summary>A query's result of generated rows: a mock.* data set, a SELECT (literals, range, VALUES, a table).</summary>
        Dataset,

        /// <summary>
        /// The answer of a command (SHOW, DESCRIBE, SET, a catalog RPC): a few fixed rows, served inline whatever the client
        /// allows (REST's EXTERNAL_LINKS gives links only to query results).
        /// </summary>
        Command,

        /// <summary>USE: succeeds with an empty result (one STRING column, no rows).</summary>
        NoResult,
    }

    /// <summary>Everything a statement asks for: the data set, how results are delivered, and the faults to inject.</summary>
    public sealed record QuerySpec
    {
        public StatementKind Kind { get; init; } = StatementKind.Dataset;

        public string Name { get; init; } = "data";

        public DatasetSpec Dataset { get; init; } = new DatasetSpec();

        public ResultMode Mode { get; init; } = ResultMode.Auto;

        /// <summary>Auto mode answers inline when the estimated uncompressed result is at most this many bytes.</summary>
        public long InlineMaxBytes { get; init; } = 1024 * 1024;

        /// <summary>false forces uncompressed results even when the client can decompress LZ4.</summary>
        public bool Lz4Allowed { get; init; } = true;

        /// <summary>
        /// LZ4 even when the client did not send canDecompressLZ4Result (lz4=always). A warehouse never does that; it is
        /// how a test reaches the CloudFetch LZ4 decoder of a client that never asks for LZ4 together with CloudFetch, as
        /// the Node.js driver (@databricks/sql 1.11 and later) does not. The client still decodes by lz4Compressed.
        /// </summary>
        public bool Lz4Always { get; init; }

        public FileFraming Framing { get; init; } = FileFraming.Databricks;

        /// <summary>Max links per FetchResults / direct result (0 = as many as maxRows allows).</summary>
        public int LinksPerFetch { get; init; }

        /// <summary>false: ignore getDirectResults and make the client poll, fetch metadata and call FetchResults.</summary>
        public bool DirectResults { get; init; } = true;

        /// <summary>GetOperationStatus answers RUNNING this many times before FINISHED (only when results are not direct).</summary>
        public int RunningPolls { get; init; } = 1;

        public int ExpirySeconds { get; init; } = 3600;

        /// <summary>Include closeOperation in direct results when everything fits (the client then skips CloseOperation).</summary>
        public bool CloseInDirectResults { get; init; }

        public string? Tag { get; init; }

        public IReadOnlyList<FaultRule> Faults { get; init; } = new List<FaultRule>();

        /// <summary>
        /// The rows the client must see when LIMIT keeps fewer than the data set has and <see cref="LimitServesWholeFiles"/>
        /// is set; null otherwise (the data set's rows are the result).
        /// </summary>
        public long? Limit { get; init; }

        /// <summary>
        /// limit_files=whole: CloudFetch files are those of the data set without the LIMIT, and the link of the file the
        /// limit falls in says how many of its rows belong to the result (rowCount smaller than the file's rows), as a
        /// warehouse serves LIMIT results. Default (exact): the files end where the limit does.
        /// </summary>
        public bool LimitServesWholeFiles { get; init; }

        /// <summary>false for results made per statement (literals, commands): they are not kept in the data set cache.</summary>
        public bool Cacheable { get; init; } = true;

        /// <summary>How long the statement runs before it is FINISHED (no direct results meanwhile; GetOperationStatus says RUNNING).</summary>
        public TimeSpan RunningFor { get; init; }

        /// <summary>The error the statement ends with after <see cref="RunningFor"/> (state ERROR instead of FINISHED); null: it succeeds.</summary>
        public Sql.SqlError? FailsWith { get; init; }

        /// <summary>The rows of the result: the data set's, or <see cref="Limit"/> when that is smaller.</summary>
        public long ResultRows => Limit is long limit ? Math.Min(limit, Dataset.Rows) : Dataset.Rows;

        /// <summary>Whether the result goes out as CloudFetch links (else inline batches), for a client that can or cannot download.</summary>
        public bool UsesCloudFetch(bool clientCanDownload) => clientCanDownload && Mode switch
        {
            ResultMode.Inline => false,
            ResultMode.CloudFetch => true,
            _ => ResultRows * DatasetGenerator.EstimatedRowBytes(Dataset) > InlineMaxBytes,
        };
    }
}
