namespace MemoryProbe
{
    /// <summary>
    /// How the probe opens a database on the mock, and which driver it measured. The driver's namespace (it differs
    /// between its homes) comes from the global using of ../DriverUnderTest.props.
    /// </summary>
    internal static class ProbeDriver
    {
        public const string Thrift = "thrift";

        /// <summary>The Statement Execution REST API (adbc-drivers/databricks' <c>adbc.databricks.protocol=rest</c>).</summary>
        public const string Rest = "rest";

        /// <summary>The driver type, for its assembly and the patch series stamped into it.</summary>
        public static System.Type DriverType => typeof(DatabricksDriver);

        public static string CheckProtocol(string protocol) => protocol is Thrift or Rest
            ? protocol
            : throw new ArgumentException($"unknown protocol '{protocol}' (known: {Thrift}, {Rest})");

        /// <summary>What an application does: <c>new DatabricksDriver().Open(properties)</c>, with the probe's properties.</summary>
        public static AdbcDatabase Open(ProbeOptions options) => new DatabricksDriver().Open(Properties(options));

        /// <summary>
        /// The harness's properties for the mock (MockConnectionProperties), with the mock's certificate trusted over https.
        /// REST: the driver calls https://<c>adbc.spark.host</c> and ignores a uri's port, so the host goes in as
        /// <c>127.0.0.1:PORT</c> with the warehouse path beside it, and no uri (the Thrift path refuses a uri beside a
        /// hostName; REST would take the host from it without its port). Its transport retries are off too: a refused
        /// connection is otherwise retried for up to 15 minutes before the run fails.
        /// </summary>
        public static Dictionary<string, string> Properties(ProbeOptions options)
        {
            Dictionary<string, string> properties = MockConnectionProperties.For(options.MockUrl, options.Token, options.Properties, options.TrustedCertificate);
            if (options.Protocol == Rest)
            {
                var warehouse = new Uri(properties["uri"]);
                properties.Remove("uri");
                properties["adbc.spark.host"] = warehouse.Authority;
                properties["adbc.spark.path"] = warehouse.AbsolutePath;
                properties["adbc.databricks.protocol"] = Rest;
                properties["adbc.databricks.rate_limit_retry"] = "false";
                properties["adbc.databricks.transport_error_retry"] = "false";
                foreach (KeyValuePair<string, string> pair in options.Properties)
                {
                    properties[pair.Key] = pair.Value; // what the command line sets still wins
                }
            }

            return properties;
        }
    }
}
