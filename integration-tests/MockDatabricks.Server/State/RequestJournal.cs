using System.Threading;
using MockDatabricks.Protocol.Admin;

namespace MockDatabricks.Server.State
{
    /// <summary>
    /// In-memory request journal, bounded (oldest entries dropped), read and reset through /admin/journal. A download's
    /// transfer is kept live and copied into its entry when the journal is read, so a reader sees how far it has got.
    /// </summary>
    public sealed class RequestJournal
    {
        private const int Capacity = 200_000;
        private readonly object _lock = new object();
        private readonly LinkedList<(JournalEntry Entry, TransferProgress? Transfer)> _entries = new LinkedList<(JournalEntry, TransferProgress?)>();
        private long _seq;

        public void Add(string kind, string method, int status, string outcome, string? session = null, string? operation = null, string? tag = null,
            long? startRowOffset = null, long? maxRows = null, long? maxBytes = null, int? file = null, string? detail = null,
            TransferProgress? transfer = null)
        {
            var entry = new JournalEntry(Interlocked.Increment(ref _seq), DateTimeOffset.UtcNow, kind, method, session, operation, tag,
                startRowOffset, maxRows, maxBytes, file, status, outcome, detail);
            lock (_lock)
            {
                _entries.AddLast((entry, transfer));
                if (_entries.Count > Capacity)
                {
                    _entries.RemoveFirst();
                }
            }
        }

        public List<JournalEntry> Query(string? session, string? operation, string? tag, string? kind, long since)
        {
            lock (_lock)
            {
                return _entries
                    .Where(e =>
                        e.Entry.Seq > since &&
                        (session == null || e.Entry.Session == session) &&
                        (operation == null || e.Entry.Operation == operation) &&
                        (tag == null || e.Entry.Tag == tag) &&
                        (kind == null || e.Entry.Kind == kind))
                    .Select(e => e.Transfer == null ? e.Entry : e.Entry with { Transfer = e.Transfer.Snapshot() })
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
