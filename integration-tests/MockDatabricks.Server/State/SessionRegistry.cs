using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;

namespace MockDatabricks.Server.State
{
    /// <summary>Open sessions and operations, keyed by the hex of their handle guid.</summary>
    public sealed class SessionRegistry
    {
        private readonly ConcurrentDictionary<string, bool> _sessions = new ConcurrentDictionary<string, bool>();
        private readonly ConcurrentDictionary<string, MockOperation> _operations = new ConcurrentDictionary<string, MockOperation>();

        public void OpenSession(string id) => _sessions[id] = true;

        public bool IsOpen(string id) => _sessions.ContainsKey(id);

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
