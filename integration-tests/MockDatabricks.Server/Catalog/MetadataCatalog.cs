using System;
using System.Collections.Generic;
using System.Linq;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>A column as the catalog declares it: the SQL type text a warehouse shows (DESCRIBE, SHOW COLUMNS).</summary>
    public sealed record ColumnMetadata(string Name, string SqlType, bool Nullable = true, string? Comment = null);

    /// <summary>FOREIGN KEY (Columns) REFERENCES RefCatalog.RefSchema.RefTable (RefColumns), named Name.</summary>
    public sealed record ForeignKeyMetadata(string Name, IReadOnlyList<string> Columns, string RefCatalog, string RefSchema, string RefTable, IReadOnlyList<string> RefColumns);

    /// <summary>A table (or view) of the mock's catalog. Key columns are listed in key order.</summary>
    public sealed record TableMetadata(string Catalog, string Schema, string Name, IReadOnlyList<ColumnMetadata> Columns)
    {
        /// <summary>TABLE or VIEW: the names a warehouse reports and the driver's type filter matches case-sensitively.</summary>
        public string TableType { get; init; } = "TABLE";

        public string? Comment { get; init; }

        public string? PrimaryKeyName { get; init; }

        public IReadOnlyList<string> PrimaryKey { get; init; } = Array.Empty<string>();

        public IReadOnlyList<ForeignKeyMetadata> ForeignKeys { get; init; } = Array.Empty<ForeignKeyMetadata>();
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
    /// upstream does not publish: the mock's are invented, keyed as upstream's tools use them), plus the schemas
    /// <c>default</c> and <c>information_schema</c> of <c>main</c> and <c>hive_metastore</c> (empty here, as a Unity
    /// Catalog workspace has them; upstream's tests set them as session schemas). Other tables are added with
    /// <see cref="With"/>.
    /// </para>
    /// <para>
    /// Types are SQL text because a description needs no value representation: VARIANT and VOID columns are described
    /// exactly as upstream declares them. A catalog whose tables also carry generated rows can feed this one: one
    /// <see cref="TableMetadata"/> per table, each column's SQL type text, key columns in key order.
    /// </para>
    /// </summary>
    public sealed class MetadataCatalog
    {
        /// <summary>
        /// What current_catalog() answers when a session names none: hive_metastore, the default of the workspace upstream's
        /// E2E suite runs against (DatabricksConnectionTest.SetDefaultCatalogAndSchemaOptionsTest expects it).
        /// </summary>
        public const string DefaultCatalog = "hive_metastore";

        public const string DefaultSchema = "default";

        private readonly List<(string Catalog, string Schema)> _schemas;
        private readonly List<TableMetadata> _tables;

        public MetadataCatalog(IEnumerable<(string Catalog, string Schema)> schemas, IEnumerable<TableMetadata> tables)
        {
            _tables = tables.ToList();
            _schemas = schemas.Concat(_tables.Select(t => (t.Catalog, t.Schema)))
                .Distinct()
                .OrderBy(s => s.Item1, StringComparer.Ordinal)
                .ThenBy(s => s.Item2, StringComparer.Ordinal)
                .ToList();
        }

        public static MetadataCatalog Default { get; } = new MetadataCatalog(
            new[] { ("main", "default"), ("main", "information_schema"), ("hive_metastore", "default"), ("hive_metastore", "information_schema") },
            FixtureTables());

        /// <summary>Catalog names, sorted as SHOW CATALOGS sorts them.</summary>
        public IReadOnlyList<string> Catalogs => _schemas.Select(s => s.Catalog).Distinct().ToList();

        public IReadOnlyList<(string Catalog, string Schema)> Schemas => _schemas;

        public IReadOnlyList<TableMetadata> Tables => _tables;

        /// <summary>This catalog plus <paramref name="tables"/> (e.g. sample tables backed by generated data sets).</summary>
        public MetadataCatalog With(IEnumerable<TableMetadata> tables) => new MetadataCatalog(_schemas, _tables.Concat(tables));

        public bool HasCatalog(string catalog) => _schemas.Any(s => Same(s.Catalog, catalog));

        public bool HasSchema(string catalog, string schema) => _schemas.Any(s => Same(s.Catalog, catalog) && Same(s.Schema, schema));

        /// <summary>Identifiers are case-insensitive, as in Databricks.</summary>
        public TableMetadata? FindTable(string catalog, string schema, string table) =>
            _tables.FirstOrDefault(t => Same(t.Catalog, catalog) && Same(t.Schema, schema) && Same(t.Name, table));

        public IEnumerable<TableMetadata> TablesOf(string catalog, string schema) =>
            _tables.Where(t => Same(t.Catalog, catalog) && Same(t.Schema, schema)).OrderBy(t => t.Name, StringComparer.Ordinal);

        private static bool Same(string a, string b) => string.Equals(a, b, StringComparison.OrdinalIgnoreCase);

        private static IEnumerable<TableMetadata> FixtureTables()
        {
            const string Catalog = "main";
            const string Schema = "adbc_testing";
            yield return new TableMetadata(Catalog, Schema, "all_column_types", new[]
            {
                new ColumnMetadata("c_tinyint", "TINYINT"),
                new ColumnMetadata("c_smallint", "SMALLINT"),
                new ColumnMetadata("c_int", "INT", Nullable: false),
                new ColumnMetadata("c_bigint", "BIGINT"),
                new ColumnMetadata("c_decimal", "DECIMAL(10,2)"),
                new ColumnMetadata("c_float", "FLOAT"),
                new ColumnMetadata("c_double", "DOUBLE"),
                new ColumnMetadata("c_string", "STRING", Nullable: false),
                new ColumnMetadata("c_binary", "BINARY"),
                new ColumnMetadata("c_boolean", "BOOLEAN"),
                new ColumnMetadata("c_date", "DATE"),
                new ColumnMetadata("c_timestamp", "TIMESTAMP"),
                new ColumnMetadata("c_timestamp_ntz", "TIMESTAMP_NTZ"),
                new ColumnMetadata("c_interval_ym", "INTERVAL YEAR TO MONTH"),
                new ColumnMetadata("c_interval_ds", "INTERVAL DAY TO SECOND"),
                new ColumnMetadata("c_array", "ARRAY<INT>"),
                new ColumnMetadata("c_map", "MAP<STRING, INT>"),
                new ColumnMetadata("c_struct", "STRUCT<f1: STRING, f2: INT, f3: ARRAY<DOUBLE>>"),
                new ColumnMetadata("c_variant", "VARIANT"),
                new ColumnMetadata("c_void", "VOID"),
            })
            {
                PrimaryKeyName = "all_column_types_pk",
                PrimaryKey = new[] { "c_string", "c_int" },
                ForeignKeys = new[]
                {
                    new ForeignKeyMetadata("all_column_types_fk", new[] { "c_bigint", "c_boolean" }, Catalog, Schema, "fk_test_ref_table", new[] { "r_bigint", "r_boolean" }),
                },
            };
            yield return new TableMetadata(Catalog, Schema, "fk_test_ref_table", new[]
            {
                new ColumnMetadata("r_bigint", "BIGINT", Nullable: false),
                new ColumnMetadata("r_boolean", "BOOLEAN", Nullable: false),
                new ColumnMetadata("r_decimal", "DECIMAL(10,2)"),
            })
            {
                PrimaryKeyName = "fk_test_ref_table_pk",
                PrimaryKey = new[] { "r_bigint", "r_boolean" },
            };
            yield return new TableMetadata(Catalog, Schema, "cross_ref_customers", new[]
            {
                new ColumnMetadata("customer_id", "BIGINT", Nullable: false),
                new ColumnMetadata("customer_name", "STRING"),
                new ColumnMetadata("email", "STRING"),
                new ColumnMetadata("created_at", "TIMESTAMP"),
            })
            {
                PrimaryKeyName = "cross_ref_customers_pk",
                PrimaryKey = new[] { "customer_id" },
            };
            yield return new TableMetadata(Catalog, Schema, "cross_ref_orders", new[]
            {
                new ColumnMetadata("order_id", "BIGINT", Nullable: false),
                new ColumnMetadata("customer_id", "BIGINT"),
                new ColumnMetadata("order_date", "DATE"),
                new ColumnMetadata("amount", "DECIMAL(10,2)"),
            })
            {
                PrimaryKeyName = "cross_ref_orders_pk",
                PrimaryKey = new[] { "order_id" },
                ForeignKeys = new[]
                {
                    new ForeignKeyMetadata("cross_ref_orders_customer_fk", new[] { "customer_id" }, Catalog, Schema, "cross_ref_customers", new[] { "customer_id" }),
                },
            };
        }
    }
}
