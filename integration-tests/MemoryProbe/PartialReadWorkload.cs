using System.Diagnostics;
using System.Runtime.CompilerServices;
using MockDatabricks.Protocol.Admin;
using MockDatabricks.Protocol.Data;
using MockDatabricks.Testing;

namespace MemoryProbe
{
    /// <summary>
    /// A preview, a TOP N folded late, a cancelled refresh: the application reads the first batch of the result, keeps
    /// the reader <c>--hold-ms</c> (the pipeline prefetches meanwhile, as it would while a host renders the rows), then
    /// disposes the reader, the statement, the connection and the database. The mock sends each file at
    /// <c>--download-bps</c>, as a real network would, so downloads are in flight when the reader is disposed. What the
    /// driver does after its Dispose returned comes from the mock's journal (each download's transfer, live), read right
    /// when the reader's Dispose returned and again <see cref="Settle"/> later: downloads started and bytes sent between.
    /// </summary>
    internal sealed class PartialReadWorkload(ProbeOptions options) : IHostWorkload
    {
        /// <summary>How long after the dispose the journal is watched for downloads the driver still makes.</summary>
        private static readonly TimeSpan Settle = TimeSpan.FromSeconds(2);

        public IEnumerable<string> Statements => new[] { ProbeOptions.Statement(options.Rows, options.Seed) };

        /// <summary>The first batch; its size is the mock's batch size (or the whole result when smaller).</summary>
        public long ExpectedRows => Math.Min(options.Rows, new DatasetSpec().RowsPerBatch);

        public async Task<WorkloadRun> RunAsync(OverlayMetricsListener overlay)
        {
            string tag = "probe-partial-" + Guid.NewGuid().ToString("N");
            using var admin = new AdminClient(options.MockUrl, options.TrustedCertificate);
            Disposal disposal = ReadFirstBatchThenDispose(tag, admin, overlay);

            // Right after the dispose returned, before anything the driver left running had time to finish; the peak
            // first, because the compacting collection raises the working set itself.
            long peakWorkingSet;
            using (var process = Process.GetCurrentProcess())
            {
                peakWorkingSet = process.PeakWorkingSet64;
            }

            long heapRightAfterDispose = Program.CompactingCollect();
            await Task.Delay(Settle).ConfigureAwait(false);
            List<JournalEntry> after = await WaitUntilNoTransferIsSendingAsync(admin, tag).ConfigureAwait(false);

            var before = disposal.DownloadsAtDispose.ToDictionary(e => e.Seq);
            // What the driver does after its Dispose returned, against the journal read right then (not the one read
            // before the call: a request sent just before the stop may reach the mock a few milliseconds after it began).
            var returned = disposal.DownloadsWhenDisposeReturned.ToDictionary(e => e.Seq);
            List<JournalEntry> started = after.Where(e => !returned.ContainsKey(e.Seq)).ToList();
            long sentAfter = after.Sum(e => SentBytes(e) - (returned.TryGetValue(e.Seq, out JournalEntry? r) ? SentBytes(r) : 0));
            var details = new Dictionary<string, object?>
            {
                ["holdMilliseconds"] = options.HoldMilliseconds,
                ["downloadBytesPerSecond"] = options.DownloadBytesPerSecond,
                ["settleSeconds"] = Settle.TotalSeconds,
                ["disposeSeconds"] = disposal.Seconds,
                ["readerDisposeSeconds"] = disposal.ReaderSeconds,
                ["downloadsBeforeDispose"] = before.Count,
                ["transfersSendingAtDispose"] = before.Values.Count(e => e.Transfer?.State == "sending"),
                ["bytesSentBeforeDispose"] = before.Values.Sum(SentBytes),
                ["downloadsStartedAfterDispose"] = started.Count,
                ["bytesSentAfterDispose"] = sentAfter,
                ["transfersStillSendingAtTheEnd"] = after.Count(e => e.Transfer?.State == "sending"),
                ["transfersCompletedAfterDispose"] = after.Count(e => e.Transfer?.State == "complete" && returned.TryGetValue(e.Seq, out JournalEntry? r) && r.Transfer?.State == "sending"),
                ["poolBytesInUseRightAfterDispose"] = overlay.Scopes.Count == 0 ? null : disposal.PoolInUseRightAfterDispose,
                ["gcHeapRightAfterDisposeBytes"] = heapRightAfterDispose,
                ["downloads"] = after.Select(e => new { seq = e.Seq, file = e.File, outcome = e.Outcome, startedAfterDispose = !returned.ContainsKey(e.Seq), transfer = e.Transfer }),
            };
            string summary = $"first batch then dispose in {disposal.Seconds * 1000:F0} ms; {before.Values.Count(e => e.Transfer?.State == "sending")} transfer(s) in flight at dispose, " +
                $"{started.Count} download(s) started and {sentAfter / 1048576.0:F1} MB sent after it";
            return new WorkloadRun(disposal.Query.Rows, disposal.Query.ValuesChecked, disposal.Query.Errors, details, summary) { PeakWorkingSetBytes = peakWorkingSet };
        }

        private static long SentBytes(JournalEntry entry) => entry.Transfer?.BytesSent ?? 0;

        /// <summary>Everything that touches the driver, in a synchronous frame (see Program.RunQuery for why).</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private Disposal ReadFirstBatchThenDispose(string tag, AdminClient admin, OverlayMetricsListener overlay)
        {
            var verifier = new Harness.Support.ResultVerifier(new DatasetSpec { Rows = options.Rows, Seed = options.Seed }, options.SampleEvery) { StopAfterBatches = 1 };
            var errors = new List<string>();
            AdbcDatabase database = ProbeDriver.Open(options);
            AdbcConnection connection = database.Connect(null);
            AdbcStatement statement = connection.CreateStatement();
            string network = options.DownloadFaults is string faults ? ", " + faults : "";
            statement.SqlQuery = ProbeOptions.Statement(options.Rows, options.Seed, $"tag={tag}{network}");
            IDisposable? reader = null;
            try
            {
                QueryResult result = statement.ExecuteQuery();
                reader = result.Stream;
                verifier.ReadAllAsync(result.Stream!).GetAwaiter().GetResult();
            }
            catch (Exception ex)
            {
                errors.Add($"{ex.GetType().Name}: {ex.Message}");
            }

            Thread.Sleep(options.HoldMilliseconds);
            List<JournalEntry> atDispose = admin.JournalAsync(tag: tag, kind: "download").GetAwaiter().GetResult();
            var clock = Stopwatch.StartNew();
            reader?.Dispose();
            double readerSeconds = clock.Elapsed.TotalSeconds;
            List<JournalEntry> whenReturned = admin.JournalAsync(tag: tag, kind: "download").GetAwaiter().GetResult();
            statement.Dispose();
            connection.Dispose();
            database.Dispose();
            double seconds = clock.Elapsed.TotalSeconds;
            long inUse = overlay.InUseBytes();

            errors.AddRange(verifier.Errors);
            if (verifier.Batches != 1)
            {
                errors.Add($"read {verifier.Batches} batches, expected the first one");
            }

            return new Disposal(new WorkloadQuery(options.Seed, verifier.Rows, verifier.ValuesChecked, errors, 0), atDispose, whenReturned, seconds, readerSeconds, inUse);
        }

        /// <summary>The journal once no download of the query is being sent any more (bounded: 60 s).</summary>
        private static async Task<List<JournalEntry>> WaitUntilNoTransferIsSendingAsync(AdminClient admin, string tag)
        {
            var clock = Stopwatch.StartNew();
            while (true)
            {
                List<JournalEntry> entries = await admin.JournalAsync(tag: tag, kind: "download").ConfigureAwait(false);
                if (entries.All(e => e.Transfer?.State != "sending") || clock.Elapsed > TimeSpan.FromSeconds(60))
                {
                    return entries;
                }

                await Task.Delay(50).ConfigureAwait(false);
            }
        }

        private sealed record Disposal(WorkloadQuery Query, List<JournalEntry> DownloadsAtDispose, List<JournalEntry> DownloadsWhenDisposeReturned, double Seconds, double ReaderSeconds, long PoolInUseRightAfterDispose);
    }
}
