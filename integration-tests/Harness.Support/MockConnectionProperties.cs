using System;
using System.Collections.Generic;

namespace Harness.Support
{
    /// <summary>ADBC properties that point the Databricks driver at the mock server.</summary>
    public static class MockConnectionProperties
    {
        public const string DefaultToken = "mock-databricks-token"; // the mock server's default (MOCK_DATABRICKS_TOKEN)

        /// <summary>
        /// The minimal set from the protocol reference (section 1.2), plus: no 15-minute retry loop on a mock 503,
        /// short CloudFetch retry delays and 3 attempts per file, so fault scenarios finish quickly. For a mock serving https
        /// with its generated certificate, <paramref name="trustedCertificatePath"/> is that certificate's PEM: the driver
        /// trusts it (adbc.http_options.tls.trusted_certificate_path) and validates the connection as it would a
        /// warehouse's. For the driver's new home (adbc-drivers/databricks; apache/arrow-adbc's driver ignores these
        /// keys): the Thrift protocol, which the mock speaks (the REST Statement Execution API it does not), and no
        /// feature-flag or telemetry requests, which the mock does not serve and which would only add background traffic
        /// to the measurements.
        /// </summary>
        public static Dictionary<string, string> For(Uri server, string token = DefaultToken, IReadOnlyDictionary<string, string>? extra = null, string? trustedCertificatePath = null)
        {
            var properties = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase)
            {
                ["uri"] = new Uri(server, "/sql/1.0/warehouses/mock").ToString(),
                ["adbc.spark.auth_type"] = "token",
                ["adbc.spark.token"] = token,
                ["adbc.spark.temporarily_unavailable_retry"] = "false",
                ["adbc.databricks.cloudfetch.retry_delay_ms"] = "50",
                // apache/arrow-adbc's default; the new home retries a broken download for up to 5 minutes instead.
                ["adbc.databricks.cloudfetch.max_retries"] = "3",
                ["adbc.databricks.trace_propagation.enabled"] = "false",
                ["adbc.databricks.protocol"] = "thrift",
                ["adbc.databricks.feature_flag_cache_enabled"] = "false",
                ["adbc.databricks.telemetry.enabled"] = "false",
            };
            if (trustedCertificatePath != null)
            {
                properties["adbc.http_options.tls.trusted_certificate_path"] = trustedCertificatePath;
            }

            if (extra != null)
            {
                foreach (KeyValuePair<string, string> pair in extra)
                {
                    properties[pair.Key] = pair.Value;
                }
            }

            return properties;
        }
    }
}
