using System.Net.Sockets;
using System.Threading;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.Network;
using MockDatabricks.Server.ResultSets;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Endpoints
{
    /// <summary>
    /// GET /cloudfetch/{operation}/{file}?issue=N&amp;exp=MS: serves a stored file exactly as built (no auth, like a
    /// presigned URL). An expired link gets 403, as cloud storage answers; faults decide everything else, the network
    /// included (<see cref="DownloadFaults"/>: a time to first byte, a per-file rate, a shared link).
    /// </summary>
    public sealed class CloudFetchEndpoint(SessionRegistry sessions, RequestJournal journal, AdminFaultRegistry adminFaults, SharedLinks links)
    {
        public async Task HandleAsync(HttpContext context, string operationId, int fileIndex)
        {
            MockOperation? operation = sessions.FindOperation(operationId);
            if (operation?.Dataset == null || !operation.CloudFetch || fileIndex < 0 || fileIndex >= operation.Dataset.Layout.FileCount)
            {
                await RespondAsync(context, StatusCodes.Status404NotFound, "NoSuchKey: no such result file.", operation, operationId, fileIndex, "not-found").ConfigureAwait(false);
                return;
            }

            DateTimeOffset requested = DateTimeOffset.UtcNow;
            int attempt = operation.NextDownloadAttempt(fileIndex);
            if (long.TryParse(context.Request.Query["exp"], NumberStyles.Integer, CultureInfo.InvariantCulture, out long expiry)
                && expiry < DateTimeOffset.UtcNow.ToUnixTimeMilliseconds())
            {
                await RespondAsync(context, StatusCodes.Status403Forbidden, "AccessDenied: Request has expired.", operation, operationId, fileIndex, "expired-link", attempt).ConfigureAwait(false);
                return;
            }

            DownloadFaults faults = DownloadFaults.For(operation.Query.Faults, adminFaults, fileIndex, attempt, operation.Tag);
            FaultRule? fault = faults.Failure;
            CancellationToken aborted = context.RequestAborted;
            if (fault?.Kind == FaultKind.HttpStatus)
            {
                await WaitForFirstByteAsync(faults, aborted).ConfigureAwait(false);
                await RespondAsync(context, fault.StatusCode, $"Injected HTTP {fault.StatusCode}.", operation, operationId, fileIndex, "http" + fault.StatusCode, attempt).ConfigureAwait(false);
                return;
            }

            StoredFile file = await operation.Dataset.GetFileAsync(fileIndex).ConfigureAwait(false);
            byte[] bytes = fault?.Kind == FaultKind.CorruptLz4 ? file.Corrupted(fault.CorruptMode) : file.Bytes;
            context.Response.ContentType = "application/octet-stream";
            if (fault?.Kind is FaultKind.Truncate or FaultKind.Reset)
            {
                await WaitForFirstByteAsync(faults, aborted).ConfigureAwait(false);
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

            // A body sent whole is journaled as it is asked for: its transfer shows the time to first byte under way
            // (sending, nothing sent, not started), then every slice as it goes out.
            context.Response.ContentLength = bytes.Length;
            var network = new TransferNetwork(faults.Slow?.DelayMs, faults.Throttle?.BytesPerSecond, faults.Link?.BytesPerSecond);
            var transfer = new TransferProgress(bytes.Length, requested, network);
            Log(operation, operationId, fileIndex, StatusCodes.Status200OK, faults.WholeBodyOutcome, attempt, $"{bytes.Length} bytes", transfer);
            var body = new PacedBody(context.Response, transfer, network.FileBytesPerSecond, faults.Link == null ? null : links.For(faults.Link.BytesPerSecond), aborted);
            try
            {
                await WaitForFirstByteAsync(faults, aborted).ConfigureAwait(false);
                transfer.Start();
                if (fault?.Kind == FaultKind.Stall)
                {
                    await WriteStalledAsync(context, body, bytes, fault, aborted).ConfigureAwait(false);
                }
                else
                {
                    await body.WriteAsync(bytes).ConfigureAwait(false);
                }
            }
            finally
            {
                transfer.End();
            }
        }

        /// <summary>The time to first byte (a slow fault): nothing of the response, not even its status, before it.</summary>
        private static Task WaitForFirstByteAsync(DownloadFaults faults, CancellationToken aborted) =>
            faults.Slow == null ? Task.CompletedTask : Task.Delay(faults.Slow.DelayMs, aborted);

        /// <summary>
        /// The first fraction of the body, then nothing for the fault's delay, whatever the client does meanwhile (the
        /// wait ignores the request's abort, as a stalled network path would: the client cannot end it by going away),
        /// then the rest (which fails at once if the client is gone).
        /// </summary>
        private static async Task WriteStalledAsync(HttpContext context, PacedBody body, byte[] bytes, FaultRule fault, CancellationToken aborted)
        {
            int first = (int)(bytes.Length * fault.At);
            await body.WriteAsync(bytes.AsMemory(0, first)).ConfigureAwait(false);
            await context.Response.Body.FlushAsync(aborted).ConfigureAwait(false);
            await Task.Delay(fault.DelayMs, CancellationToken.None).ConfigureAwait(false);
            await body.WriteAsync(bytes.AsMemory(first)).ConfigureAwait(false);
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
