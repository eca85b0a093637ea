using System;
using System.Collections.Generic;
using System.Linq;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>A column as the catalog declares it: the SQL type text a warehouse shows (DESCRIBE, SHOW COLUMNS).</summary>
    public sealed record CatalogColumn(string Name, string SqlType, bool Nullable = true, string? Comment = null);

    /// <summary>FOREIGN KEY (Columns) REFERENCES RefCatalog.RefSchema.RefTable (RefColumns), named Name.</summary>
    public sealed record CatalogForeignKey(string Name, IReadOnlyList<string> Columns, string RefCatalog, string RefSchema, string RefTable, IReadOnlyList<string> RefColumns);

    /// <summary>A table (or view) of the mock's catalog. Key columns are listed in key order.</summary>
    public sealed record CatalogTable(string Catalog, string Schema, string Name, IReadOnlyList<CatalogColumn> Columns)
    {
        /// <summary>TABLE or VIEW: the names a warehouse reports and the driver's type filter matches case-sensitively.</summary>
        public string TableType { get; init; } = "TABLE";

        public string? Comment { get; init; }

        public string? PrimaryKeyName { get; init; }

        public IReadOnlyList<string> PrimaryKey { get; init; } = Array.Empty<string>();

        public IReadOnlyList<CatalogForeignKey> ForeignKeys { get; init; } = Array.Empty<CatalogForeignKey>();
    }

    /// <summary>
    /// The catalogs, schemas and tables the mock answers metadata for, protocol-neutral: the REST path answers SHOW
    /// CATALOGS / SCHEMAS / TABLES / COLUMNS / KEYS / FOREIGN KEYS and DESCRIBE TABLE EXTENDED ... AS JSON from it
    /// (<see cref="MetadataStatements"/>), and the Thrift catalog RPCs can list the same objects. It holds names and
    /// types only; rows come from the data set generator, never from here.
    /// <para>
    /// Contents: upstream's read-only E2E fixture schema <c>main.adbc_testing</c> (<c>all_column_types</c> exactly as
    /// upstream's <c>create_table_all_types.sql</c> declares it, <c>fk_test_ref_table</c> as its
    /// <c>create_reference_table.sql</c> does, and <c>cross_ref_customers</c> / <c>cross_ref_orders</c>, whose columns
    /// upstream does not publish: the mock's are invented, keyed as upstream's tools use them), plus <c>main.default</c>
    /// and <c>hive_metastore.default</c> (empty, as in a fresh workspace). Other tables are added with
    /// <see cref="With"/>.
    /// </para>
    /// </summary>
    public sealed class MockCatalog
    {
        /// <summary>What current_catalog() answers when a session names none (a Unity Catalog workspace's default).</summary>
        public const string DefaultCatalog = "main";

        public const string DefaultSchema = "default";

        private readonly List<(string Catalog, string Schema)> _schemas;
        private readonly List<CatalogTable> _tables;

        public MockCatalog(IEnumerable<(string Catalog, string Schema)> schemas, IEnumerable<CatalogTable> tables)
        {
            _tables = tables.ToList();
            _schemas = schemas.Concat(_tables.Select(t => (t.Catalog, t.Schema)))
                .Distinct()
                .OrderBy(s => s.Item1, StringComparer.Ordinal)
                .ThenBy(s => s.Item2, StringComparer.Ordinal)
                .ToList();
        }

        public static MockCatalog Default { get; } = new MockCatalog(
            new[] { ("main", "default"), ("hive_metastore", "default") },
            FixtureTables());

        /// <summary>Catalog names, sorted as SHOW CATALOGS sorts them.</summary>
        public IReadOnlyList<string> Catalogs => _schemas.Select(s => s.Catalog).Distinct().ToList();

        public IReadOnlyList<(string Catalog, string Schema)> Schemas => _schemas;

        public IReadOnlyList<CatalogTable> Tables => _tables;

        /// <summary>This catalog plus <paramref name="tables"/> (e.g. sample tables backed by generated data sets).</summary>
        public MockCatalog With(IEnumerable<CatalogTable> tables) => new MockCatalog(_schemas, _tables.Concat(tables));

        public bool HasCatalog(string catalog) => _schemas.Any(s => Same(s.Catalog, catalog));

        public bool HasSchema(string catalog, string schema) => _schemas.Any(s => Same(s.Catalog, catalog) && Same(s.Schema, schema));

        /// <summary>Identifiers are case-insensitive, as in Databricks.</summary>
        public CatalogTable? FindTable(string catalog, string schema, string table) =>
            _tables.FirstOrDefault(t => Same(t.Catalog, catalog) && Same(t.Schema, schema) && Same(t.Name, table));

        public IEnumerable<CatalogTable> TablesOf(string catalog, string schema) =>
            _tables.Where(t => Same(t.Catalog, catalog) && Same(t.Schema, schema)).OrderBy(t => t.Name, StringComparer.Ordinal);

        private static bool Same(string a, string b) => string.Equals(a, b, StringComparison.OrdinalIgnoreCase);

        private static IEnumerable<CatalogTable> FixtureTables()
        {
            const string Catalog = "main";
            const string Schema = "adbc_testing";
            yield return new CatalogTable(Catalog, Schema, "all_column_types", new[]
            {
                new CatalogColumn("c_tinyint", "TINYINT"),
                new CatalogColumn("c_smallint", "SMALLINT"),
                new CatalogColumn("c_int", "INT", Nullable: false),
                new CatalogColumn("c_bigint", "BIGINT"),
                new CatalogColumn("c_decimal", "DECIMAL(10,2)"),
                new CatalogColumn("c_float", "FLOAT"),
                new CatalogColumn("c_double", "DOUBLE"),
                new CatalogColumn("c_string", "STRING", Nullable: false),
                new CatalogColumn("c_binary", "BINARY"),
                new CatalogColumn("c_boolean", "BOOLEAN"),
                new CatalogColumn("c_date", "DATE"),
                new CatalogColumn("c_timestamp", "TIMESTAMP"),
                new CatalogColumn("c_timestamp_ntz", "TIMESTAMP_NTZ"),
                new CatalogColumn("c_interval_ym", "INTERVAL YEAR TO MONTH"),
                new CatalogColumn("c_interval_ds", "INTERVAL DAY TO SECOND"),
                new CatalogColumn("c_array", "ARRAY<INT>"),
                new CatalogColumn("c_map", "MAP<STRING, INT>"),
                new CatalogColumn("c_struct", "STRUCT<f1: STRING, f2: INT, f3: ARRAY<DOUBLE>>"),
                new CatalogColumn("c_variant", "VARIANT"),
                new CatalogColumn("c_void", "VOID"),
            })
            {
                PrimaryKeyName = "all_column_types_pk",
                PrimaryKey = new[] { "c_string", "c_int" },
                ForeignKeys = new[]
                {
                    new CatalogForeignKey("all_column_types_fk", new[] { "c_bigint", "c_boolean" }, Catalog, Schema, "fk_test_ref_table", new[] { "r_bigint", "r_boolean" }),
                },
            };
            yield return new CatalogTable(Catalog, Schema, "fk_test_ref_table", new[]
            {
                new CatalogColumn("r_bigint", "BIGINT", Nullable: false),
                new CatalogColumn("r_boolean", "BOOLEAN", Nullable: false),
                new CatalogColumn("r_decimal", "DECIMAL(10,2)"),
            })
            {
                PrimaryKeyName = "fk_test_ref_table_pk",
                PrimaryKey = new[] { "r_bigint", "r_boolean" },
            };
            yield return new CatalogTable(Catalog, Schema, "cross_ref_customers", new[]
            {
                new CatalogColumn("customer_id", "BIGINT", Nullable: false),
                new CatalogColumn("customer_name", "STRING"),
                new CatalogColumn("email", "STRING"),
                new CatalogColumn("created_at", "TIMESTAMP"),
            })
            {
                PrimaryKeyName = "cross_ref_customers_pk",
                PrimaryKey = new[] { "customer_id" },
            };
            yield return new CatalogTable(Catalog, Schema, "cross_ref_orders", new[]
            {
                new CatalogColumn("order_id", "BIGINT", Nullable: false),
                new CatalogColumn("customer_id", "BIGINT"),
                new CatalogColumn("order_date", "DATE"),
                new CatalogColumn("amount", "DECIMAL(10,2)"),
            })
            {
                PrimaryKeyName = "cross_ref_orders_pk",
                PrimaryKey = new[] { "order_id" },
                ForeignKeys = new[]
                {
                    new CatalogForeignKey("cross_ref_orders_customer_fk", new[] { "customer_id" }, Catalog, Schema, "cross_ref_customers", new[] { "customer_id" }),
                },
            };
        }
    }
}
