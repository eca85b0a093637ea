using System.Collections.Concurrent;
using MockDatabricks.Server.Query;

namespace MockDatabricks.Server.State
{
    /// <summary>Open sessions and operations, keyed by the hex of their handle guid.</summary>
    public sealed class SessionRegistry
    {
        private readonly ConcurrentDictionary<string, SessionContext> _sessions = new ConcurrentDictionary<string, SessionContext>();
        private readonly ConcurrentDictionary<string, MockOperation> _operations = new ConcurrentDictionary<string, MockOperation>();

        /// <summary>Opens a session; its context (current catalog and schema, configuration) is what its statements run with.</summary>
        public void OpenSession(string id, SessionContext? context = null) => _sessions[id] = context ?? new SessionContext();

        public bool IsOpen(string id) => _sessions.ContainsKey(id);

        /// <summary>The open session's context, or null.</summary>
        public SessionContext? Context(string id) => _sessions.TryGetValue(id, out SessionContext? context) ? context : null;

        public bool CloseSession(string id) => _sessions.TryRemove(id, out _);

        public void AddOperation(MockOperation operation) => _operations[operation.Id] = operation;

        public MockOperation? FindOperation(string id) => _operations.TryGetValue(id, out MockOperation? operation) ? operation : null;

        public IReadOnlyList<MockOperation> Operations => _operations.Values.OrderBy(o => o.Created).ToList();

        public int SessionCount => _sessions.Count;

        public void Clear()
        {
            _sessions.Clear();
            _operations.Clear();
        }
    }
}
