using System.Globalization;
using MockDatabricks.Protocol.Data;

namespace MockDatabricks.Testing
{
    /// <summary>Builds statements in the mock's grammar from a <see cref="DatasetSpec"/>, so tests and server agree on the data.</summary>
    public static class MockSql
    {
        /// <summary>
        /// SELECT * FROM mock.data WITH (rows=..., seed=..., profile=..., [file_rows=...|file_mb=...], batch_rows=..., &lt;extra&gt;).
        /// <paramref name="extraOptions"/> is appended verbatim, e.g. "mode=cloudfetch, faults='http403 files=0'".
        /// </summary>
        public static string Select(DatasetSpec spec, string? extraOptions = null)
        {
            var options = new List<string>
            {
                string.Create(CultureInfo.InvariantCulture, $"rows={spec.Rows}"),
                string.Create(CultureInfo.InvariantCulture, $"seed={spec.Seed}"),
                "profile=" + spec.Profile.ToString().ToLowerInvariant(),
                string.Create(CultureInfo.InvariantCulture, $"batch_rows={spec.RowsPerBatch}"),
            };
            if (spec.RowsPerFile is long rowsPerFile)
            {
                options.Add(string.Create(CultureInfo.InvariantCulture, $"file_rows={rowsPerFile}"));
            }
            else if (spec.TargetFileBytes != DatasetSpec.DefaultTargetFileBytes)
            {
                options.Add(string.Create(CultureInfo.InvariantCulture, $"file_mb={spec.TargetFileBytes / (1024.0 * 1024.0):R}"));
            }

            if (!string.IsNullOrWhiteSpace(extraOptions))
            {
                options.Add(extraOptions);
            }

            return $"SELECT * FROM mock.data WITH ({string.Join(", ", options)})";
        }
    }
}
