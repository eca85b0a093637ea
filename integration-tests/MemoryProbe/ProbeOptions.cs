using System;
using System.Collections.Generic;
using System.Globalization;

namespace MemoryProbe
{
    /// <summary>Command line: --mock-url URL --label stock|patched --scenario NAME --rows N --output FILE [--seed S] [--warmup-rows N] [--sample-every K] [--token T] [--property key=value]... [--heap-report FILE] [--print-statement] [--never-dispose-batches]</summary>
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

        /// <summary>The statement: a CloudFetch result of the mock's mixed data set (about 100 bytes per row uncompressed).</summary>
        public string Statement(long rows) => string.Create(CultureInfo.InvariantCulture, $"SELECT * FROM mock.data WITH (rows={rows}, seed={Seed}, mode=cloudfetch)");

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
                    case "--heap-report": options.HeapReport = Value(); break;
                    case "--never-dispose-batches": options.NeverDisposeBatches = true; break;
                    case "--print-statement": options.PrintStatement = true; break;
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

            return options;
        }
    }
}
