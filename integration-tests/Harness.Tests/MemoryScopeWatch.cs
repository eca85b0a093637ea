using MetricNames = Apache.Arrow.Adbc.Drivers.Databricks.DatabricksMemoryMetricNames;

namespace Harness.Tests
{
    /// <summary>
    /// The patched driver's meter, narrowed to the memory scope of one database. The scope is identified as the one
    /// that appeared while the database was opened (tests run one at a time, see AssemblyInfo), so sums from other
    /// databases never mix in. Every fact asserted here is published by the driver itself (no reflection).
    /// </summary>
    public sealed class MemoryScopeWatch : IDisposable
    {
        public const string Rented = MetricNames.Rented;
        public const string Allocated = MetricNames.Allocated;
        public const string LiveScopes = MetricNames.LiveScopes;
        public const string BufferPool = MetricNames.Lz4BuffersPool;

        private readonly OverlayMetricsListener _meter = new OverlayMetricsListener();

        public int ScopeId { get; private set; }

        /// <summary>A watch for the patched driver; null for the stock driver, which has no scope to watch.</summary>
        public static MemoryScopeWatch? ForDriverUnderTest() => DriverUnderTest.IsPatched ? new MemoryScopeWatch() : null;

        /// <summary>Opens a database, through the watch where there is one (see <see cref="ForDriverUnderTest"/>).</summary>
        public static AdbcDatabase Open(MemoryScopeWatch? watch, Func<AdbcDatabase> open) => watch != null ? watch.Open(open) : open();

        /// <summary>Opens a database and finds its scope: exactly one new scope id must appear.</summary>
        public AdbcDatabase Open(Func<AdbcDatabase> open)
        {
            var before = new HashSet<int>(_meter.Scopes);
            AdbcDatabase database = open();
            int[] created = _meter.Scopes.Where(s => !before.Contains(s)).ToArray();
            Assert.True(created.Length == 1, $"expected one new memory scope for the database, saw {created.Length}");
            ScopeId = created[0];
            return database;
        }

        /// <summary>Scope ids that published anything since <paramref name="known"/> was taken.</summary>
        public IReadOnlyCollection<int> ScopesSince(IReadOnlyCollection<int> known) => _meter.Scopes.Where(s => !known.Contains(s)).ToArray();

        public IReadOnlyCollection<int> AllScopes => _meter.Scopes;

        public long InUse => _meter.InUseBytes(ScopeId);

        public long Retained => _meter.RetainedBytes(ScopeId);

        public long RetainedIn(string pool) => _meter.Sum(MetricNames.Retained, ScopeId, pool);

        public long Sum(string instrument, string? pool = null) => _meter.Sum(instrument, ScopeId, pool);

        /// <summary>1 while the scope is alive (created +1), 0 once released (-1).</summary>
        public long Live => _meter.Sum(LiveScopes, ScopeId);

        public string Describe() =>
            $"scope {ScopeId}: in_use {InUse}, retained {Retained} (lz4_buffers {RetainedIn(BufferPool)}), " +
            $"rented {Sum(Rented)}, allocated {Sum(Allocated)}, live {Live}";

        /// <summary>
        /// The scope is released and holds nothing: zero bytes in use (every reader gave its buffers back), zero
        /// retained (both pools dropped their free arrays and blocks) and no longer counted as live. Waits (bounded)
        /// because a reader disposed while downloads were in flight returns its buffers when those tasks finish.
        /// </summary>
        public void AssertReleasedAndEmpty()
        {
            Bounded.WaitUntil(() => InUse == 0 && Retained == 0 && Live == 0, TimeSpan.FromSeconds(30));
            Assert.True(InUse == 0, "bytes still in use after dispose: " + Describe());
            Assert.True(Retained == 0, "pool bytes still retained after dispose: " + Describe());
            Assert.True(Live == 0, "scope not released after dispose: " + Describe());
        }

        public void Dispose() => _meter.Dispose();
    }
}
