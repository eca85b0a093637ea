using System.Diagnostics;
using System.Threading;
using Microsoft.AspNetCore.Http;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Network
{
    /// <summary>
    /// Writes one response body a slice at a time, at most at its per-file rate and through its shared link (either may be
    /// absent), counting every slice Kestrel accepted into the transfer so the journal shows how far it got.
    /// </summary>
    public sealed class PacedBody(HttpResponse response, TransferProgress transfer, long? fileBytesPerSecond, SharedLink? link, CancellationToken aborted)
    {
        private const int ChunkBytes = 1024 * 1024;

        private bool Paced => fileBytesPerSecond != null || link != null;

        /// <summary>
        /// One slice: 1 MiB unpaced; a tenth of a second at the file's rate; about 10 ms of the link; the smaller of the two
        /// when both apply.
        /// </summary>
        private int SliceBytes => Math.Min(
            fileBytesPerSecond is long rate ? (int)Math.Clamp(rate / 10, 1, ChunkBytes) : ChunkBytes,
            link?.SliceBytes ?? ChunkBytes);

        /// <summary>
        /// Sends <paramref name="bytes"/>. The file's rate is kept from the start of this call: a slice sent late (a busy
        /// machine) is made up by the next ones, as the whole call keeps to the rate.
        /// </summary>
        public async Task WriteAsync(ReadOnlyMemory<byte> bytes)
        {
            int slice = SliceBytes;
            var clock = Stopwatch.StartNew();
            for (int offset = 0; offset < bytes.Length; offset += slice)
            {
                int count = Math.Min(slice, bytes.Length - offset);
                if (link?.Reserve(count) is TimeSpan turn && turn > TimeSpan.Zero)
                {
                    await Task.Delay(turn, aborted).ConfigureAwait(false);
                }

                if (fileBytesPerSecond is long rate)
                {
                    // A slice goes out when the file's rate has carried it, not before: so the last byte leaves at the
                    // file's due time and the response ends with it. Waiting after each slice instead held the connection
                    // a slice's time after the last byte, and the client's next request on that connection (a keep-alive
                    // reuse) reached the handler that much later than it was sent.
                    TimeSpan due = TimeSpan.FromSeconds((offset + count) / (double)rate);
                    if (due > clock.Elapsed)
                    {
                        await Task.Delay(due - clock.Elapsed, aborted).ConfigureAwait(false);
                    }
                }

                await response.Body.WriteAsync(bytes.Slice(offset, count), aborted).ConfigureAwait(false);
                if (Paced)
                {
                    // Out now, not when Kestrel's buffer fills: the pace is what the client sees.
                    await response.Body.FlushAsync(aborted).ConfigureAwait(false);
                }

                transfer.Add(count);
            }
        }
    }
}
