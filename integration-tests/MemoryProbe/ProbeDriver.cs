using Apache.Arrow.Adbc;
using Apache.Arrow.Adbc.Drivers.Databricks;
using Harness.Support;

namespace MemoryProbe
{
    /// <summary>
    /// The one place the host workloads name the driver's namespace (it differs between the driver's homes): how they
    /// open a database on the mock, and which assembly they measured.
    /// </summary>
    internal static class ProbeDriver
    {
        /// <summary>The driver type, for its assembly and the patch series stamped into it.</summary>
        public static System.Type DriverType => typeof(DatabricksDriver);

        /// <summary>What an application does: <c>new DatabricksDriver().Open(properties)</c>, with the probe's properties.</summary>
        public static AdbcDatabase Open(ProbeOptions options) =>
            new DatabricksDriver().Open(MockConnectionProperties.For(options.MockUrl, options.Token, options.Properties));
    }
}
