using System;

namespace MockDatabricks.Protocol.Admin
{
    /// <summary>
    /// One request as the server saw it, the same record on both sides of /admin/journal (the server writes it, the
    /// admin client reads it). kind: "rpc" (Thrift POST), "download" (CloudFetch GET) or "http" (rejected before
    /// dispatch, e.g. 401). status: the HTTP status sent. outcome: what the server did ("ok", "error-status",
    /// "exception", "http503", "truncated", "reset", "corrupt", "expired-link", "unauthorized", ...).
    /// </summary>
    public sealed record JournalEntry(
        long Seq,
        DateTimeOffset Time,
        string Kind,
        string Method,
        string? Session,
        string? Operation,
        string? Tag,
        long? StartRowOffset,
        long? MaxRows,
        long? MaxBytes,
        int? File,
        int Status,
        string Outcome,
        string? Detail)
    {
        /// <summary>For a download whose whole body is sent (ok, corrupt, slow, throttled, stalled): how much of it the server had written when the journal was read.</summary>
        public JournalTransfer? Transfer { get; init; }
    }

    /// <summary>
    /// A download's progress as the server wrote it: state "sending", "complete" or "aborted"; when the GET arrived
    /// (<see cref="Requested"/>), when its body's first byte was written (<see cref="Started"/>, after the time to first
    /// byte) and when the server stopped writing (<see cref="Ended"/>); and the network it went through, each null when
    /// the download had none: the time to first byte (a slow fault), the per-file rate (throttle) and the shared link's
    /// rate (link).
    /// </summary>
    public sealed record JournalTransfer(long BytesTotal, long BytesSent, string State, DateTimeOffset? Ended)
    {
        public DateTimeOffset? Requested { get; init; }

        public DateTimeOffset? Started { get; init; }

        public int? TimeToFirstByteMs { get; init; }

        public long? FileBytesPerSecond { get; init; }

        public long? LinkBytesPerSecond { get; init; }
    }
}
