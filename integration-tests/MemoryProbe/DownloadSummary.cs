using MockDatabricks.Protocol.Admin;

namespace MemoryProbe
{
    /// <summary>
    /// What the mock's journal says about a workload's downloads, the same for every driver (stock publishes no meter): how
    /// many GETs, how many bytes sent, the network they went through, and the most in flight at once (a download is in
    /// flight from its request to the end of its body, its time to first byte included).
    /// </summary>
    internal static class DownloadSummary
    {
        public static Dictionary<string, object?> Of(IReadOnlyCollection<JournalEntry> downloads)
        {
            List<JournalTransfer> transfers = downloads.Select(d => d.Transfer).OfType<JournalTransfer>().ToList();
            JournalTransfer? any = transfers.FirstOrDefault();
            return new Dictionary<string, object?>
            {
                ["requests"] = downloads.Count,
                ["bytesSent"] = transfers.Sum(t => t.BytesSent),
                ["timeToFirstByteMs"] = any?.TimeToFirstByteMs,
                ["fileBytesPerSecond"] = any?.FileBytesPerSecond,
                ["linkBytesPerSecond"] = any?.LinkBytesPerSecond,
                ["peakInFlight"] = PeakInFlight(transfers),
            };
        }

        /// <summary>The most transfers between their request and their end at one moment (an end before a start at the same instant).</summary>
        private static int PeakInFlight(IEnumerable<JournalTransfer> transfers)
        {
            var edges = new List<(DateTimeOffset At, int Change)>();
            foreach (JournalTransfer transfer in transfers)
            {
                if (transfer.Requested is DateTimeOffset requested && transfer.Ended is DateTimeOffset ended)
                {
                    edges.Add((requested, +1));
                    edges.Add((ended, -1));
                }
            }

            int now = 0, peak = 0;
            foreach ((_, int change) in edges.OrderBy(e => e.At).ThenBy(e => e.Change))
            {
                now += change;
                peak = Math.Max(peak, now);
            }

            return peak;
        }
    }
}
