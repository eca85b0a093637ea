namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// The journal's transfer of a download: how much of the body the server has written, live, and whether it was sent
    /// whole or the client went away first. The memory probe's partial-read scenario reads it to count what a driver
    /// still downloaded after its reader was disposed.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class TransferProgressTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 8_000, Seed = 23, RowsPerFile = 2_000 };

        // One file of about 0.9 MB compressed, sent at 200 KB/s: several seconds, so the client can leave mid-body.
        private static readonly DatasetSpec s_bigFile = new DatasetSpec { Rows = 20_000, Seed = 24, RowsPerFile = 20_000 };

        [Fact]
        public async Task EveryBodySentWhole_IsComplete_WithItsSize()
        {
            QueryOutcome outcome = await fixture.QueryAsync(s_spec, "mode=cloudfetch, faults='http500 files=1'");

            List<JournalEntry> downloads = await fixture.Admin.JournalAsync(operation: outcome.OperationId, kind: "download");
            Assert.Equal(new[] { "ok", "http500", "ok", "ok", "ok" }, downloads.Select(d => d.Outcome));
            foreach (JournalEntry download in downloads.Where(d => d.Outcome == "ok"))
            {
                JournalTransfer transfer = download.Transfer ?? throw new Xunit.Sdk.XunitException($"file {download.File}: no transfer");
                long linkBytes = outcome.Links.First(l => l.StartRowOffset == download.File * s_spec.RowsPerFile).BytesNum;
                Assert.Equal(("complete", linkBytes, linkBytes), (transfer.State, transfer.BytesTotal, transfer.BytesSent));
                Assert.NotNull(transfer.Ended);
                Assert.True(transfer.Ended >= download.Time, $"file {download.File} ended {transfer.Ended:O}, started {download.Time:O}");
            }

            // An injected status sends no body, so there is no transfer to follow.
            Assert.Null(downloads.Single(d => d.Outcome == "http500").Transfer);
        }

        [Fact]
        public async Task AClientThatLeavesMidBody_IsSeenSendingThenAborted()
        {
            using MockDatabricksClient client = fixture.NewClient();
            (string tag, List<TSparkArrowResultLink> links) = await MockServerFixture.ExecuteTaggedAsync(client, s_bigFile, "transfer", "throttle bps=200000");
            TSparkArrowResultLink link = Assert.Single(links);

            using var leave = new CancellationTokenSource();
            Task<byte[]> download = client.DownloadAsync(link.FileLink, leave.Token);
            JournalTransfer sending = await WaitForTransferAsync(tag, t => t.BytesSent > 0);
            leave.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => download);
            JournalTransfer aborted = await WaitForTransferAsync(tag, t => t.State != "sending");

            Assert.Equal(("sending", link.BytesNum, (DateTimeOffset?)null), (sending.State, sending.BytesTotal, sending.Ended));
            Assert.Equal("aborted", aborted.State);
            Assert.InRange(aborted.BytesSent, sending.BytesSent, link.BytesNum - 1);
            Assert.NotNull(aborted.Ended);
        }

        private async Task<JournalTransfer> WaitForTransferAsync(string tag, Func<JournalTransfer, bool> condition)
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (true)
            {
                // Empty until the server has the request: the client's GET is under way.
                List<JournalEntry> downloads = await fixture.Admin.JournalAsync(tag: tag, kind: "download");
                Assert.True(downloads.Count <= 1, $"{downloads.Count} downloads of one link");
                JournalTransfer? transfer = downloads.Count == 0 ? null : downloads[0].Transfer ?? throw new Xunit.Sdk.XunitException("the download has no transfer");
                if (transfer != null && condition(transfer))
                {
                    return transfer;
                }

                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"transfer stuck at {transfer?.ToString() ?? "no request"}");
                await Task.Delay(20);
            }
        }
    }
}
