using MockDatabricks.Server.Query;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>A foreign key of a catalog table: its columns and the primary key columns they reference.</summary>
    public sealed record ForeignKey(string Name, IReadOnlyList<string> Columns, string RefCatalog, string RefSchema, string RefTable, IReadOnlyList<string> RefColumns);

    /// <summary>
    /// A table (or view) of the catalog: what the metadata answers report (its columns with their SQL types, kind, remarks,
    /// keys in key order) and, for reading it, its generated rows.
    /// </summary>
    public sealed record CatalogTable(string Catalog, string Schema, string Name, TableDefinition Data, long Rows)
    {
        /// <summary>TABLE or VIEW: the names a warehouse reports and the driver's type filter matches case-sensitively.</summary>
        public string Type { get; init; } = "TABLE";

        public string Remarks { get; init; } = string.Empty;

        public IReadOnlyList<string> PrimaryKey { get; init; } = Array.Empty<string>();

        /// <summary>The primary key constraint's name, as the fixture scripts' tables have it on a warehouse.</summary>
        public string PrimaryKeyName => Name + "_pk";

        public IReadOnlyList<ForeignKey> ForeignKeys { get; init; } = Array.Empty<ForeignKey>();

        public IReadOnlyList<SqlField> Fields => Data.Fields;

        public string FullName => $"{Catalog}.{Schema}.{Name}";
    }

    /// <summary>
    /// The mock warehouse's one catalog, the same for every session and protocol: the catalogs, schemas and tables that the
    /// Thrift catalog RPCs, the metadata SQL (SHOW ..., DESCRIBE) of either protocol and SELECT all read.
    /// hive_metastore (the session default) and main have "default" and "information_schema" (as a Unity Catalog
    /// workspace has); main.tpcds_sf100_delta.store_sales and samples.nyctaxi.trips are the sample tables
    /// (<see cref="SampleTables"/>); main.adbc_testing is upstream's read-only E2E fixture schema (<see cref="FixtureTables"/>:
    /// all_column_types with its primary and foreign key, fk_test_ref_table that the key references, cross_ref_customers
    /// and cross_ref_orders) with sample_types, the table of its Resources/Databricks.sql that its test configuration names.
    /// Identifiers are case-insensitive, as in Databricks.
    /// </summary>
    public static class MockCatalog
    {
        private const string FixtureCatalog = "main";
        private const string FixtureSchema = "adbc_testing";

        private static readonly IReadOnlyList<CatalogTable> s_tables = BuildTables();

        private static readonly IReadOnlyList<(string Catalog, string Schema)> s_schemas = new[]
        {
            ("hive_metastore", "default"),
            ("hive_metastore", "information_schema"),
            ("main", "adbc_testing"),
            ("main", "default"),
            ("main", "information_schema"),
            ("main", "tpcds_sf100_delta"),
            ("samples", "information_schema"),
            ("samples", "nyctaxi"),
        };

        /// <summary>Catalog names, sorted as SHOW CATALOGS sorts them.</summary>
        public static IReadOnlyList<string> Catalogs { get; } = s_schemas.Select(s => s.Catalog).Distinct().ToList();

        /// <summary>Every (catalog, schema), sorted.</summary>
        public static IReadOnlyList<(string Catalog, string Schema)> Schemas => s_schemas;

        /// <summary>Every table, sorted by catalog, schema and name.</summary>
        public static IReadOnlyList<CatalogTable> Tables => s_tables;

        /// <summary>The table a name resolves to from this session: name, schema.name or catalog.schema.name; null when none.</summary>
        public static CatalogTable? Resolve(IReadOnlyList<string> name, SessionContext session)
        {
            (string catalog, string schema, string table) = name.Count switch
            {
                1 => (session.Catalog, session.Schema, name[0]),
                2 => (session.Catalog, name[0], name[1]),
                _ => (name[^3], name[^2], name[^1]),
            };
            return Find(catalog, schema, table);
        }

        public static CatalogTable? Find(string catalog, string schema, string table) =>
            s_tables.FirstOrDefault(t => Same(t.Catalog, catalog) && Same(t.Schema, schema) && Same(t.Name, table));

        public static IEnumerable<CatalogTable> TablesOf(string catalog, string schema) => s_tables.Where(t => Same(t.Catalog, catalog) && Same(t.Schema, schema));

        public static bool CatalogExists(string catalog) => Catalogs.Any(c => Same(c, catalog));

        public static bool SchemaExists(string catalog, string schema) => s_schemas.Any(s => Same(s.Catalog, catalog) && Same(s.Schema, schema));

        public static bool Same(string a, string b) => a.Equals(b, StringComparison.OrdinalIgnoreCase);

        private static IReadOnlyList<CatalogTable> BuildTables()
        {
            var tables = new List<CatalogTable>();
            foreach ((string name, (TableDefinition table, long rows)) in SampleTables.All)
            {
                string[] parts = name.Split('.');
                tables.Add(new CatalogTable(parts[0], parts[1], parts[2], table, rows) { Remarks = "Sample data generated by the mock server" });
            }

            // The default schemas are not empty in a workspace: a metadata call over every catalog finds tables in both.
            (TableDefinition trips, long tripRows) = SampleTables.All["samples.nyctaxi.trips"];
            tables.Add(new CatalogTable("hive_metastore", "default", "trips", trips, tripRows) { Remarks = "A copy of samples.nyctaxi.trips" });
            tables.Add(new CatalogTable("main", "default", "trips_view", trips, tripRows) { Type = "VIEW", Remarks = "SELECT * FROM samples.nyctaxi.trips" });

            tables.Add(Fixture("all_column_types", FixtureTables.AllColumnTypes(), FixtureTables.AllColumnTypesRows) with
            {
                PrimaryKey = new[] { "c_string", "c_int" },
                ForeignKeys = new[] { FixtureKey("all_column_types", new[] { "c_bigint", "c_boolean" }, "fk_test_ref_table", new[] { "r_bigint", "r_boolean" }) },
            });
            tables.Add(Fixture("fk_test_ref_table", FixtureTables.Reference(), FixtureTables.ReferenceRows) with { PrimaryKey = new[] { "r_bigint", "r_boolean" } });
            tables.Add(Fixture("cross_ref_customers", FixtureTables.Customers(), FixtureTables.CustomerRows) with { PrimaryKey = new[] { "customer_id" } });
            tables.Add(Fixture("cross_ref_orders", FixtureTables.Orders(), FixtureTables.OrderRows) with
            {
                PrimaryKey = new[] { "order_id" },
                ForeignKeys = new[] { FixtureKey("cross_ref_orders", new[] { "customer_id" }, "cross_ref_customers", new[] { "customer_id" }) },
            });
            tables.Add(Fixture("sample_types", FixtureTables.SampleTypes(), FixtureTables.SampleTypesRows));
            return tables.OrderBy(t => t.Catalog, StringComparer.Ordinal).ThenBy(t => t.Schema, StringComparer.Ordinal).ThenBy(t => t.Name, StringComparer.Ordinal).ToList();
        }

        private static CatalogTable Fixture(string name, TableDefinition data, long rows) => new CatalogTable(FixtureCatalog, FixtureSchema, name, data, rows);

        /// <summary>A foreign key named as a warehouse names an unnamed one (upstream's GetColumnsExtended golden file: {table}_{referenced table}_fk).</summary>
        private static ForeignKey FixtureKey(string table, string[] columns, string refTable, string[] refColumns) =>
            new ForeignKey($"{table}_{refTable}_fk", columns, FixtureCatalog, FixtureSchema, refTable, refColumns);
    }
}
