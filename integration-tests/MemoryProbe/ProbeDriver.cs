namespace MemoryProbe
{
    /// <summary>
    /// How the host workloads open a database on the mock, and which driver they measured. The driver's namespace (it
    /// differs between its homes) comes from the global using of ../DriverUnderTest.props.
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
