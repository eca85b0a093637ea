using System.Reflection;

namespace Harness.Tests
{
    /// <summary>Which driver this run was compiled against, as far as the tests need to know.</summary>
    public static class DriverUnderTest
    {
        public const string NotPatchedReason = "driver under test is not patched (no PatchSeries attribute)";

        /// <summary>
        /// The patch series version stamped into the patched driver ([AssemblyMetadata("...PatchSeries", v)]), or null
        /// for a stock driver. The same detection as the memory probe's.
        /// </summary>
        public static string? PatchSeries { get; } = typeof(DatabricksDriver).Assembly
            .GetCustomAttributes<AssemblyMetadataAttribute>()
            .FirstOrDefault(a => a.Key.EndsWith("PatchSeries", StringComparison.Ordinal))?.Value;

        public static bool IsPatched => PatchSeries != null;

        /// <summary>The driver's new home (adbc-drivers/databricks, namespace AdbcDrivers.Databricks), not apache/arrow-adbc's copy.</summary>
        public static bool IsNewHome { get; } = typeof(DatabricksDriver).Namespace == "AdbcDrivers.Databricks";

        public static string Description => IsPatched ? $"patched (series {PatchSeries})" : "stock";
    }
}
