using System;
using System.Globalization;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>Which columns a data set has (see <see cref="DatasetGenerator"/> for the exact columns).</summary>
    public enum DatasetProfile
    {
        /// <summary>id, int, double, decimal, string, timestamp, date, bool, low-cardinality string: all the common types.</summary>
        Mixed,

        /// <summary>id, int, double: small rows, many rows per file.</summary>
        Narrow,

        /// <summary>id, long text, low-cardinality string: string-heavy rows.</summary>
        Strings,
    }

    /// <summary>
    /// Everything that determines a data set's rows and how they are cut into files and record batches.
    /// Two equal specs give byte-identical Arrow data, so the server can cache by <see cref="Key"/> and tests can
    /// recompute any value.
    /// </summary>
    public sealed record DatasetSpec
    {
        public const long DefaultTargetFileBytes = 20L * 1024 * 1024;

        public long Rows { get; init; } = 1000;

        public int Seed { get; init; } = 1;

        public DatasetProfile Profile { get; init; } = DatasetProfile.Mixed;

        /// <summary>Target uncompressed Arrow bytes per CloudFetch file (Databricks produces about 20 MB); used when <see cref="RowsPerFile"/> is null.</summary>
        public long TargetFileBytes { get; init; } = DefaultTargetFileBytes;

        /// <summary>Exact rows per file; overrides <see cref="TargetFileBytes"/>.</summary>
        public long? RowsPerFile { get; init; }

        /// <summary>Rows per Arrow record batch inside a file, and per inline TSparkArrowBatch.</summary>
        public int RowsPerBatch { get; init; } = 32768;

        /// <summary>
        /// The columns of a SQL result or sample table (range(...), literals, metadata, main.tpcds_sf100_delta.store_sales);
        /// null for the mock.* data sets, whose columns come from <see cref="Profile"/> and <see cref="Seed"/>.
        /// </summary>
        public TableDefinition? Table { get; init; }

        public string Key => string.Create(CultureInfo.InvariantCulture,
            $"rows={Rows};{(Table == null ? $"seed={Seed};profile={Profile}" : "table=" + Table.Key)};file_bytes={TargetFileBytes};file_rows={RowsPerFile?.ToString(CultureInfo.InvariantCulture) ?? "auto"};batch_rows={RowsPerBatch}");

        public void Validate()
        {
            if (Rows < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(Rows), "rows must be >= 0");
            }

            if (TargetFileBytes < 1024)
            {
                throw new ArgumentOutOfRangeException(nameof(TargetFileBytes), "file size target must be at least 1 KB");
            }

            if (RowsPerFile is long rowsPerFile && (rowsPerFile < 1 || rowsPerFile > int.MaxValue))
            {
                throw new ArgumentOutOfRangeException(nameof(RowsPerFile), "rows per file must be 1..2^31-1");
            }

            if (RowsPerBatch < 1)
            {
                throw new ArgumentOutOfRangeException(nameof(RowsPerBatch), "rows per batch must be >= 1");
            }
        }
    }
}
