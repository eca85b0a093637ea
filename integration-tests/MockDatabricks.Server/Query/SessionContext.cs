namespace MockDatabricks.Server.Query
{
    /// <summary>
    /// What a session carries between statements, whatever protocol opened it: the current catalog and schema (from the
    /// open request's namespace, then USE), and the session configuration (the open request's configuration, then SET
    /// key=value), which a bare SET lists.
    /// </summary>
    public sealed class SessionContext
    {
        /// <summary>The catalog a session starts in when the client names none, as in a workspace whose default is the legacy metastore.</summary>
        public const string DefaultCatalog = "hive_metastore";

        public const string DefaultSchema = "default";

        /// <summary>What current_user() answers.</summary>
        public const string User = "mock-user@example.com";

        private readonly object _lock = new object();
        private readonly SortedDictionary<string, string> _configuration = new SortedDictionary<string, string>(StringComparer.Ordinal);
        private string _catalog = DefaultCatalog;
        private string _schema = DefaultSchema;

        /// <param name="multipleCatalogs">canUseMultipleCatalogs: false confines the session to its catalog (the legacy metastore).</param>
        public SessionContext(string? catalog = null, string? schema = null, IEnumerable<KeyValuePair<string, string>>? configuration = null, bool multipleCatalogs = true)
        {
            MultipleCatalogs = multipleCatalogs;
            _catalog = string.IsNullOrEmpty(catalog) ? DefaultCatalog : catalog;
            _schema = string.IsNullOrEmpty(schema) ? DefaultSchema : schema;
            foreach (KeyValuePair<string, string> entry in configuration ?? Enumerable.Empty<KeyValuePair<string, string>>())
            {
                _configuration[entry.Key] = entry.Value;
            }
        }

        /// <summary>Whether the session sees every catalog (canUseMultipleCatalogs) or only its own.</summary>
        public bool MultipleCatalogs { get; }

        public string Catalog
        {
            get
            {
                lock (_lock)
                {
                    return _catalog;
                }
            }
        }

        public string Schema
        {
            get
            {
                lock (_lock)
                {
                    return _schema;
                }
            }
        }

        public void Use(string? catalog, string? schema)
        {
            lock (_lock)
            {
                if (catalog != null)
                {
                    _catalog = catalog;
                    _schema = schema ?? DefaultSchema;
                }
                else if (schema != null)
                {
                    _schema = schema;
                }
            }
        }

        public void Set(string key, string value)
        {
            lock (_lock)
            {
                _configuration[key] = value;
            }
        }

        public string? Get(string key)
        {
            lock (_lock)
            {
                return _configuration.TryGetValue(key, out string? value) ? value : null;
            }
        }

        /// <summary>Every key and value, sorted by key.</summary>
        public IReadOnlyList<KeyValuePair<string, string>> Configuration
        {
            get
            {
                lock (_lock)
                {
                    return _configuration.ToList();
                }
            }
        }
    }
}
