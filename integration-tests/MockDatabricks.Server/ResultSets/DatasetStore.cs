using System.Collections.Concurrent;
using System.Threading;

namespace MockDatabricks.Server.ResultSets
{
    /// <summary>
    /// All data sets served so far, keyed by data spec + encoding, so repeated queries reuse stored bytes.
    /// Keeps total stored bytes under the cache budget by dropping least recently used files.
    /// </summary>
    public sealed class DatasetStore
    {
        private readonly ConcurrentDictionary<string, StoredDataset> _datasets = new ConcurrentDictionary<string, StoredDataset>();
        private readonly long _budgetBytes;
        private readonly object _evictionLock = new object();
        private long _storedBytes;

        public DatasetStore(long budgetBytes)
        {
            _budgetBytes = budgetBytes;
        }

        public long StoredBytes => Interlocked.Read(ref _storedBytes);

        public StoredDataset Get(DatasetSpec spec, bool lz4, FileFraming framing, ResultTypes types)
        {
            types = Relevant(spec, types);
            string key = Key(spec, lz4, framing, types);
            return _datasets.GetOrAdd(key, k => new StoredDataset(k, spec, lz4, framing, types, this));
        }

        /// <summary>A result made for one statement (literals, SET, metadata answers): same serving code, not kept in the cache.</summary>
        public static StoredDataset Uncached(DatasetSpec spec, bool lz4, FileFraming framing, ResultTypes types)
        {
            types = Relevant(spec, types);
            return new StoredDataset(Key(spec, lz4, framing, types), spec, lz4, framing, types, store: null);
        }

        private static string Key(DatasetSpec spec, bool lz4, FileFraming framing, ResultTypes types) =>
            $"{spec.Key};lz4={(lz4 ? framing.ToString() : "off")};types={types}";

        /// <summary>
        /// The client's complexTypesAsArrow and intervalTypesAsArrow change nothing for a data set without such columns: one
        /// cache entry serves both (so a prepared mock.* data set is the one a client asking for native complex types reads).
        /// </summary>
        private static ResultTypes Relevant(DatasetSpec spec, ResultTypes types) => types with
        {
            ComplexTypesAsArrow = types.ComplexTypesAsArrow && spec.Table != null && spec.Table.Fields.Any(f => f.Type.IsComplex),
            IntervalTypesAsArrow = types.IntervalTypesAsArrow && spec.Table != null && spec.Table.Fields.Any(f => f.Type.IsInterval),
        };

        public IReadOnlyCollection<StoredDataset> All => _datasets.Values.ToList();

        public void Clear()
        {
            _datasets.Clear();
            Interlocked.Exchange(ref _storedBytes, 0);
        }

        internal void OnFileBuilt(long bytes)
        {
            if (Interlocked.Add(ref _storedBytes, bytes) > _budgetBytes)
            {
                EvictLeastRecentlyUsed();
            }
        }

        private void EvictLeastRecentlyUsed()
        {
            lock (_evictionLock)
            {
                var candidates = _datasets.Values
                    .SelectMany(d => d.BuiltFiles().Select(f => (Dataset: d, f.Index, f.LastAccess, f.Bytes)))
                    .OrderBy(f => f.LastAccess)
                    .ToList();
                foreach (var candidate in candidates)
                {
                    if (Interlocked.Read(ref _storedBytes) <= _budgetBytes * 3 / 4)
                    {
                        break;
                    }

                    Interlocked.Add(ref _storedBytes, -candidate.Dataset.Evict(candidate.Index));
                }
            }
        }
    }
}
