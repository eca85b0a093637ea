namespace MockDatabricks.Server
{
    /// <summary>Command line and environment settings. Command line wins over environment.</summary>
    public sealed class ServerOptions
    {
        public const string DefaultToken = "mock-databricks-token";

        public string Bind { get; private set; } = "127.0.0.1";

        public int Port { get; private set; }

        public string Token { get; private set; } = DefaultToken;

        /// <summary>Overrides the base URL put into CloudFetch links (otherwise derived from Host / X-Forwarded-* of each request).</summary>
        public string? PublicUrl { get; private set; }

        /// <summary>Upper bound of stored (compressed) file bytes kept in memory; least recently used files are dropped and rebuilt on demand.</summary>
        public long CacheBytes { get; private set; } = 4L * 1024 * 1024 * 1024;

        public string? ProbeHealthUrl { get; private set; }

        /// <summary>Serve https with a certificate generated at start (instead of http).</summary>
        public bool Https { get; private set; }

        /// <summary>Where --https writes the certificate's PEM; default a file in the temp folder named after the process.</summary>
        public string? TlsCertificateOut { get; private set; }

        /// <summary>The generated certificate's key: <c>ecdsa</c> (P-256, the default) or <c>rsa</c> (2048, what a warehouse presents).</summary>
        public string TlsKey { get; private set; } = Tls.GeneratedCertificate.Ecdsa;

        public bool Verbose { get; private set; }

        public static ServerOptions Parse(string[] args)
        {
            var options = new ServerOptions
            {
                Bind = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_BIND") is { Length: > 0 } bind ? bind : "127.0.0.1",
                Token = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_TOKEN") is { Length: > 0 } token ? token : DefaultToken,
                PublicUrl = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_PUBLIC_URL") is { Length: > 0 } url ? url : null,
            };
            if (Environment.GetEnvironmentVariable("MOCK_DATABRICKS_PORT") is { Length: > 0 } port)
            {
                options.Port = ParsePort(port);
            }

            if (Environment.GetEnvironmentVariable("MOCK_DATABRICKS_HTTPS") is { Length: > 0 } https)
            {
                options.Https = https is "1" || https.Equals("true", StringComparison.OrdinalIgnoreCase)
                    ? true
                    : https is "0" || https.Equals("false", StringComparison.OrdinalIgnoreCase) ? false : throw new ArgumentException($"MOCK_DATABRICKS_HTTPS='{https}' is not 1/true or 0/false.");
            }

            options.TlsCertificateOut = Environment.GetEnvironmentVariable("MOCK_DATABRICKS_TLS_CERT_OUT") is { Length: > 0 } certOut ? certOut : null;
            if (Environment.GetEnvironmentVariable("MOCK_DATABRICKS_TLS_KEY") is { Length: > 0 } tlsKey)
            {
                options.TlsKey = Tls.GeneratedCertificate.CheckKeyAlgorithm(tlsKey);
            }

            if (Environment.GetEnvironmentVariable("MOCK_DATABRICKS_CACHE_MB") is { Length: > 0 } cache)
            {
                options.CacheBytes = long.Parse(cache, CultureInfo.InvariantCulture) * 1024 * 1024;
            }

            for (int i = 0; i < args.Length; i++)
            {
                string Next() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{args[i]} needs a value.");
                switch (args[i])
                {
                    case "--bind":
                        options.Bind = Next();
                        break;
                    case "--port":
                        options.Port = ParsePort(Next());
                        break;
                    case "--token":
                        options.Token = Next();
                        break;
                    case "--public-url":
                        options.PublicUrl = Next();
                        break;
                    case "--cache-mb":
                        options.CacheBytes = long.Parse(Next(), CultureInfo.InvariantCulture) * 1024 * 1024;
                        break;
                    case "--https":
                        options.Https = true;
                        break;
                    case "--tls-cert-out":
                        options.TlsCertificateOut = Next();
                        break;
                    case "--tls-key":
                        options.TlsKey = Tls.GeneratedCertificate.CheckKeyAlgorithm(Next());
                        break;
                    case "--probe-health":
                        options.ProbeHealthUrl = Next();
                        break;
                    case "--verbose":
                        options.Verbose = true;
                        break;
                    case "--help":
                    case "-h":
                        throw new ArgumentException(Usage);
                    default:
                        throw new ArgumentException($"Unknown argument '{args[i]}'.\n{Usage}");
                }
            }

            return options;
        }

        public const string Usage =
            "Usage: MockDatabricks.Server [--bind 127.0.0.1|0.0.0.0] [--port N (0 = any free)] [--token T] [--public-url URL] [--cache-mb N]\n" +
            "                             [--https [--tls-cert-out FILE] [--tls-key ecdsa|rsa]] [--verbose]\n" +
            "       --https serves TLS with a certificate generated at start and writes its PEM to FILE (default: the temp folder);\n" +
            "       its key is ECDSA P-256, or RSA 2048 with --tls-key rsa (what a warehouse presents; Mono 6.8 reads only RSA)\n" +
            "       MockDatabricks.Server --probe-health http://127.0.0.1:8080/health   (exit 0 when healthy, 1 otherwise)\n" +
            "Environment: MOCK_DATABRICKS_BIND, MOCK_DATABRICKS_PORT, MOCK_DATABRICKS_TOKEN, MOCK_DATABRICKS_PUBLIC_URL, MOCK_DATABRICKS_CACHE_MB,\n" +
            "             MOCK_DATABRICKS_HTTPS (1/true), MOCK_DATABRICKS_TLS_CERT_OUT, MOCK_DATABRICKS_TLS_KEY (ecdsa/rsa).";

        private static int ParsePort(string value)
        {
            int port = int.Parse(value, CultureInfo.InvariantCulture);
            return port is >= 0 and <= 65535 ? port : throw new ArgumentException($"Port {port} outside 0..65535.");
        }
    }
}
