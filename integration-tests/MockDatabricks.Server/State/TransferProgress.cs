using System;
using System.Threading;
using MockDatabricks.Protocol.Admin;

namespace MockDatabricks.Server.State
{
    /// <summary>
    /// How much of one CloudFetch body the server has written so far, and whether and when it stopped: the journal
    /// shows it live, so a client's measurement can tell what was sent after a given moment (a reader disposed
    /// mid-result must not keep downloads going). Bytes count as sent once Kestrel accepted them; what still sits in
    /// its output pipe or the socket buffers (a few hundred KB on loopback) is included.
    /// </summary>
    public sealed class TransferProgress
    {
        private long _bytesSent;
        private int _ended;

        public TransferProgress(long bytesTotal)
        {
            BytesTotal = bytesTotal;
        }

        public long BytesTotal { get; }

        public long BytesSent => Interlocked.Read(ref _bytesSent);

        /// <summary>"sending", then "complete" (every byte written) or "aborted" (the client went away first).</summary>
        public string State { get; private set; } = "sending";

        /// <summary>When the server stopped writing (null while sending).</summary>
        public DateTimeOffset? Ended { get; private set; }

        /// <summary>This transfer as the journal shows it now.</summary>
        public JournalTransfer Snapshot() => new JournalTransfer(BytesTotal, BytesSent, State, Ended);

        public void Add(long bytes) => Interlocked.Add(ref _bytesSent, bytes);

        /// <summary>Marks the end of the transfer, once: complete when every byte was written.</summary>
        public void End()
        {
            if (Interlocked.Exchange(ref _ended, 1) == 0)
            {
                State = BytesSent == BytesTotal ? "complete" : "aborted";
                Ended = DateTimeOffset.UtcNow;
            }
        }
    }
}
