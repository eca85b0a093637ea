using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace MockDatabricks.Server.State
{
    /// <summary>
    /// One request as the server saw it. kind: "rpc" (Thrift POST), "download" (CloudFetch GET) or "http" (rejected
    /// before dispatch, e.g. 401). status: the HTTP status sent. outcome: what the server did ("ok", "error-status",
    /// "exception", "http503", "truncated", "reset", "corrupt", "expired-link", "unauthorized", ...). transfer: for a
    /// download whose whole body is sent (ok, corrupt, slow, throttled), how much of it has been written so far.
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
        public TransferProgress? Transfer { get; init; }
    }

    /// <summary>In-memory request journal, bounded (oldest entries dropped), read and reset through /admin/journal.</summary>
    public sealed class RequestJournal
    {
        private const int Capacity = 200_000;
        private readonly object _lock = new object();
        private readonly LinkedList<JournalEntry> _entries = new LinkedList<JournalEntry>();
        private long _seq;

        public JournalEntry Add(string kind, string method, int status, string outcome, string? session = null, string? operation = null, string? tag = null,
            long? startRowOffset = null, long? maxRows = null, long? maxBytes = null, int? file = null, string? detail = null,
            TransferProgress? transfer = null)
        {
            var entry = new JournalEntry(Interlocked.Increment(ref _seq), DateTimeOffset.UtcNow, kind, method, session, operation, tag,
                startRowOffset, maxRows, maxBytes, file, status, outcome, detail)
            {
                Transfer = transfer,
            };
            lock (_lock)
            {
                _entries.AddLast(entry);
                if (_entries.Count > Capacity)
                {
                    _entries.RemoveFirst();
                }
            }

            return entry;
        }

        public List<JournalEntry> Query(string? session, string? operation, string? tag, string? kind, long since)
        {
            lock (_lock)
            {
                return _entries.Where(e =>
                        e.Seq > since &&
                        (session == null || e.Session == session) &&
                        (operation == null || e.Operation == operation) &&
                        (tag == null || e.Tag == tag) &&
                        (kind == null || e.Kind == kind))
                    .ToList();
            }
        }

        public void Clear()
        {
            lock (_lock)
            {
                _entries.Clear();
            }
        }
    }
}
