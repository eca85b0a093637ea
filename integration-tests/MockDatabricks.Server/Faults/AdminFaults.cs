namespace MockDatabricks.Server.Faults
{
    /// <summary>An admin-installed fault: applies to every operation (optionally those with a tag) until its uses run out.</summary>
    public sealed class AdminFault
    {
        public required long Id { get; init; }

        public required FaultRule Rule { get; init; }

        public string? Tag { get; init; }

        public bool Persistent { get; init; }

        /// <summary>For one-shot faults: how many more hits (starts at 1).</summary>
        public int RemainingUses { get; set; } = 1;

        public object ToJson() => new { id = Id, fault = Rule.Text, tag = Tag, persistent = Persistent, remainingUses = Persistent ? (int?)null : RemainingUses };
    }

    /// <summary>Faults set through /admin/faults. One-shot faults are consumed by the first request they hit.</summary>
    public sealed class AdminFaultRegistry
    {
        private readonly object _lock = new object();
        private readonly List<AdminFault> _faults = new List<AdminFault>();
        private long _nextId;

        public AdminFault Add(FaultRule rule, bool persistent, string? tag)
        {
            lock (_lock)
            {
                var fault = new AdminFault { Id = ++_nextId, Rule = rule, Persistent = persistent, Tag = tag };
                _faults.Add(fault);
                return fault;
            }
        }

        public void Clear()
        {
            lock (_lock)
            {
                _faults.Clear();
            }
        }

        public List<AdminFault> Snapshot()
        {
            lock (_lock)
            {
                return _faults.ToList();
            }
        }

        /// <summary>Takes (and, for one-shot faults, consumes) the first admin download fault of this kind matching this file.</summary>
        public FaultRule? TakeDownloadFault(int file, string? tag, FaultKind kind) => TakeDownloadFault(file, tag, rule => rule.Kind == kind);

        /// <summary>Takes (and, for one-shot faults, consumes) the first admin download fault matching this file that <paramref name="which"/> accepts.</summary>
        public FaultRule? TakeDownloadFault(int file, string? tag, System.Func<FaultRule, bool> which) =>
            Take(f => f.Rule.IsDownloadFault && which(f.Rule) && f.Rule.AppliesToFile(file) && (f.Tag == null || f.Tag == tag));

        /// <summary>Takes (and, for one-shot faults, consumes) the first admin RPC fault matching this method.</summary>
        public FaultRule? TakeRpcFault(string method, string? tag) =>
            Take(f => !f.Rule.IsDownloadFault && f.Rule.AppliesToMethod(method) && (f.Tag == null || f.Tag == tag));

        private FaultRule? Take(System.Func<AdminFault, bool> predicate)
        {
            lock (_lock)
            {
                AdminFault? fault = _faults.FirstOrDefault(predicate);
                if (fault == null)
                {
                    return null;
                }

                if (!fault.Persistent && --fault.RemainingUses <= 0)
                {
                    _faults.Remove(fault);
                }

                return fault.Rule;
            }
        }
    }
}
