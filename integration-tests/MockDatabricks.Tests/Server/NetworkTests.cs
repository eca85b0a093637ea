namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// The network the mock puts between a client and its files: a time to first byte (slow), a per-file rate (throttle)
    /// and a link that every body sent through it shares (link), combined on one download, each in the journal per
    /// transfer. Asserted on what the journal records and on ordering; the one bound on time is the link's own rate, a
    /// ceiling a busy machine can only stay further under.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class NetworkTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 8_000, Seed = 41, RowsPerFile = 2_000 };

        // Four files of about 430 KB compressed each, large enough that a shared link takes a few seconds over them.
        private static readonly DatasetSpec s_fourFiles = new DatasetSpec { Rows = 40_000, Seed = 42, RowsPerFile = 10_000 };

        [Fact]
        public async Task EveryTransfer_RecordsTheNetworkItWentThrough()
        {
            QueryOutcome paced = await fixture.QueryAsync(s_spec,
                "mode=cloudfetch, faults='slow delay_ms=100 times=always; throttle bps=8000000 times=always; link bps=16000001 times=always'");
            QueryOutcome plain = await fixture.QueryAsync(s_spec, "mode=cloudfetch");

            Assert.Equal(s_spec.Rows, ResultVerifier.VerifyAllValues(paced.Batches, s_spec));
            // The server records a transfer's end after its last byte is written, which the client may have read first.
            List<JournalEntry> downloads = await WaitForAsync(() => fixture.Admin.JournalAsync(operation: paced.OperationId, kind: "download"),
                d => d.Count == 4 && d.All(e => TransferOf(e).State != "sending"));
            Assert.Equal(4, downloads.Count);
            foreach (JournalEntry download in downloads)
            {
                JournalTransfer transfer = TransferOf(download);
                long linkBytes = paced.Links.First(l => l.StartRowOffset == download.File * s_spec.RowsPerFile).BytesNum;
                Assert.Equal("throttled", download.Outcome);
                Assert.Equal(("complete", linkBytes, linkBytes), (transfer.State, transfer.BytesTotal, transfer.BytesSent));
                Assert.Equal((100, 8_000_000L, 16_000_001L), (transfer.TimeToFirstByteMs, transfer.FileBytesPerSecond, transfer.LinkBytesPerSecond));
                AssertInOrder(transfer);

                // Nothing of the response before the time to first byte (90: the clock's own granularity, not a tolerance of the wait).
                Assert.True(transfer.Started - transfer.Requested >= TimeSpan.FromMilliseconds(90),
                    $"file {download.File}: first byte {(transfer.Started - transfer.Requested)!.Value.TotalMilliseconds:F0} ms after the request");
            }

            foreach (JournalEntry download in await WaitForAsync(() => fixture.Admin.JournalAsync(operation: plain.OperationId, kind: "download"),
                d => d.All(e => TransferOf(e).State != "sending")))
            {
                JournalTransfer transfer = TransferOf(download);
                Assert.Equal("ok", download.Outcome);
                Assert.Equal((null, null, null), (transfer.TimeToFirstByteMs, transfer.FileBytesPerSecond, transfer.LinkBytesPerSecond));
                AssertInOrder(transfer);
            }
        }

        [Fact]
        public async Task TimeToFirstByte_HoldsTheResponseHeaders_WhileOtherFilesAreServed()
        {
            using MockDatabricksClient client = fixture.NewClient();
            (string tag, List<TSparkArrowResultLink> links) = await MockServerFixture.ExecuteTaggedAsync(client, s_spec, "ttfb", "slow files=0 delay_ms=600000");
            using var http = new HttpClient();
            using var leave = new CancellationTokenSource();

            Task<HttpResponseMessage> held = http.GetAsync(links[0].FileLink, HttpCompletionOption.ResponseHeadersRead, leave.Token);
            JournalTransfer waiting = TransferOf((await WaitForAsync(() => fixture.Admin.JournalAsync(tag: tag, kind: "download"), d => d.Count == 1))[0]);
            byte[] second = await client.DownloadAsync(links[1].FileLink);
            // The client can have every byte before the server has counted its last slice: wait for the count.
            List<JournalEntry> afterSecond = await WaitForAsync(() => fixture.Admin.JournalAsync(tag: tag, kind: "download"), d => d.Count == 2 && TransferOf(d[1]).State != "sending");
            bool headersArrived = held.IsCompleted;
            leave.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => held);
            JournalTransfer left = TransferOf((await WaitForAsync(() => fixture.Admin.JournalAsync(tag: tag, kind: "download"), d => TransferOf(d[0]).State != "sending"))[0]);

            // File 0 is journaled as it is asked for and waits for its first byte; file 1, asked for after it, is served
            // whole meanwhile, and file 0's headers have still not come.
            Assert.Equal(("sending", 0L, (DateTimeOffset?)null, (int?)600_000), (waiting.State, waiting.BytesSent, waiting.Started, waiting.TimeToFirstByteMs));
            Assert.Equal(links[1].BytesNum, second.Length);
            Assert.Equal(new[] { "0:sending:0", "1:complete:" + links[1].BytesNum },
                afterSecond.Select(d => $"{d.File}:{TransferOf(d).State}:{TransferOf(d).BytesSent}"));
            Assert.Null(TransferOf(afterSecond[0]).Started);
            Assert.False(headersArrived, "file 0's headers arrived before its time to first byte");
            // A client that leaves during the time to first byte ends the transfer with nothing sent.
            Assert.Equal(("aborted", 0L, (DateTimeOffset?)null), (left.State, left.BytesSent, left.Started));
        }

        [Fact]
        public async Task ALink_IsSharedFairly_AndNeverFasterThanItsRate()
        {
            const long LinkBytesPerSecond = 600_000;
            using MockDatabricksClient client = fixture.NewClient();
            (string tag, List<TSparkArrowResultLink> links) = await MockServerFixture.ExecuteTaggedAsync(client, s_fourFiles, "link", $"link bps={LinkBytesPerSecond} times=always");
            long total = links.Sum(l => l.BytesNum);
            Assert.Equal(4, links.Count);

            Task<byte[]>[] downloads = links.Select(l => client.DownloadAsync(l.FileLink)).ToArray();
            List<JournalTransfer> halfway = await WaitForAsync(() => TransfersAsync(tag), t => t.Count == 4 && t.Sum(x => x.BytesSent) >= total / 2);
            byte[][] files = await Task.WhenAll(downloads);
            List<JournalTransfer> done = await WaitForAsync(() => TransfersAsync(tag), t => t.All(x => x.State != "sending")); // ended after the last byte

            Assert.Equal(links.Select(l => l.BytesNum), files.Select(f => (long)f.Length));
            // Fair turns: when half the bytes are out, every body has had its share and none has been sent to its end
            // (first come, first served would have finished two and not begun the others).
            Assert.All(halfway, t => Assert.True(t.State == "sending" && t.BytesSent > 0, $"half way: {t}"));
            Assert.All(done, t => Assert.Equal(("complete", LinkBytesPerSecond), (t.State, t.LinkBytesPerSecond)));

            // Together at most the link's rate (plus the 50 ms a late sender may catch up and one slice each): bodies paced
            // one by one at that rate would have taken a quarter of the time.
            TimeSpan together = done.Max(t => t.Ended!.Value) - done.Min(t => t.Started!.Value);
            double bound = LinkBytesPerSecond * (together.TotalSeconds + 0.05) + 4 * 16 * 1024;
            Assert.True(total <= bound, $"{total} bytes in {together.TotalSeconds:F2} s through a link of {LinkBytesPerSecond} B/s");
        }

        [Fact]
        public async Task AdminPacingFaults_CombineWithTheStatementsOwn_OnEveryDownload()
        {
            string tag = "admin-net-" + Guid.NewGuid().ToString("N");
            await fixture.Admin.AddFaultAsync("slow delay_ms=20", persistent: true, tag: tag);
            await fixture.Admin.AddFaultAsync("link bps=50000001", persistent: true, tag: tag);
            try
            {
                QueryOutcome outcome = await fixture.QueryAsync(s_spec, $"mode=cloudfetch, tag={tag}, faults='throttle bps=20000000 times=always; http503 files=2'");

                Assert.Equal(s_spec.Rows, ResultVerifier.VerifyAllValues(outcome.Batches, s_spec));
                List<JournalEntry> downloads = await fixture.Admin.JournalAsync(tag: tag, kind: "download");
                Assert.Equal(new[] { "0:throttled", "1:throttled", "2:http503", "2:throttled", "3:throttled" },
                    downloads.Select(d => $"{d.File}:{d.Outcome}").OrderBy(d => d, StringComparer.Ordinal));
                Assert.All(downloads.Where(d => d.Transfer != null), d =>
                    Assert.Equal((20, 20_000_000L, 50_000_001L), (d.Transfer!.TimeToFirstByteMs, d.Transfer.FileBytesPerSecond, d.Transfer.LinkBytesPerSecond)));
            }
            finally
            {
                await fixture.Admin.ClearFaultsAsync();
            }
        }

        private static JournalTransfer TransferOf(JournalEntry download) =>
            download.Transfer ?? throw new Xunit.Sdk.XunitException($"file {download.File} ({download.Outcome}): no transfer");

        private static void AssertInOrder(JournalTransfer transfer)
        {
            Assert.NotNull(transfer.Requested);
            Assert.True(transfer.Requested <= transfer.Started && transfer.Started <= transfer.Ended,
                $"requested {transfer.Requested:O}, started {transfer.Started:O}, ended {transfer.Ended:O}");
        }

        private async Task<List<JournalTransfer>> TransfersAsync(string tag) =>
            (await fixture.Admin.JournalAsync(tag: tag, kind: "download")).Select(TransferOf).ToList();

        private static async Task<T> WaitForAsync<T>(Func<Task<T>> read, Func<T, bool> condition)
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (true)
            {
                T value = await read();
                if (condition(value))
                {
                    return value;
                }

                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60), $"still waiting: {value}");
                await Task.Delay(10);
            }
        }
    }
}
