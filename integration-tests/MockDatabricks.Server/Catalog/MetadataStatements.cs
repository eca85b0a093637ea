using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;
using Apache.Arrow;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>The catalog and schema a session resolves unqualified names in.</summary>
    public sealed record SessionNamespace(string Catalog, string Schema)
    {
        public static SessionNamespace Default { get; } = new SessionNamespace(MetadataCatalog.DefaultCatalog, MetadataCatalog.DefaultSchema);
    }

    /// <summary>A statement error as a warehouse reports it: "[ERROR_CLASS] text SQLSTATE: xxxxx".</summary>
    public sealed class MetadataException(string errorClass, string text, string sqlState)
        : Exception($"[{errorClass}] {text} SQLSTATE: {sqlState}")
    {
        public string ErrorClass { get; } = errorClass;

        public string SqlState { get; } = sqlState;
    }

    /// <summary>
    /// The metadata SQL the driver's REST path sends instead of Thrift's catalog RPCs (csharp/v1.1.7
    /// StatementExecution/MetadataCommands and StatementExecutionStatement), answered from a <see cref="MetadataCatalog"/>:
    /// <code>
    /// SHOW CATALOGS [LIKE 'p']
    /// SHOW SCHEMAS IN ALL CATALOGS | IN `c` [LIKE 'p']                      (also DATABASES, FROM)
    /// SHOW TABLES [IN ALL CATALOGS | IN CATALOG `c`] [SCHEMA LIKE 'p'] [LIKE 'p']
    /// SHOW COLUMNS [IN ALL CATALOGS | IN CATALOG `c`] [SCHEMA LIKE 'p'] [TABLE LIKE 'p'] [LIKE 'p']
    /// SHOW [FOREIGN] KEYS IN CATALOG `c` IN SCHEMA `s` IN TABLE `t`
    /// DESC[RIBE] [TABLE] [EXTENDED] name [AS JSON [STATIC ONLY]]
    /// SELECT CURRENT_CATALOG() | CURRENT_SCHEMA() | CURRENT_DATABASE() [AS alias], ...
    /// </code>
    /// Result columns carry the names the driver reads. Unknown objects fail with the error classes the driver
    /// recognises as "not found" (NO_SUCH_CATALOG_EXCEPTION, SCHEMA_NOT_FOUND, TABLE_OR_VIEW_NOT_FOUND).
    /// </summary>
    public static class MetadataStatements
    {
        /// <summary>The statement's result, or null when it is not one of the statements above (the caller tries its other grammars).</summary>
        public static RecordBatch? TryAnswer(string statement, SessionNamespace session, MetadataCatalog catalog)
        {
            SqlTokens? tokens = SqlTokens.TryRead(statement);
            if (tokens == null || tokens.AtEnd)
            {
                return null;
            }

            try
            {
                if (tokens.Accept("SHOW"))
                {
                    return Show(tokens, session, catalog);
                }

                if (tokens.Accept("DESC") || tokens.Accept("DESCRIBE"))
                {
                    return Describe(tokens, session, catalog);
                }

                return tokens.Accept("SELECT") ? CurrentNamespace(tokens, session) : null;
            }
            catch (FormatException ex)
            {
                throw new MetadataException("PARSE_SYNTAX_ERROR", $"Syntax error in metadata statement: {ex.Message}", "42601");
            }
        }

        private static RecordBatch? Show(SqlTokens tokens, SessionNamespace session, MetadataCatalog catalog)
        {
            RecordBatch? result;
            if (tokens.Accept("CATALOGS"))
            {
                string? pattern = LikePattern(tokens);
                var table = new MetadataResultTable("catalog");
                foreach (string name in catalog.Catalogs.Where(c => ShowPattern.Matches(pattern, c)))
                {
                    table.Add(name);
                }

                result = table.Build();
            }
            else if (tokens.Accept("SCHEMAS") || tokens.Accept("DATABASES"))
            {
                result = ShowSchemas(tokens, session, catalog);
            }
            else if (tokens.Accept("TABLES"))
            {
                result = ShowTables(tokens, session, catalog);
            }
            else if (tokens.Accept("COLUMNS"))
            {
                result = ShowColumns(tokens, session, catalog);
            }
            else if (tokens.Accept("FOREIGN", "KEYS"))
            {
                result = ShowForeignKeys(KeyTarget(tokens, catalog));
            }
            else if (tokens.Accept("KEYS"))
            {
                result = ShowPrimaryKeys(KeyTarget(tokens, catalog));
            }
            else
            {
                return null;
            }

            return tokens.AtEnd ? result : throw new FormatException($"unexpected '{tokens.Peek()!.Value.Text}'.");
        }

        private static RecordBatch ShowSchemas(SqlTokens tokens, SessionNamespace session, MetadataCatalog catalog)
        {
            bool all = tokens.Accept("IN", "ALL", "CATALOGS");
            string? inCatalog = !all && (tokens.Accept("IN") || tokens.Accept("FROM")) ? Identifier(tokens) : null;
            string? pattern = LikePattern(tokens);
            if (all)
            {
                // SHOW SCHEMAS IN ALL CATALOGS: databaseName, catalog (the driver reads them by position).
                var everywhere = new MetadataResultTable("databaseName", "catalog");
                foreach ((string c, string s) in catalog.Schemas.Where(s => ShowPattern.Matches(pattern, s.Schema)))
                {
                    everywhere.Add(s, c);
                }

                return everywhere.Build();
            }

            string name = inCatalog ?? session.Catalog;
            RequireCatalog(catalog, name);
            var table = new MetadataResultTable("databaseName");
            foreach ((string _, string s) in catalog.Schemas.Where(s => s.Catalog.Equals(name, StringComparison.OrdinalIgnoreCase) && ShowPattern.Matches(pattern, s.Schema)))
            {
                table.Add(s);
            }

            return table.Build();
        }

        private static RecordBatch ShowTables(SqlTokens tokens, SessionNamespace session, MetadataCatalog catalog)
        {
            IEnumerable<(string Catalog, string Schema)> schemas = Scope(tokens, session, catalog, allowSchema: true, out bool explicitSchema);
            string? schemaPattern = !explicitSchema && tokens.Accept("SCHEMA", "LIKE") ? String(tokens) : null;
            string? pattern = LikePattern(tokens);
            var table = new MetadataResultTable("catalogName", "namespace", "tableName", "tableType", "remarks");
            foreach ((string c, string s) in schemas.Where(s => ShowPattern.Matches(schemaPattern, s.Schema)))
            {
                foreach (TableMetadata t in catalog.TablesOf(c, s).Where(t => ShowPattern.Matches(pattern, t.Name)))
                {
                    table.Add(t.Catalog, t.Schema, t.Name, t.TableType, t.Comment ?? string.Empty);
                }
            }

            return table.Build();
        }

        private static RecordBatch ShowColumns(SqlTokens tokens, SessionNamespace session, MetadataCatalog catalog)
        {
            IEnumerable<(string Catalog, string Schema)> schemas = Scope(tokens, session, catalog, allowSchema: false, out _);
            string? schemaPattern = tokens.Accept("SCHEMA", "LIKE") ? String(tokens) : null;
            string? tablePattern = tokens.Accept("TABLE", "LIKE") ? String(tokens) : null;
            string? pattern = LikePattern(tokens);
            var table = new MetadataResultTable("col_name", "catalogName", "namespace", "tableName", "columnType", "isNullable", "remarks", "ordinalPosition:int");
            foreach ((string c, string s) in schemas.Where(s => ShowPattern.Matches(schemaPattern, s.Schema)))
            {
                foreach (TableMetadata t in catalog.TablesOf(c, s).Where(t => ShowPattern.Matches(tablePattern, t.Name)))
                {
                    for (int i = 0; i < t.Columns.Count; i++)
                    {
                        ColumnMetadata column = t.Columns[i];
                        if (ShowPattern.Matches(pattern, column.Name))
                        {
                            table.Add(column.Name, t.Catalog, t.Schema, t.Name, column.SqlType, column.Nullable ? "true" : "false", column.Comment ?? string.Empty, i + 1);
                        }
                    }
                }
            }

            return table.Build();
        }

        private static RecordBatch ShowPrimaryKeys(TableMetadata table)
        {
            var result = new MetadataResultTable("catalogName", "namespace", "tableName", "col_name", "constraintName", "keySeq:int");
            for (int i = 0; i < table.PrimaryKey.Count; i++)
            {
                result.Add(table.Catalog, table.Schema, table.Name, table.PrimaryKey[i], table.PrimaryKeyName, i + 1);
            }

            return result.Build();
        }

        private static RecordBatch ShowForeignKeys(TableMetadata table)
        {
            var result = new MetadataResultTable(
                "catalogName", "namespace", "tableName", "col_name", "constraintName", "keySeq:int",
                "parentCatalogName", "parentNamespace", "parentTableName", "parentColName");
            foreach (ForeignKeyMetadata key in table.ForeignKeys)
            {
                for (int i = 0; i < key.Columns.Count; i++)
                {
                    result.Add(table.Catalog, table.Schema, table.Name, key.Columns[i], key.Name, i + 1, key.RefCatalog, key.RefSchema, key.RefTable, key.RefColumns[i]);
                }
            }

            return result.Build();
        }

        /// <summary>IN CATALOG `c` IN SCHEMA `s` IN TABLE `t` (SHOW KEYS and SHOW FOREIGN KEYS).</summary>
        private static TableMetadata KeyTarget(SqlTokens tokens, MetadataCatalog catalog)
        {
            string c = tokens.Accept("IN", "CATALOG") ? Identifier(tokens) : throw new FormatException("expected IN CATALOG.");
            string s = tokens.Accept("IN", "SCHEMA") ? Identifier(tokens) : throw new FormatException("expected IN SCHEMA.");
            string t = tokens.Accept("IN", "TABLE") ? Identifier(tokens) : throw new FormatException("expected IN TABLE.");
            return RequireTable(catalog, c, s, t);
        }

        /// <summary>
        /// The schemas a SHOW TABLES / COLUMNS covers: IN ALL CATALOGS, IN CATALOG `c`, or (SHOW TABLES) IN `schema` of
        /// the current catalog; none of these: the current catalog. (SHOW COLUMNS IN `t` names a table in Spark, so
        /// SHOW COLUMNS takes only the catalog forms.)
        /// </summary>
        private static IEnumerable<(string Catalog, string Schema)> Scope(SqlTokens tokens, SessionNamespace session, MetadataCatalog catalog, bool allowSchema, out bool explicitSchema)
        {
            explicitSchema = false;
            if (tokens.Accept("IN", "ALL", "CATALOGS"))
            {
                return catalog.Schemas;
            }

            string catalogName = session.Catalog;
            if (tokens.Accept("IN", "CATALOG"))
            {
                catalogName = Identifier(tokens);
            }
            else if (allowSchema && (tokens.Accept("IN") || tokens.Accept("FROM")))
            {
                List<string> name = tokens.AcceptQualifiedName() ?? throw new FormatException("expected a schema name.");
                (string c, string s) = name.Count == 2 ? (name[0], name[1]) : (session.Catalog, name[0]);
                RequireSchema(catalog, c, s);
                explicitSchema = true;
                return new[] { (c, s) };
            }

            RequireCatalog(catalog, catalogName);
            return catalog.Schemas.Where(s => s.Catalog.Equals(catalogName, StringComparison.OrdinalIgnoreCase)).ToList();
        }

        private static RecordBatch Describe(SqlTokens tokens, SessionNamespace session, MetadataCatalog catalog)
        {
            tokens.Accept("TABLE");
            bool extended = tokens.Accept("EXTENDED");
            List<string> name = tokens.AcceptQualifiedName() ?? throw new FormatException("expected a table name.");
            bool json = tokens.Accept("AS", "JSON");
            if (json)
            {
                tokens.Accept("STATIC", "ONLY");
            }

            if (!tokens.AtEnd)
            {
                throw new FormatException($"unexpected '{tokens.Peek()!.Value.Text}'.");
            }

            (string c, string s, string t) = name.Count switch
            {
                1 => (session.Catalog, session.Schema, name[0]),
                2 => (session.Catalog, name[0], name[1]),
                3 => (name[0], name[1], name[2]),
                _ => throw new FormatException("a table name has at most three parts."),
            };
            TableMetadata table = RequireTable(catalog, c, s, t);
            if (json)
            {
                return new MetadataResultTable("json_metadata").Add(DescribeJson(table, extended)).Build();
            }

            var rows = new MetadataResultTable("col_name", "data_type", "comment");
            foreach (ColumnMetadata column in table.Columns)
            {
                rows.Add(column.Name, column.SqlType.ToLowerInvariant(), column.Comment);
            }

            return rows.Build();
        }

        /// <summary>DESCRIBE TABLE EXTENDED ... AS JSON: the fields the driver's DescTableExtendedResult reads.</summary>
        private static string DescribeJson(TableMetadata table, bool extended)
        {
            using var buffer = new MemoryStream();
            using (var json = new Utf8JsonWriter(buffer))
            {
                json.WriteStartObject();
                json.WriteString("table_name", table.Name);
                json.WriteString("catalog_name", table.Catalog);
                json.WriteString("schema_name", table.Schema);
                json.WriteStartArray("namespace");
                json.WriteStringValue(table.Schema);
                json.WriteEndArray();
                json.WriteString("type", table.TableType == "VIEW" ? "VIEW" : "MANAGED");
                json.WriteStartArray("columns");
                foreach (ColumnMetadata column in table.Columns)
                {
                    json.WriteStartObject();
                    json.WriteString("name", column.Name);
                    json.WritePropertyName("type");
                    SqlTypeJson.Write(json, column.SqlType);
                    if (column.Comment != null)
                    {
                        json.WriteString("comment", column.Comment);
                    }

                    json.WriteBoolean("nullable", column.Nullable);
                    json.WriteEndObject();
                }

                json.WriteEndArray();
                if (extended)
                {
                    json.WriteStartObject("table_properties");
                    json.WriteEndObject();
                    if (Constraints(table) is string constraints)
                    {
                        json.WriteString("table_constraints", constraints);
                    }
                }

                json.WriteEndObject();
            }

            return Encoding.UTF8.GetString(buffer.ToArray());
        }

        /// <summary>"[(pk, PRIMARY KEY (`a`, `b`)), (fk, FOREIGN KEY (`c`) REFERENCES `x`.`y`.`z` (`d`))]", as Databricks writes table_constraints.</summary>
        private static string? Constraints(TableMetadata table)
        {
            var constraints = new List<string>();
            if (table.PrimaryKey.Count > 0)
            {
                constraints.Add($"({table.PrimaryKeyName}, PRIMARY KEY ({Quoted(table.PrimaryKey)}))");
            }

            foreach (ForeignKeyMetadata key in table.ForeignKeys)
            {
                constraints.Add($"({key.Name}, FOREIGN KEY ({Quoted(key.Columns)}) REFERENCES {Quote(key.RefCatalog)}.{Quote(key.RefSchema)}.{Quote(key.RefTable)} ({Quoted(key.RefColumns)}))");
            }

            return constraints.Count == 0 ? null : $"[{string.Join(", ", constraints)}]";
        }

        private static string Quoted(IEnumerable<string> names) => string.Join(", ", names.Select(Quote));

        private static string Quote(string name) => "`" + name.Replace("`", "``") + "`";

        /// <summary>SELECT CURRENT_CATALOG(), CURRENT_SCHEMA() ...: one row, a column per function (named as Spark names them, or by the alias).</summary>
        private static RecordBatch? CurrentNamespace(SqlTokens tokens, SessionNamespace session)
        {
            var names = new List<string>();
            var values = new List<object?>();
            do
            {
                string? function = tokens.AcceptIdentifier()?.ToLowerInvariant();
                string? value = function switch
                {
                    "current_catalog" => session.Catalog,
                    "current_schema" or "current_database" => session.Schema,
                    _ => null,
                };
                if (value == null || !tokens.AcceptSymbol('(') || !tokens.AcceptSymbol(')'))
                {
                    return null;
                }

                names.Add(tokens.Accept("AS") ? tokens.AcceptIdentifier() ?? throw new FormatException("expected an alias.") : function + "()");
                values.Add(value);
            }
            while (tokens.AcceptSymbol(','));

            return tokens.AtEnd ? new MetadataResultTable(names.ToArray()).Add(values.ToArray()).Build() : null;
        }

        private static string? LikePattern(SqlTokens tokens) => tokens.Accept("LIKE") ? String(tokens) : tokens.AcceptString();

        private static string String(SqlTokens tokens) => tokens.AcceptString() ?? throw new FormatException("expected a 'quoted' pattern.");

        private static string Identifier(SqlTokens tokens) => tokens.AcceptIdentifier() ?? throw new FormatException("expected an identifier.");

        private static void RequireCatalog(MetadataCatalog catalog, string name)
        {
            if (!catalog.HasCatalog(name))
            {
                throw new MetadataException("NO_SUCH_CATALOG_EXCEPTION", $"Catalog '{name}' was not found. Please verify the catalog name and then retry the query or command again.", "42704");
            }
        }

        private static void RequireSchema(MetadataCatalog catalog, string c, string s)
        {
            RequireCatalog(catalog, c);
            if (!catalog.HasSchema(c, s))
            {
                throw new MetadataException("SCHEMA_NOT_FOUND", $"The schema {Quote(c)}.{Quote(s)} cannot be found.", "42704");
            }
        }

        private static TableMetadata RequireTable(MetadataCatalog catalog, string c, string s, string t)
        {
            RequireSchema(catalog, c, s);
            return catalog.FindTable(c, s, t)
                ?? throw new MetadataException("TABLE_OR_VIEW_NOT_FOUND", $"The table or view {Quote(c)}.{Quote(s)}.{Quote(t)} cannot be found.", "42P01");
        }
    }
}
