using System.Globalization;

namespace MemoryProbe
{
    /// <summary>
    /// Command line: --mock-url URL --label stock|patched --scenario NAME --rows N --output FILE [--seed S] [--warmup-rows N]
    /// [--sample-every K] [--token T] [--property key=value]... [--heap-report FILE] [--print-statement] [--never-dispose-batches]
    /// [--workload full-read|partial-read|concurrent|sequential] [--queries N] [--databases N] [--hold-ms MS]
    /// [--download-bps N] [--ttfb-ms MS] [--link-bps N] (the mock's network, see DownloadFaults)
    /// [--idle-seconds S] [--warmup-queries N] (the workloads other than full-read: see HostWorkload)
    /// [--protocol thrift|rest] [--trusted-certificate PEM] (see ProbeDriver).
    /// </summary>
    internal sealed class ProbeOptions
    {
        public Uri MockUrl { get; private set; } = new Uri("http://127.0.0.1:8080");

        public string Label { get; private set; } = "driver";

        public string Scenario { get; private set; } = "cloudfetch";

        public long Rows { get; private set; } = 1_000_000;

        public int Seed { get; private set; } = 1;

        public int SampleEvery { get; private set; } = 1;

        public string Token { get; private set; } = Harness.Support.MockConnectionProperties.DefaultToken;

        public string Output { get; private set; } = "probe.json";

        public Dictionary<string, string> Properties { get; } = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);

        /// <summary>The driver's protocol: <see cref="ProbeDriver.Thrift"/> (the default, over the mock's http or https) or
        /// <see cref="ProbeDriver.Rest"/> (the Statement Execution API, which the driver only speaks over https).</summary>
        public string Protocol { get; private set; } = ProbeDriver.Thrift;

        /// <summary>The PEM of an https mock's generated certificate, trusted by the driver and the admin client (null: http).</summary>
        public string? TrustedCertificate { get; private set; }

        /// <summary>The statement: a CloudFetch result of the mock's mixed data set (about 100 bytes per row uncompressed).</summary>
        public string Statement(long rows) => Statement(rows, Seed);

        /// <summary>
        /// The same for another seed, with <paramref name="extra"/> (statement options that leave the data as it is, such
        /// as a journal tag or a download fault) appended: the mock caches a result by its data, so a prepared result
        /// serves every variant.
        /// </summary>
        public static string Statement(long rows, int seed, string? extra = null) => string.Create(CultureInfo.InvariantCulture,
            $"SELECT * FROM mock.data WITH (rows={rows}, seed={seed}, mode=cloudfetch{(extra == null ? "" : ", " + extra)})");

        /// <summary>
        /// Print the SQL text of the measured query (for --rows and --seed) and exit without running anything:
        /// scripts/verify asks the mock server to prepare exactly that result before the timed runs.
        /// </summary>
        public bool PrintStatement { get; private set; }

        /// <summary>Where to write the heap report (see HeapReport), or null (the default) for none.</summary>
        public string? HeapReport { get; private set; }

        /// <summary>
        /// Plays an application that never disposes the record batches it reads (it drops them to the GC), to show
        /// that memory stays bounded then too. The warm-up query still disposes its batches.
        /// </summary>
        public bool NeverDisposeBatches { get; private set; }

        /// <summary>Rows of the unmeasured warm-up query (0 for none).</summary>
        public long WarmupRows { get; private set; } = 20_000;

        /// <summary>
        /// Host workloads: how many warm-up queries (each through its own database) run before the baseline. A long-lived
        /// process has compiled its hot paths at their final tier long ago; a fresh one compiles them again after some 30
        /// calls (tiered JIT), which grows the working set over its first queries whatever the driver does.
        /// </summary>
        public int WarmupQueries { get; private set; } = 1;

        /// <summary>What the probe does with the driver: full-read (the one query above), or a host workload (see <see cref="HostWorkload"/>).</summary>
        public string Workload { get; private set; } = HostWorkload.FullRead;

        /// <summary>Queries of a concurrent or sequential workload.</summary>
        public int Queries { get; private set; } = 4;

        /// <summary>Databases the queries of a concurrent workload are spread over (1: all on one database).</summary>
        public int Databases { get; private set; } = 1;

        /// <summary>Partial read: how long the application keeps the reader after its first batch before disposing it.</summary>
        public int HoldMilliseconds { get; private set; } = 1000;

        /// <summary>The mock sends each file at this rate (bytes/s, 0: as fast as it can), as a real network would.</summary>
        public long DownloadBytesPerSecond { get; private set; }

        /// <summary>The mock waits this long before answering each download (its time to first byte; 0: none).</summary>
        public int TimeToFirstByteMilliseconds { get; private set; }

        /// <summary>Every download of the query goes through one link of this rate that they share (bytes/s, 0: none).</summary>
        public long LinkBytesPerSecond { get; private set; }

        /// <summary>
        /// The mock's network for the measured queries as the statement's download faults (integration-tests/README.md,
        /// "Fault catalogue"), "faults='...'", or null when the downloads go at loopback speed. Every workload passes it on.
        /// </summary>
        public string? DownloadFaults
        {
            get
            {
                var faults = new List<string>();
                if (DownloadBytesPerSecond > 0)
                {
                    faults.Add($"throttle bps={DownloadBytesPerSecond} times=always");
                }

                if (TimeToFirstByteMilliseconds > 0)
                {
                    faults.Add($"slow delay_ms={TimeToFirstByteMilliseconds} times=always");
                }

                if (LinkBytesPerSecond > 0)
                {
                    faults.Add($"link bps={LinkBytesPerSecond} times=always");
                }

                return faults.Count == 0 ? null : string.Create(CultureInfo.InvariantCulture, $"faults='{string.Join("; ", faults)}'");
            }
        }

        /// <summary>Sequential: seconds the process stays idle after the last query, with the database still open.</summary>
        public double IdleSeconds { get; private set; }

        public static ProbeOptions Parse(string[] args)
        {
            var options = new ProbeOptions();
            for (int i = 0; i < args.Length; i++)
            {
                string Value() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{args[i]} needs a value");
                switch (args[i])
                {
                    case "--mock-url": options.MockUrl = new Uri(Value()); break;
                    case "--label": options.Label = Value(); break;
                    case "--scenario": options.Scenario = Value(); break;
                    case "--rows": options.Rows = long.Parse(Value(), CultureInfo.InvariantCulture); break;
                    case "--warmup-rows": options.WarmupRows = long.Parse(Value(), CultureInfo.InvariantCulture); break;
                    case "--seed": options.Seed = int.Parse(Value(), CultureInfo.InvariantCulture); break;
                    case "--sample-every": options.SampleEvery = int.Parse(Value(), CultureInfo.InvariantCulture); break;
                    case "--token": options.Token = Value(); break;
                    case "--output": options.Output = Value(); break;
#if NETFRAMEWORK
                    case "--heap-report": throw new ArgumentException("--heap-report reads a .NET heap dump; this is the probe's .NET Framework build");
#else
                    case "--heap-report": options.HeapReport = Value(); break;
#endif
                    case "--never-dispose-batches": options.NeverDisposeBatches = true; break;
                    case "--print-statement": options.PrintStatement = true; break;
                    case "--workload": options.Workload = HostWorkload.CheckName(Value()); break;
                    case "--warmup-queries": options.WarmupQueries = AtLeast(int.Parse(Value(), CultureInfo.InvariantCulture), 0, "--warmup-queries"); break;
                    case "--queries": options.Queries = AtLeast(int.Parse(Value(), CultureInfo.InvariantCulture), 1, "--queries"); break;
                    case "--databases": options.Databases = AtLeast(int.Parse(Value(), CultureInfo.InvariantCulture), 1, "--databases"); break;
                    case "--hold-ms": options.HoldMilliseconds = AtLeast(int.Parse(Value(), CultureInfo.InvariantCulture), 0, "--hold-ms"); break;
                    case "--download-bps": options.DownloadBytesPerSecond = AtLeast(long.Parse(Value(), CultureInfo.InvariantCulture), 0, "--download-bps"); break;
                    case "--ttfb-ms": options.TimeToFirstByteMilliseconds = AtLeast(int.Parse(Value(), CultureInfo.InvariantCulture), 0, "--ttfb-ms"); break;
                    case "--link-bps": options.LinkBytesPerSecond = AtLeast(long.Parse(Value(), CultureInfo.InvariantCulture), 0, "--link-bps"); break;
                    case "--idle-seconds": options.IdleSeconds = AtLeast(double.Parse(Value(), CultureInfo.InvariantCulture), 0, "--idle-seconds"); break;
                    case "--protocol": options.Protocol = ProbeDriver.CheckProtocol(Value()); break;
                    case "--trusted-certificate": options.TrustedCertificate = Value(); break;
                    case "--property":
                        string pair = Value();
                        int equals = pair.IndexOf('=');
                        if (equals <= 0)
                        {
                            throw new ArgumentException($"--property expects key=value, got '{pair}'");
                        }

                        options.Properties[pair.Substring(0, equals)] = pair.Substring(equals + 1);
                        break;
                    default: throw new ArgumentException($"unknown option {args[i]}");
                }
            }

            if (options.Protocol == ProbeDriver.Rest && options.MockUrl.Scheme != Uri.UriSchemeHttps)
            {
                throw new ArgumentException($"--protocol rest needs an https mock (the driver calls https://<hostName>), got {options.MockUrl}");
            }

            if (options.Databases > options.Queries)
            {
                throw new ArgumentException($"--databases {options.Databases} is more than --queries {options.Queries}: a database would have no query");
            }

            return options;
        }

        private static T AtLeast<T>(T value, T minimum, string name) where T : IComparable<T> =>
            value.CompareTo(minimum) >= 0 ? value : throw new ArgumentException($"{name} must be at least {minimum}, got {value}");
    }
}
