using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow.Adbc;
using Harness.Support;
using MockDatabricks.Protocol.Data;
using MetricNames = Apache.Arrow.Adbc.Drivers.Databricks.DatabricksMemoryMetricNames;

namespace MemoryProbe
{
    /// <summary>
    /// Runs one query through one driver against the mock server and writes what it cost as JSON: allocations,
    /// collections, LOH, peak GC heap and working set, the GC heap after dispose versus before open, time, rows/s, time
    /// to the first batch and the longest wait for one batch (a pipeline stall),
    /// whether every (sampled) value was right, and the patched driver's own pool accounting.
    /// </summary>
    public static class Program
    {
        /// <summary>
        /// scripts/verify records every run with <c>dotnet-counters collect -- dotnet MemoryProbe.dll ...</c>, which
        /// discards its child's output and exits 0 whatever the child returns. So two environment variables ask for
        /// both in files: MEMORY_PROBE_OUTPUT_FILE receives what the probe writes to stdout and stderr, and
        /// MEMORY_PROBE_EXIT_CODE_FILE its exit code, written last (no file: the probe did not finish).
        /// </summary>
        public static async Task<int> Main(string[] args)
        {
            string? outputFile = Environment.GetEnvironmentVariable("MEMORY_PROBE_OUTPUT_FILE");
            string? exitCodeFile = Environment.GetEnvironmentVariable("MEMORY_PROBE_EXIT_CODE_FILE");
            if (!string.IsNullOrEmpty(outputFile))
            {
                TextWriter output = TextWriter.Synchronized(new StreamWriter(outputFile, append: false) { AutoFlush = true });
                Console.SetOut(output);
                Console.SetError(output);
            }

            int exitCode;
            try
            {
                exitCode = await RunAsync(args).ConfigureAwait(false);
            }
            catch (Exception ex) when (!string.IsNullOrEmpty(outputFile))
            {
                Console.Error.WriteLine("memory probe: unhandled " + ex);
                throw;
            }

            if (!string.IsNullOrEmpty(exitCodeFile))
            {
                await File.WriteAllTextAsync(exitCodeFile, exitCode.ToString(System.Globalization.CultureInfo.InvariantCulture)).ConfigureAwait(false);
            }

#if NETFRAMEWORK
            // Under Mono, returning from Main waits at shutdown for every thread to stop, and a driver that failed
            // mid-read can leave a thread-pool thread blocked for good (stock v1.1.7's result fetcher in a full
            // BlockingCollection.Add): the run would never end. Its result is written; end the process.
            Environment.Exit(exitCode);
#endif
            return exitCode;
        }

        private static async Task<int> RunAsync(string[] args)
        {
            ProbeOptions options;
            try
            {
                options = ProbeOptions.Parse(args);
            }
            catch (Exception ex) when (ex is ArgumentException || ex is FormatException)
            {
                Console.Error.WriteLine("memory probe: " + ex.Message);
                return 2;
            }

            if (options.Workload != HostWorkload.FullRead)
            {
                return await HostWorkload.RunAsync(options).ConfigureAwait(false);
            }

            if (options.PrintStatement)
            {
                Console.WriteLine(options.Statement(options.Rows));
                return 0;
            }

            // A small query first, through its own database: type loading, JIT and the driver's static caches are
            // then part of the baseline, so "heap after dispose" measures what one database leaves behind.
            if (options.WarmupRows > 0)
            {
                RunResult warmup = RunQuery(options, options.WarmupRows, disposeBatches: true, new StrongBox<AdbcDatabase?>());
                if (warmup.Error != null)
                {
                    Console.Error.WriteLine($"memory probe: warm-up query failed: {warmup.Error}");
                    return 1;
                }
            }

            using var overlay = new OverlayMetricsListener();
            using var gcEvents = new GcEventListener();
            // Created before the baseline: its sample list (about 100 KB, preallocated) is alive at "after dispose",
            // so it must be in "before open" too, or the probe reports its own list as the driver's residue.
            using var sampler = new MemorySampler(TimeSpan.FromMilliseconds(50));

            long heapBeforeOpen = CompactingCollect();
            long workingSetBeforeOpen = RuntimeMeasures.WorkingSet();
#if !NETFRAMEWORK // ProbeOptions refuses --heap-report on .NET Framework
            HeapReport? heapReport = options.HeapReport == null ? null : new HeapReport(options.HeapReport);
            heapReport?.DumpBeforeOpen();
#endif
            long? allocatedBefore = RuntimeMeasures.TotalAllocatedBytes();
            int[] collectionsBefore = Collections();
            long lohBefore = gcEvents.LargeObjectBytes;

            sampler.Start();
            DateTime runStart = DateTime.UtcNow;
            var clock = Stopwatch.StartNew();
            // The disposed database object, kept referenced the way hosts keep it, for the first "after dispose" figure.
            var keptDatabase = new StrongBox<AdbcDatabase?>();
            RunResult run = RunQuery(options, options.Rows, disposeBatches: !options.NeverDisposeBatches, keptDatabase);
            clock.Stop();
            DateTime runEnd = DateTime.UtcNow;
            sampler.Stop();

            long? allocated = RuntimeMeasures.TotalAllocatedBytes() - allocatedBefore;
            int[] collections = Collections().Zip(collectionsBefore, (after, before) => after - before).ToArray();
            long lohAllocated = gcEvents.LargeObjectBytes - lohBefore;
            // Twice: with the disposed database still referenced (what a driver whose pools live as long as that object
            // keeps), then with it dropped (what remains once the application lets go of everything).
            long heapAfterDisposeDatabaseKept = CompactingCollect();
            keptDatabase.Value = null;
            long heapAfterDispose = CompactingCollect();
#if !NETFRAMEWORK
            heapReport?.DumpAfterDispose();
#endif
            long decoded = overlay.DecodedBytes();

            // GCStart events arrive a little after the fact; by now (two blocking collections later) the run's have.
            Thread.Sleep(TimeSpan.FromSeconds(1));
            SortedDictionary<string, int> gen2ByReason = gcEvents.Gen2ByReason(runStart, runEnd);

            var result = new Dictionary<string, object?>
            {
                ["driver"] = options.Label,
                ["scenario"] = options.Scenario,
                ["driverAssembly"] = typeof(DatabricksDriver).Assembly.Location,
                ["patchSeries"] = PatchSeriesOf(typeof(DatabricksDriver)),
                ["rows"] = run.Rows,
                ["batchesDisposed"] = !options.NeverDisposeBatches,
                ["rowsVerified"] = run.Error == null && run.Errors.Count == 0 && run.Rows == options.Rows,
                ["valueErrors"] = run.Errors.Count,
                ["valuesChecked"] = run.ValuesChecked,
                ["sampleEvery"] = options.SampleEvery,
                ["errors"] = run.Error != null ? run.Errors.Prepend(run.Error).ToList() : run.Errors,
                ["decompressedBytes"] = decoded > 0 ? decoded : null,
                ["wallSeconds"] = clock.Elapsed.TotalSeconds,
                ["rowsPerSecond"] = run.Rows / clock.Elapsed.TotalSeconds,
                ["firstBatchSeconds"] = run.FirstBatchSeconds,
                ["longestBatchWaitSeconds"] = run.LongestBatchWaitSeconds,
                ["allocatedBytes"] = allocated,
                ["allocatedBytesPerDecompressedByte"] = decoded > 0 ? (double?)allocated / decoded : null,
                ["gen0Collections"] = collections[0],
                ["gen1Collections"] = collections[1],
                ["gen2Collections"] = collections[2],
                // GC.MaxGeneration's: Gen2 on .NET, every major collection on Mono (two generations).
                ["fullCollections"] = collections[GC.MaxGeneration],
                ["gen2CollectionsByReason"] = gcEvents.Enabled ? gen2ByReason : null,
                // From the runtime's GC events, which Mono does not send: null there, not zero.
                ["lohAllocatedBytes"] = gcEvents.Enabled ? lohAllocated : null,
                ["peakGcHeapBytes"] = sampler.PeakGcHeapBytes,
                ["peakWorkingSetBytes"] = Process.GetCurrentProcess().PeakWorkingSet64,
                ["workingSetBeforeOpenBytes"] = workingSetBeforeOpen,
                ["gcHeapBeforeOpenBytes"] = heapBeforeOpen,
                ["gcHeapAfterDisposeBytes"] = heapAfterDispose,
                ["gcHeapAfterDisposeDeltaBytes"] = heapAfterDispose - heapBeforeOpen,
                ["gcHeapAfterDisposeDatabaseKeptDeltaBytes"] = heapAfterDisposeDatabaseKept - heapBeforeOpen,
                ["overlayMetrics"] = new Dictionary<string, object?>
                {
                    ["scopes"] = overlay.Scopes.Count,
                    ["inUseBytes"] = overlay.InUseBytes(),
                    // Per pool, because batches never disposed (--never-dispose-batches) are collected without
                    // being returned: arrow_batches then rightly ends with bytes in use, the LZ4 pool must not.
                    ["inUseBytesByPool"] = overlay.Scopes.Count == 0 ? null : new Dictionary<string, long>
                    {
                        [MetricNames.Lz4BuffersPool] = overlay.Sum(MetricNames.InUse, pool: MetricNames.Lz4BuffersPool),
                        [MetricNames.ArrowBatchesPool] = overlay.Sum(MetricNames.InUse, pool: MetricNames.ArrowBatchesPool),
                    },
                    ["retainedBytes"] = overlay.RetainedBytes(),
                    ["all"] = overlay.Snapshot(),
                    ["budget"] = overlay.BudgetSnapshot(),
                    ["peakInUseBytesByPool"] = overlay.Scopes.Count == 0 ? null : new Dictionary<string, long>
                    {
                        [MetricNames.Lz4BuffersPool] = overlay.Peak(MetricNames.InUse, pool: MetricNames.Lz4BuffersPool),
                        [MetricNames.ArrowBatchesPool] = overlay.Peak(MetricNames.InUse, pool: MetricNames.ArrowBatchesPool),
                    },
                },
                ["gc"] = new Dictionary<string, object?>
                {
                    ["server"] = GCSettings.IsServerGC,
                    ["latencyMode"] = GCSettings.LatencyMode.ToString(),
                    ["processors"] = Environment.ProcessorCount,
                    ["runtime"] = Environment.Version.ToString(),
                    ["runtimeName"] = RuntimeMeasures.Runtime,
                    ["cpuCacheBytes"] = RuntimeMeasures.LargestCpuCacheBytes(),
                },
                ["timeline"] = sampler.Samples.Select(s => new { t = s.T, gcHeapBytes = s.GcHeapBytes, workingSetBytes = s.WorkingSetBytes }),
            };

            Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(options.Output))!);
            await File.WriteAllTextAsync(options.Output, JsonSerializer.Serialize(result, new JsonSerializerOptions { WriteIndented = true })).ConfigureAwait(false);
            // Last: the dump analysis allocates a lot, and every number above is already taken.
#if !NETFRAMEWORK
            heapReport?.Write(heapBeforeOpen, heapAfterDispose);
#endif
            Console.WriteLine($"{options.Label}/{options.Scenario}: {run.Rows:N0} rows in {clock.Elapsed.TotalSeconds:F2} s, " +
                $"allocated {(allocated is long bytes ? $"{bytes / 1048576.0:F0} MB" : "unknown")}, full collections {collections[GC.MaxGeneration]} ({string.Join(", ", gen2ByReason.Select(r => r.Key + " " + r.Value))}), peak WS {Process.GetCurrentProcess().PeakWorkingSet64 / 1048576.0:F0} MB, " +
                $"heap after dispose {(heapAfterDispose - heapBeforeOpen) / 1048576.0:+0.00;-0.00} MB " +
                $"({(heapAfterDisposeDatabaseKept - heapBeforeOpen) / 1048576.0:+0.00;-0.00} MB with the database object kept)" +
                (run.Error != null ? $", FAILED: {run.Error}" : run.Errors.Count > 0 ? $", {run.Errors.Count} wrong values" : ", every checked value right"));
            return run.Error == null && run.Errors.Count == 0 ? 0 : 1;
        }

        /// <summary>
        /// Everything that touches the driver lives in this synchronous frame, so that after it returns no local
        /// keeps the database, connection or reader alive when the "after dispose" heap is measured (an async
        /// method's locals live in its state machine box, which the returned task is).
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static RunResult RunQuery(ProbeOptions options, long rows, bool disposeBatches, StrongBox<AdbcDatabase?> keepDatabase)
        {
            var verifier = new ResultVerifier(new DatasetSpec { Rows = rows, Seed = options.Seed }, options.SampleEvery) { DisposeBatches = disposeBatches };
            try
            {
                using AdbcDatabase database = ProbeDriver.Open(options);
                keepDatabase.Value = database; // disposed by the using, still referenced through the box
                using AdbcConnection connection = database.Connect(null);
                using AdbcStatement statement = connection.CreateStatement();
                // With --download-bps, --ttfb-ms or --link-bps the mock sends the files as that network would (the data is the same).
                statement.SqlQuery = ProbeOptions.Statement(rows, options.Seed, options.DownloadFaults);
                QueryResult result = statement.ExecuteQuery();
                using (result.Stream)
                {
                    verifier.ReadAllAsync(result.Stream!).GetAwaiter().GetResult();
                }

                return new RunResult(verifier.Rows, verifier.ValuesChecked, verifier.Errors, null, verifier.FirstBatchSeconds, verifier.LongestBatchWaitSeconds);
            }
            catch (Exception ex)
            {
                return new RunResult(verifier.Rows, verifier.ValuesChecked, verifier.Errors, $"{ex.GetType().Name}: {ex.Message}", verifier.FirstBatchSeconds, verifier.LongestBatchWaitSeconds);
            }
        }

        /// <summary>A blocking, compacting full collection (LOH included), then the heap size.</summary>
        internal static long CompactingCollect()
        {
            GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
            GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
            return GC.GetTotalMemory(forceFullCollection: false);
        }

        private static int[] Collections() => new[] { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };

        internal static string? PatchSeriesOf(Type driverType) => driverType.Assembly
            .GetCustomAttributes(typeof(System.Reflection.AssemblyMetadataAttribute), false)
            .OfType<System.Reflection.AssemblyMetadataAttribute>()
            .FirstOrDefault(a => a.Key.EndsWith("PatchSeries", StringComparison.Ordinal))?.Value;

        internal sealed record RunResult(long Rows, long ValuesChecked, List<string> Errors, string? Error, double FirstBatchSeconds, double LongestBatchWaitSeconds);
    }
}
