using System.Text.RegularExpressions;
using MockDatabricks.Server.Query;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>
    /// The answers of the catalog RPCs (GetCatalogs, GetSchemas, GetTables, GetTableTypes, GetColumns, GetPrimaryKeys,
    /// GetCrossReference) over <see cref="MockCatalog"/>, as results with the columns, names and types the Spark Thrift
    /// server gives them (JDBC's DatabaseMetaData shapes; GetColumns' ORDINAL_POSITION is 0-based there, as the driver
    /// expects). Names are JDBC patterns (% any run, _ one character, \ escapes) except in GetPrimaryKeys and
    /// GetCrossReference; a null or empty pattern matches everything. A session without multiple catalogs
    /// (canUseMultipleCatalogs=false) sees only its own catalog. Protocol-neutral: a QuerySpec of fixed rows.
    /// </summary>
    public static class MetadataResults
    {
        private static readonly SqlField[] s_tablesFields = Strings("TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS", "TYPE_CAT", "TYPE_SCHEM", "TYPE_NAME", "SELF_REFERENCING_COL_NAME", "REF_GENERATION");

        public static IReadOnlyList<string> TableTypes { get; } = new[] { "TABLE", "VIEW" };

        public static QuerySpec Catalogs(SessionContext session) =>
            StatementPlanner.Fixed("GetCatalogs", Strings("TABLE_CAT"), MockCatalog.Catalogs.Where(c => Visible(session, c)).Select(c => new object?[] { c }).ToList());

        public static QuerySpec Schemas(SessionContext session, string? catalog, string? schemaPattern) =>
            StatementPlanner.Fixed("GetSchemas", Strings("TABLE_SCHEM", "TABLE_CATALOG"), MockCatalog.Schemas
                .Where(s => Visible(session, s.Catalog) && Matches(catalog, s.Catalog) && Matches(schemaPattern, s.Schema))
                .Select(s => new object?[] { s.Schema, s.Catalog })
                .ToList());

        public static QuerySpec Tables(SessionContext session, string? catalog, string? schemaPattern, string? tablePattern, IReadOnlyList<string>? types) =>
            StatementPlanner.Fixed("GetTables", s_tablesFields, FindTables(session, catalog, schemaPattern, tablePattern)
                .Where(t => types == null || types.Count == 0 || types.Contains(t.Type, StringComparer.OrdinalIgnoreCase))
                .Select(t => new object?[] { t.Catalog, t.Schema, t.Name, t.Type, t.Remarks, null, null, null, null, null })
                .ToList());

        public static QuerySpec TableTypeList() =>
            StatementPlanner.Fixed("GetTableTypes", Strings("TABLE_TYPE"), TableTypes.Select(t => new object?[] { t }).ToList());

        public static QuerySpec Columns(SessionContext session, string? catalog, string? schemaPattern, string? tablePattern, string? columnPattern)
        {
            var fields = new List<SqlField>
            {
                Text("TABLE_CAT"), Text("TABLE_SCHEM"), Text("TABLE_NAME"), Text("COLUMN_NAME"), Int("DATA_TYPE"), Text("TYPE_NAME"),
                Int("COLUMN_SIZE"), new SqlField("BUFFER_LENGTH", SqlType.TinyInt), Int("DECIMAL_DIGITS"), Int("NUM_PREC_RADIX"), Int("NULLABLE"),
                Text("REMARKS"), Text("COLUMN_DEF"), Int("SQL_DATA_TYPE"), Int("SQL_DATETIME_SUB"), Int("CHAR_OCTET_LENGTH"), Int("ORDINAL_POSITION"),
                Text("IS_NULLABLE"), Text("SCOPE_CATALOG"), Text("SCOPE_SCHEMA"), Text("SCOPE_TABLE"), new SqlField("SOURCE_DATA_TYPE", SqlType.SmallInt),
                Text("IS_AUTO_INCREMENT"),
            };
            var rows = new List<object?[]>();
            foreach (CatalogTable table in FindTables(session, catalog, schemaPattern, tablePattern))
            {
                for (int position = 0; position < table.Fields.Count; position++)
                {
                    SqlField column = table.Fields[position];
                    if (!Matches(columnPattern, column.Name))
                    {
                        continue;
                    }

                    SqlType type = column.Type;
                    rows.Add(new object?[]
                    {
                        table.Catalog, table.Schema, table.Name, column.Name, type.JdbcType, type.Sql,
                        ColumnSize(type), null, DecimalDigits(type), type.IsNumeric ? 10 : null, column.Nullable ? 1 : 0,
                        string.Empty, null, null, null, null, position,
                        column.Nullable ? "YES" : "NO", null, null, null, null,
                        "NO",
                    });
                }
            }

            return StatementPlanner.Fixed("GetColumns", fields, rows);
        }

        public static QuerySpec PrimaryKeys(SessionContext session, string? catalog, string? schema, string? table)
        {
            // KEQ_SEQ, not JDBC's KEY_SEQ: Databricks' name, which the driver's own key schemas (MetadataSchemaDefinitions)
            // and its GetColumnsExtended read; the rules and deferrability are INT there too.
            var fields = new[] { Text("TABLE_CAT"), Text("TABLE_SCHEM"), Text("TABLE_NAME"), Text("COLUMN_NAME"), Int("KEQ_SEQ"), Text("PK_NAME") };
            var rows = new List<object?[]>();
            foreach (CatalogTable found in ExactTables(session, catalog, schema, table))
            {
                for (int i = 0; i < found.PrimaryKey.Count; i++)
                {
                    rows.Add(new object?[] { found.Catalog, found.Schema, found.Name, found.PrimaryKey[i], i + 1, found.PrimaryKeyName });
                }
            }

            return StatementPlanner.Fixed("GetPrimaryKeys", fields, rows);
        }

        /// <summary>Foreign keys of the foreign table that reference the parent table (either side may be left out).</summary>
        public static QuerySpec CrossReference(SessionContext session, string? parentCatalog, string? parentSchema, string? parentTable, string? foreignCatalog, string? foreignSchema, string? foreignTable)
        {
            var fields = new[]
            {
                Text("PKTABLE_CAT"), Text("PKTABLE_SCHEM"), Text("PKTABLE_NAME"), Text("PKCOLUMN_NAME"), Text("FKTABLE_CAT"), Text("FKTABLE_SCHEM"),
                Text("FKTABLE_NAME"), Text("FKCOLUMN_NAME"), Int("KEQ_SEQ"), Int("UPDATE_RULE"), Int("DELETE_RULE"),
                Text("FK_NAME"), Text("PK_NAME"), Int("DEFERRABILITY"),
            };
            var rows = new List<object?[]>();
            foreach (CatalogTable child in ExactTables(session, foreignCatalog, foreignSchema, foreignTable))
            {
                foreach (ForeignKey key in child.ForeignKeys)
                {
                    if (!Same(parentCatalog, key.RefCatalog) || !Same(parentSchema, key.RefSchema) || !Same(parentTable, key.RefTable))
                    {
                        continue;
                    }

                    for (int i = 0; i < key.Columns.Count; i++)
                    {
                        // UPDATE_RULE and DELETE_RULE 3 = importedKeyNoAction, DEFERRABILITY 7 = importedKeyNotDeferrable (JDBC).
                        rows.Add(new object?[]
                        {
                            key.RefCatalog, key.RefSchema, key.RefTable, key.RefColumns[i], child.Catalog, child.Schema, child.Name, key.Columns[i],
                            i + 1, 3, 3, key.Name, key.RefTable + "_pk", 7,
                        });
                    }
                }
            }

            return StatementPlanner.Fixed("GetCrossReference", fields, rows);
        }

        /// <summary>Whether a name matches a JDBC pattern: % any run, _ one character, \ escapes; null or empty matches all.</summary>
        public static bool Matches(string? pattern, string name)
        {
            if (string.IsNullOrEmpty(pattern) || pattern == "%" || pattern == "*")
            {
                return true;
            }

            var regex = new StringBuilder("^");
            for (int i = 0; i < pattern.Length; i++)
            {
                char c = pattern[i];
                if (c == '\\' && i + 1 < pattern.Length)
                {
                    regex.Append(Regex.Escape(pattern[++i].ToString()));
                }
                else
                {
                    regex.Append(c switch { '%' => ".*", '_' => ".", _ => Regex.Escape(c.ToString()) });
                }
            }

            return Regex.IsMatch(name, regex.Append('$').ToString(), RegexOptions.IgnoreCase | RegexOptions.Singleline);
        }

        private static IEnumerable<CatalogTable> FindTables(SessionContext session, string? catalog, string? schemaPattern, string? tablePattern) =>
            MockCatalog.Tables.Where(t => Visible(session, t.Catalog) && Matches(catalog, t.Catalog) && Matches(schemaPattern, t.Schema) && Matches(tablePattern, t.Name));

        private static IEnumerable<CatalogTable> ExactTables(SessionContext session, string? catalog, string? schema, string? table) =>
            MockCatalog.Tables.Where(t => Visible(session, t.Catalog) && Same(catalog, t.Catalog) && Same(schema, t.Schema) && Same(table, t.Name));

        private static bool Visible(SessionContext session, string catalog) => session.MultipleCatalogs || catalog.Equals(session.Catalog, StringComparison.OrdinalIgnoreCase);

        /// <summary>An exact name (null or empty: any).</summary>
        private static bool Same(string? wanted, string actual) => string.IsNullOrEmpty(wanted) || wanted.Equals(actual, StringComparison.OrdinalIgnoreCase);

        /// <summary>The Spark Thrift server's COLUMN_SIZE: bytes of fixed-width types, precision of decimals, the maximum for strings.</summary>
        private static int? ColumnSize(SqlType type) => type.Kind switch
        {
            SqlTypeKind.Boolean or SqlTypeKind.TinyInt => 1,
            SqlTypeKind.SmallInt => 2,
            SqlTypeKind.Int or SqlTypeKind.Float or SqlTypeKind.Date or SqlTypeKind.IntervalYearMonth => 4,
            SqlTypeKind.BigInt or SqlTypeKind.Double or SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz or SqlTypeKind.IntervalDayTime => 8,
            SqlTypeKind.Decimal => type.Precision,
            SqlTypeKind.String => int.MaxValue,
            SqlTypeKind.Varchar or SqlTypeKind.Char => type.Length,
            SqlTypeKind.Void => 1,
            SqlTypeKind.Variant => 0,
            _ => null,
        };

        private static int? DecimalDigits(SqlType type) => type.Kind switch
        {
            SqlTypeKind.TinyInt or SqlTypeKind.SmallInt or SqlTypeKind.Int or SqlTypeKind.BigInt => 0,
            SqlTypeKind.Float => 7,
            SqlTypeKind.Double => 15,
            SqlTypeKind.Decimal => type.Scale,
            SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz => 6,
            SqlTypeKind.Variant => 0,
            _ => null,
        };

        private static SqlField Text(string name) => new SqlField(name, SqlType.String);

        private static SqlField Int(string name) => new SqlField(name, SqlType.Int);

        private static SqlField[] Strings(params string[] names) => names.Select(Text).ToArray();
    }
}
