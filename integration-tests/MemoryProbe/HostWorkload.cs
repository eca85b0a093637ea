using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace MemoryProbe
{
    /// <summary>
    /// What a Power BI host does besides one full read (issue 16), one workload per probe process: a partial read
    /// (<see cref="PartialReadWorkload"/>), queries at once on one database or several (<see cref="ConcurrentWorkload"/>),
    /// queries one after another on a database kept open, then idle (<see cref="SequentialWorkload"/>). The frame is the
    /// full read's: warm-up queries (<c>--warmup-queries</c>), collections before the baseline, the memory sampler, and a
    /// compacting collection after everything is disposed; each workload adds its own facts under its name.
    /// </summary>
    internal static class HostWorkload
    {
        public const string FullRead = "full-read";
        public const string PartialRead = "partial-read";
        public const string Concurrent = "concurrent";
        public const string Sequential = "sequential";

        /// <summary>Queries cycle over this many data sets (seeds S..S+3), so a batch showing another query's rows is a wrong value.</summary>
        public const int DistinctDatasets = 4;

        private static readonly string[] s_names = { FullRead, PartialRead, Concurrent, Sequential };

        public static string CheckName(string name) => Array.IndexOf(s_names, name) >= 0
            ? name
            : throw new ArgumentException($"unknown workload '{name}' (known: {string.Join(", ", s_names)})");

        public static int SeedOf(ProbeOptions options, int query) => options.Seed + query % DistinctDatasets;

        public static async Task<int> RunAsync(ProbeOptions options)
        {
            IHostWorkload workload = options.Workload switch
            {
                PartialRead => new PartialReadWorkload(options),
                Concurrent => new ConcurrentWorkload(options),
                _ => new SequentialWorkload(options),
            };
            if (options.PrintStatement)
            {
                // One line per data set the workload reads: scripts/verify prepares each before the timed runs.
                foreach (string statement in workload.Statements.Distinct())
                {
                    Console.WriteLine(statement);
                }

                return 0;
            }

            for (int warmup = 0; options.WarmupRows > 0 && warmup < options.WarmupQueries; warmup++)
            {
                if (Program.RunQuery(options, options.WarmupRows, disposeBatches: true, new StrongBox<AdbcDatabase?>()).Error is string warmupError)
                {
                    Console.Error.WriteLine($"memory probe: warm-up query failed: {warmupError}");
                    return 1;
                }
            }

            using var overlay = new OverlayMetricsListener();
            using var sampler = new MemorySampler(TimeSpan.FromMilliseconds(50), overlay.RecordObservableInstruments);

            // An aggressive collection first: it gives the warm-up's free regions back to the OS, which a normal one keeps
            // committed for reuse (measured: 360 MB of them after 80 warm-up queries), so "before open" is what the
            // process needs, and what the scenario adds is not hidden in (or taken from) the warm-up's leftovers.
            RuntimeMeasures.AggressiveCollect();
            long heapBeforeOpen = Program.CompactingCollect();
            long workingSetBeforeOpen = RuntimeMeasures.WorkingSet();
            long? allocatedBefore = RuntimeMeasures.TotalAllocatedBytes();
            int gen2Before = GC.CollectionCount(2);
            int fullBefore = RuntimeMeasures.FullCollections();

            sampler.Start();
            var clock = Stopwatch.StartNew();
            WorkloadRun run;
            try
            {
                run = await workload.RunAsync(overlay).ConfigureAwait(false);
            }
            catch (Exception ex)
            {
                // Opening a database is the only driver call outside a query's own error handling.
                run = new WorkloadRun(0, 0, new List<string> { $"{ex.GetType().Name}: {ex.Message}" }, new Dictionary<string, object?>(), "failed");
            }

            clock.Stop();
            sampler.Stop();
            long? allocated = RuntimeMeasures.TotalAllocatedBytes() - allocatedBefore;
            int gen2 = GC.CollectionCount(2) - gen2Before;
            int fullCollections = RuntimeMeasures.FullCollections() - fullBefore;

            // Before the compacting collection: compacting moves live objects and touches pages, which can raise the
            // working set beyond anything the driver did (seen: +60 MB after a partial read).
            long peakWorkingSet = run.PeakWorkingSetBytes ?? Process.GetCurrentProcess().PeakWorkingSet64;
            long heapAfterDispose = Program.CompactingCollect();

            bool verified = run.Errors.Count == 0 && run.Rows == workload.ExpectedRows;
            var result = new Dictionary<string, object?>
            {
                ["driver"] = options.Label,
                ["scenario"] = options.Scenario,
                ["workload"] = options.Workload,
                ["driverAssembly"] = ProbeDriver.DriverType.Assembly.Location,
                ["patchSeries"] = Program.PatchSeriesOf(ProbeDriver.DriverType),
                ["properties"] = options.Properties,
                ["rowsPerQuery"] = options.Rows,
                ["rows"] = run.Rows,
                ["expectedRows"] = workload.ExpectedRows,
                ["rowsVerified"] = verified,
                ["valueErrors"] = run.Errors.Count,
                ["valuesChecked"] = run.ValuesChecked,
                ["sampleEvery"] = options.SampleEvery,
                ["warmupQueries"] = options.WarmupQueries,
                ["errors"] = run.Errors,
                ["wallSeconds"] = clock.Elapsed.TotalSeconds,
                ["allocatedBytes"] = allocated,
                ["gen2Collections"] = gen2,
                ["fullCollections"] = fullCollections,
                ["runtime"] = RuntimeMeasures.Runtime,
                ["cpuCacheBytes"] = RuntimeMeasures.LargestCpuCacheBytes(),
                ["workingSetBeforeOpenBytes"] = workingSetBeforeOpen,
                ["peakWorkingSetBytes"] = peakWorkingSet,
                ["peakWorkingSetAboveBeforeOpenBytes"] = peakWorkingSet - workingSetBeforeOpen,
                ["peakGcHeapBytes"] = sampler.PeakGcHeapBytes,
                ["gcHeapBeforeOpenBytes"] = heapBeforeOpen,
                ["gcHeapAfterDisposeBytes"] = heapAfterDispose,
                ["gcHeapAfterDisposeDeltaBytes"] = heapAfterDispose - heapBeforeOpen,
                ["overlayMetrics"] = overlay.Scopes.Count == 0 ? null : new Dictionary<string, object?>
                {
                    ["scopes"] = overlay.Scopes.Count,
                    ["inUseBytes"] = overlay.InUseBytes(),
                    ["retainedBytes"] = overlay.RetainedBytes(),
                    ["all"] = overlay.Snapshot(),
                    ["budget"] = overlay.BudgetSnapshot(),
                    // Per instrument, the most it reached: a pipeline's files in flight, waiting, its window, when the meter publishes them.
                    ["peaks"] = overlay.PeaksSnapshot(),
                },
                [options.Workload] = run.Details,
                ["timeline"] = sampler.Samples.Select(s => new { t = s.T, gcHeapBytes = s.GcHeapBytes, workingSetBytes = s.WorkingSetBytes }),
            };

            Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(options.Output))!);
            await File.WriteAllTextAsync(options.Output, JsonSerializer.Serialize(result, new JsonSerializerOptions { WriteIndented = true })).ConfigureAwait(false);
            Console.WriteLine($"{options.Label}/{options.Scenario}: {run.Rows:N0} rows in {clock.Elapsed.TotalSeconds:F2} s, " +
                $"peak WS {peakWorkingSet / 1048576.0:F0} MB ({(peakWorkingSet - workingSetBeforeOpen) / 1048576.0:+0;-0} MB over before open), " +
                $"heap after dispose {(heapAfterDispose - heapBeforeOpen) / 1048576.0:+0.00;-0.00} MB, {run.Summary}" +
                (verified ? ", every checked value right" : $", FAILED: {string.Join("; ", run.Errors.Take(3))}"));
            return verified ? 0 : 1;
        }
    }

    /// <summary>One workload of <see cref="HostWorkload"/>.</summary>
    internal interface IHostWorkload
    {
        /// <summary>The statement of each data set the workload reads, without per-run options (tags, faults).</summary>
        IEnumerable<string> Statements { get; }

        /// <summary>Rows the workload reads when everything is right.</summary>
        long ExpectedRows { get; }

        /// <summary>Opens, reads and disposes everything; no driver object may stay reachable once it returns.</summary>
        Task<WorkloadRun> RunAsync(OverlayMetricsListener overlay);
    }

    /// <summary>
    /// What a workload read and saw: its rows and errors, its own facts (JSON, under the workload's name), a console summary,
    /// and the process's peak working set when the workload had to force a collection of its own before returning (the
    /// peak is then taken before it).
    /// </summary>
    internal sealed record WorkloadRun(long Rows, long ValuesChecked, List<string> Errors, Dictionary<string, object?> Details, string Summary)
    {
        public long? PeakWorkingSetBytes { get; init; }
    }
}
