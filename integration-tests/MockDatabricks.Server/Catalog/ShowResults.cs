using MockDatabricks.Server.Query;
using MockDatabricks.Server.Query.Sql;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>
    /// The answers of the SHOW statements (<see cref="SqlParser"/> reads them) over <see cref="MockCatalog"/>, whichever
    /// protocol carries them, with the columns Databricks gives them:
    /// <list type="bullet">
    /// <item>SHOW CATALOGS: catalog. SHOW SCHEMAS: databaseName, and catalog when IN ALL CATALOGS.</item>
    /// <item>Spark's SHOW TABLES [IN [catalog.]schema]: database, tableName, isTemporary, in one schema (the session's
    /// without IN); SHOW TABLES IN ALL CATALOGS | IN CATALOG c [SCHEMA LIKE p] (the driver's REST metadata): catalogName,
    /// namespace, tableName, tableType, remarks, over the catalogs' schemas.</item>
    /// <item>SHOW COLUMNS: col_name, catalogName, namespace, tableName, columnType, isNullable ("true"/"false"), remarks,
    /// ordinalPosition (from 1). SHOW KEYS: catalogName, namespace, tableName, col_name, constraintName, keySeq; SHOW
    /// FOREIGN KEYS adds parentCatalogName, parentNamespace, parentTableName, parentColName.</item>
    /// </list>
    /// Unknown objects fail with the error classes the driver recognises as "not found" (NO_SUCH_CATALOG_EXCEPTION,
    /// SCHEMA_NOT_FOUND, TABLE_OR_VIEW_NOT_FOUND).
    /// </summary>
    public static class ShowResults
    {
        public static QuerySpec Answer(ShowStatement show, SessionContext session) => show.What switch
        {
            ShowWhat.Catalogs => Result("show catalogs", Strings("catalog"), MockCatalog.Catalogs.Where(c => ShowPattern.Matches(show.Pattern, c)).Select(c => Row(c))),
            ShowWhat.Schemas => Schemas(show, session),
            ShowWhat.Tables when show.AllCatalogs || show.Catalog != null || show.SchemaPattern != null => CatalogTables(show, session),
            ShowWhat.Tables => SchemaTables(show, session),
            ShowWhat.Columns => Columns(show, session),
            ShowWhat.PrimaryKeys => PrimaryKeys(RequireTable(show.Catalog!, show.Schema![0], show.Table!)),
            ShowWhat.ForeignKeys => ForeignKeys(RequireTable(show.Catalog!, show.Schema![0], show.Table!)),
            _ => throw new ArgumentOutOfRangeException(nameof(show), show.What, "Not a SHOW this mock answers."),
        };

        private static QuerySpec Schemas(ShowStatement show, SessionContext session)
        {
            if (show.AllCatalogs)
            {
                // databaseName, catalog: the driver reads them by position.
                return Result("show schemas", Strings("databaseName", "catalog"), MockCatalog.Schemas
                    .Where(s => ShowPattern.Matches(show.Pattern, s.Schema))
                    .Select(s => Row(s.Schema, s.Catalog)));
            }

            string catalog = RequireCatalog(show.Catalog ?? session.Catalog);
            return Result("show schemas", Strings("databaseName"), MockCatalog.Schemas
                .Where(s => MockCatalog.Same(s.Catalog, catalog) && ShowPattern.Matches(show.Pattern, s.Schema))
                .Select(s => Row(s.Schema)));
        }

        /// <summary>Spark's SHOW TABLES [IN [catalog.]schema] [LIKE p]: one schema's tables.</summary>
        private static QuerySpec SchemaTables(ShowStatement show, SessionContext session)
        {
            (string catalog, string schema) = show.Schema switch
            {
                null => (session.Catalog, session.Schema),
                [string only] => (session.Catalog, only),
                _ => (show.Schema[0], show.Schema[1]),
            };
            RequireSchema(catalog, schema);
            var fields = new[] { new SqlField("database", SqlType.String, false), new SqlField("tableName", SqlType.String, false), new SqlField("isTemporary", SqlType.Boolean, false) };
            return Result("show tables", fields, MockCatalog.TablesOf(catalog, schema)
                .Where(t => ShowPattern.Matches(show.Pattern, t.Name))
                .Select(t => Row(t.Schema, t.Name, false)));
        }

        private static QuerySpec CatalogTables(ShowStatement show, SessionContext session) =>
            Result("show tables", Strings("catalogName", "namespace", "tableName", "tableType", "remarks"), Tables(show, session)
                .Where(t => ShowPattern.Matches(show.Pattern, t.Name))
                .Select(t => Row(t.Catalog, t.Schema, t.Name, t.Type, t.Remarks)));

        private static QuerySpec Columns(ShowStatement show, SessionContext session)
        {
            var fields = Strings("col_name", "catalogName", "namespace", "tableName", "columnType", "isNullable", "remarks").Append(new SqlField("ordinalPosition", SqlType.Int, false)).ToList();
            var rows = new List<object?[]>();
            foreach (CatalogTable table in Tables(show, session).Where(t => ShowPattern.Matches(show.TablePattern, t.Name)))
            {
                for (int i = 0; i < table.Fields.Count; i++)
                {
                    SqlField column = table.Fields[i];
                    if (ShowPattern.Matches(show.Pattern, column.Name))
                    {
                        rows.Add(Row(column.Name, table.Catalog, table.Schema, table.Name, column.Type.Sql, column.Nullable ? "true" : "false", string.Empty, i + 1));
                    }
                }
            }

            return Result("show columns", fields, rows);
        }

        /// <summary>
        /// The tables a SHOW TABLES / COLUMNS covers: those of every catalog (IN ALL CATALOGS), of IN CATALOG c, or of the
        /// session's catalog, in the schemas SCHEMA LIKE keeps.
        /// </summary>
        private static IEnumerable<CatalogTable> Tables(ShowStatement show, SessionContext session)
        {
            string? catalog = show.AllCatalogs ? null : RequireCatalog(show.Catalog ?? session.Catalog);
            return MockCatalog.Tables.Where(t => (catalog == null || MockCatalog.Same(t.Catalog, catalog)) && ShowPattern.Matches(show.SchemaPattern, t.Schema));
        }

        private static QuerySpec PrimaryKeys(CatalogTable table)
        {
            var fields = Strings("catalogName", "namespace", "tableName", "col_name", "constraintName").Append(new SqlField("keySeq", SqlType.Int, false)).ToList();
            return Result("show keys", fields, table.PrimaryKey.Select((column, i) => Row(table.Catalog, table.Schema, table.Name, column, table.PrimaryKeyName, i + 1)));
        }

        private static QuerySpec ForeignKeys(CatalogTable table)
        {
            var fields = Strings("catalogName", "namespace", "tableName", "col_name", "constraintName")
                .Append(new SqlField("keySeq", SqlType.Int, false))
                .Concat(Strings("parentCatalogName", "parentNamespace", "parentTableName", "parentColName"))
                .ToList();
            return Result("show foreign keys", fields, table.ForeignKeys.SelectMany(key => key.Columns.Select((column, i) =>
                Row(table.Catalog, table.Schema, table.Name, column, key.Name, i + 1, key.RefCatalog, key.RefSchema, key.RefTable, key.RefColumns[i]))));
        }

        private static string RequireCatalog(string catalog) => MockCatalog.CatalogExists(catalog)
            ? catalog
            : throw new SqlError("NO_SUCH_CATALOG_EXCEPTION", $"Catalog '{catalog}' was not found. Please verify the catalog name and then retry the query or command again.", "42704");

        private static void RequireSchema(string catalog, string schema)
        {
            RequireCatalog(catalog);
            if (!MockCatalog.SchemaExists(catalog, schema))
            {
                throw new SqlError("SCHEMA_NOT_FOUND", $"The schema `{catalog}`.`{schema}` cannot be found.", "42704");
            }
        }

        private static CatalogTable RequireTable(string catalog, string schema, string table)
        {
            RequireSchema(catalog, schema);
            return MockCatalog.Find(catalog, schema, table) ?? throw SqlError.TableNotFound($"`{catalog}`.`{schema}`.`{table}`");
        }

        private static QuerySpec Result(string name, IReadOnlyList<SqlField> fields, IEnumerable<object?[]> rows) => StatementPlanner.Fixed(name, fields, rows.ToList());

        private static object?[] Row(params object?[] values) => values;

        private static SqlField[] Strings(params string[] names) => names.Select(n => new SqlField(n, SqlType.String, false)).ToArray();
    }
}
