using System;
using System.Globalization;
using System.Linq;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.ResultSets;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>
    /// GET /cloudfetch/{operation}/{file}?issue=N&amp;exp=MS: serves a stored file exactly as built (no auth, like a
    /// presigned URL). An expired link gets 403, as cloud storage answers; faults decide everything else.
    /// </summary>
    public sealed class CloudFetchEndpoint(SessionRegistry sessions, RequestJournal journal, AdminFaultRegistry adminFaults)
    {
        private const int ChunkBytes = 1024 * 1024;

        public async Task HandleAsync(HttpContext context, string operationId, int fileIndex)
        {
            MockOperation? operation = sessions.FindOperation(operationId);
            if (operation?.Dataset == null || !operation.CloudFetch || fileIndex < 0 || fileIndex >= operation.Dataset.Layout.FileCount)
            {
                await RespondAsync(context, StatusCodes.Status404NotFound, "NoSuchKey: no such result file.", operation, operationId, fileIndex, "not-found").ConfigureAwait(false);
                return;
            }

            int attempt = operation.NextDownloadAttempt(fileIndex);
            if (long.TryParse(context.Request.Query["exp"], NumberStyles.Integer, CultureInfo.InvariantCulture, out long expiry)
                && expiry < DateTimeOffset.UtcNow.ToUnixTimeMilliseconds())
            {
                await RespondAsync(context, StatusCodes.Status403Forbidden, "AccessDenied: Request has expired.", operation, operationId, fileIndex, "expired-link", attempt).ConfigureAwait(false);
                return;
            }

            FaultRule? fault = operation.Query.Faults.FirstOrDefault(f => f.IsDownloadFault && f.Kind != FaultKind.Expired && f.AppliesToFile(fileIndex) && attempt <= f.Times)
                ?? adminFaults.TakeDownloadFault(fileIndex, operation.Tag);
            if (fault?.Kind == FaultKind.Expired)
            {
                fault = null; // admin "expired" faults act when links are issued, not here
            }

            if (fault?.Kind == FaultKind.HttpStatus)
            {
                await RespondAsync(context, fault.StatusCode, $"Injected HTTP {fault.StatusCode}.", operation, operationId, fileIndex, "http" + fault.StatusCode, attempt).ConfigureAwait(false);
                return;
            }

            StoredFile file = await operation.Dataset.GetFileAsync(fileIndex).ConfigureAwait(false);
            byte[] bytes = fault?.Kind == FaultKind.CorruptLz4 ? file.Corrupted(fault.CorruptMode) : file.Bytes;
            CancellationToken aborted = context.RequestAborted;
            if (fault?.Kind == FaultKind.Slow)
            {
                await Task.Delay(fault.DelayMs, aborted).ConfigureAwait(false);
            }

            context.Response.ContentType = "application/octet-stream";
            string outcome = fault?.Kind switch
            {
                FaultKind.CorruptLz4 => "corrupt",
                FaultKind.Slow => "slow",
                FaultKind.Throttle => "throttled",
                FaultKind.Stall => "stalled",
                _ => "ok",
            };

            if (fault?.Kind is FaultKind.Truncate or FaultKind.Reset)
            {
                int sent = (int)(bytes.Length * fault.At);
                bool truncate = fault.Kind == FaultKind.Truncate;

                // Journal first: the client may see the failure before this handler returns.
                Log(operation, operationId, fileIndex, StatusCodes.Status200OK, truncate ? "truncated" : "reset", attempt, $"sent {sent} of {bytes.Length} bytes");
                if (truncate)
                {
                    // The full Content-Length, fewer bytes, and a normal return: Kestrel sends every byte written, sees the
                    // body short of its length and closes the connection with a FIN (no keep-alive after a short body).
                    // Aborting instead would drop what still sits in Kestrel's output pipe and reset the connection.
                    context.Response.ContentLength = bytes.Length;
                    await context.Response.Body.WriteAsync(bytes.AsMemory(0, sent), aborted).ConfigureAwait(false);
                    return;
                }

                await context.Response.Body.WriteAsync(bytes.AsMemory(0, sent), aborted).ConfigureAwait(false);
                await context.Response.Body.FlushAsync(aborted).ConfigureAwait(false);
                if (context.Features.Get<IConnectionSocketFeature>()?.Socket is Socket socket)
                {
                    // Linger 0 turns the close into a TCP RST: "connection reset by peer" on the client, possibly before
                    // all of the first fraction arrived (a reset discards what is still in flight).
                    socket.LingerState = new LingerOption(true, 0);
                }

                context.Abort();
                return;
            }

            context.Response.ContentLength = bytes.Length;
            var transfer = new TransferProgress(bytes.Length);
            Log(operation, operationId, fileIndex, StatusCodes.Status200OK, outcome, attempt, $"{bytes.Length} bytes", transfer);
            try
            {
                if (fault?.Kind == FaultKind.Throttle)
                {
                    await WriteThrottledAsync(context, bytes, fault.BytesPerSecond, transfer, aborted).ConfigureAwait(false);
                }
                else if (fault?.Kind == FaultKind.Stall)
                {
                    await WriteStalledAsync(context, bytes, fault, transfer, aborted).ConfigureAwait(false);
                }
                else
                {
                    await WriteInChunksAsync(context, bytes, transfer, aborted).ConfigureAwait(false);
                }
            }
            finally
            {
                transfer.End();
            }
        }

        /// <summary>The whole body, a chunk at a time, so the journal's transfer shows how far it got.</summary>
        private static async Task WriteInChunksAsync(HttpContext context, ReadOnlyMemory<byte> bytes, TransferProgress transfer, CancellationToken aborted)
        {
            for (int offset = 0; offset < bytes.Length; offset += ChunkBytes)
            {
                int count = Math.Min(ChunkBytes, bytes.Length - offset);
                await context.Response.Body.WriteAsync(bytes.Slice(offset, count), aborted).ConfigureAwait(false);
                transfer.Add(count);
            }
        }

        /// <summary>
        /// The first fraction of the body, then nothing for the fault's delay, whatever the client does meanwhile (the
        /// wait ignores the request's abort, as a stalled network path would: the client cannot end it by going away),
        /// then the rest (which fails at once if the client is gone).
        /// </summary>
        private static async Task WriteStalledAsync(HttpContext context, byte[] bytes, FaultRule fault, TransferProgress transfer, CancellationToken aborted)
        {
            int first = (int)(bytes.Length * fault.At);
            await context.Response.Body.WriteAsync(bytes.AsMemory(0, first), aborted).ConfigureAwait(false);
            await context.Response.Body.FlushAsync(aborted).ConfigureAwait(false);
            transfer.Add(first);
            await Task.Delay(fault.DelayMs, CancellationToken.None).ConfigureAwait(false);
            await WriteInChunksAsync(context, bytes.AsMemory(first), transfer, aborted).ConfigureAwait(false);
        }

        private static async Task WriteThrottledAsync(HttpContext context, byte[] bytes, long bytesPerSecond, TransferProgress transfer, CancellationToken aborted)
        {
            // 10 slices per second keep the rate smooth without a timer per byte.
            int slice = (int)Math.Clamp(bytesPerSecond / 10, 1, ChunkBytes);
            var clock = System.Diagnostics.Stopwatch.StartNew();
            for (int offset = 0; offset < bytes.Length; offset += slice)
            {
                int count = Math.Min(slice, bytes.Length - offset);
                await context.Response.Body.WriteAsync(bytes.AsMemory(offset, count), aborted).ConfigureAwait(false);
                await context.Response.Body.FlushAsync(aborted).ConfigureAwait(false);
                transfer.Add(count);
                long due = (long)((offset + count) * 1000.0 / bytesPerSecond);
                long wait = due - clock.ElapsedMilliseconds;
                if (wait > 0)
                {
                    await Task.Delay((int)wait, aborted).ConfigureAwait(false);
                }
            }
        }

        private async Task RespondAsync(HttpContext context, int status, string message, MockOperation? operation, string operationId, int file, string outcome, int? attempt = null)
        {
            Log(operation, operationId, file, status, outcome, attempt, message);
            context.Response.StatusCode = status;
            context.Response.ContentType = "text/plain";
            await context.Response.WriteAsync(message, context.RequestAborted).ConfigureAwait(false);
        }

        private void Log(MockOperation? operation, string operationId, int file, int status, string outcome, int? attempt, string detail, TransferProgress? transfer = null) =>
            journal.Add("download", "GET", status, outcome, operation?.Session, operationId, operation?.Tag, file: file,
                detail: attempt is int a ? $"attempt {a}: {detail}" : detail, transfer: transfer);
    }
}
