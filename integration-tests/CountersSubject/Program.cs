using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Threading;
using Apache.Arrow.Adbc.Drivers.Databricks;

namespace CountersSubject
{
    /// <summary>
    /// <c>CountersSubject EXIT_CODE</c>: publishes, through the overlay's instruments, for scope 7:
    /// in_use 3 MiB in lz4_buffers and 1000 bytes in arrow_batches, collected 555 bytes of lz4_buffers, one live scope;
    /// after 3 s gives 1 MiB back (in_use lz4_buffers 2 MiB), 3 s later exits with EXIT_CODE. Like the memory probe
    /// it writes what it prints to MEMORY_PROBE_OUTPUT_FILE and its exit code to MEMORY_PROBE_EXIT_CODE_FILE.
    /// The values are what the test asserts (scripts/report/test_counters_recording.py).
    /// </summary>
    public static class Program
    {
        private const int Scope = 7;
        private const long MiB = 1024 * 1024;

        public static int Main(string[] args)
        {
            int exitCode = args.Length > 0 ? int.Parse(args[0], CultureInfo.InvariantCulture) : 0;
            string? outputFile = Environment.GetEnvironmentVariable("MEMORY_PROBE_OUTPUT_FILE");
            if (!string.IsNullOrEmpty(outputFile))
            {
                Console.SetOut(new StreamWriter(outputFile, append: false) { AutoFlush = true });
            }

            var scope = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.ScopeTag, Scope);
            var lz4 = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.PoolTag, DatabricksMemoryMetricNames.Lz4BuffersPool);
            var batches = new KeyValuePair<string, object?>(DatabricksMemoryMetricNames.PoolTag, DatabricksMemoryMetricNames.ArrowBatchesPool);

            DatabricksMemoryMetrics.LiveScopes.Add(1, scope);
            DatabricksMemoryMetrics.InUse.Add(3 * MiB, scope, lz4);
            DatabricksMemoryMetrics.InUse.Add(1000, scope, batches);
            DatabricksMemoryMetrics.Collected.Add(555, scope, lz4);
            Thread.Sleep(3000);
            DatabricksMemoryMetrics.InUse.Add(-MiB, scope, lz4);
            Thread.Sleep(3000);

            Console.WriteLine($"counters subject: exiting with {exitCode}");
            string? exitCodeFile = Environment.GetEnvironmentVariable("MEMORY_PROBE_EXIT_CODE_FILE");
            if (!string.IsNullOrEmpty(exitCodeFile))
            {
                File.WriteAllText(exitCodeFile, exitCode.ToString(CultureInfo.InvariantCulture));
            }

            return exitCode;
        }
    }
}
