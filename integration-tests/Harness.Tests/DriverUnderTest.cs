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

        public static string Description => IsPatched ? $"patched (series {PatchSeries})" : "stock";
    }
}
