using System.Threading;
using MockDatabricks.Protocol.Admin;

namespace MockDatabricks.Server.State
{
    /// <summary>
    /// One CloudFetch body as the server sends it: the network it was sent through (time to first byte, per-file rate,
    /// shared link), when it was asked for, when its first byte went out, how much the server has written so far, and
    /// whether and when it stopped. The journal shows it live, so a client's measurement can tell what was sent after a
    /// given moment (a reader disposed mid-result must not keep downloads going) and how the network paced it. Bytes count
    /// as sent once Kestrel accepted them; what still sits in its output pipe or the socket buffers (a few hundred KB on
    /// loopback) is included.
    /// </summary>
    public sealed class TransferProgress(long bytesTotal, DateTimeOffset requested, TransferNetwork network)
    {
        private long _bytesSent;
        private int _ended;

        public long BytesTotal => bytesTotal;

        public long BytesSent => Interlocked.Read(ref _bytesSent);

        /// <summary>"sending", then "complete" (every byte written) or "aborted" (the client went away first).</summary>
        public string State { get; private set; } = "sending";

        /// <summary>When the body's first byte was written, after the time to first byte (null before).</summary>
        public DateTimeOffset? Started { get; private set; }

        /// <summary>When the server stopped writing (null while sending).</summary>
        public DateTimeOffset? Ended { get; private set; }

        /// <summary>This transfer as the journal shows it now.</summary>
        public JournalTransfer Snapshot() => new JournalTransfer(BytesTotal, BytesSent, State, Ended)
        {
            Requested = requested,
            Started = Started,
            TimeToFirstByteMs = network.TimeToFirstByteMs,
            FileBytesPerSecond = network.FileBytesPerSecond,
            LinkBytesPerSecond = network.LinkBytesPerSecond,
        };

        /// <summary>Marks the moment the body starts: call right before its first byte is written.</summary>
        public void Start() => Started = DateTimeOffset.UtcNow;

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

    /// <summary>The network a body was sent through: null where the download had no such fault.</summary>
    public sealed record TransferNetwork(int? TimeToFirstByteMs, long? FileBytesPerSecond, long? LinkBytesPerSecond);
}
