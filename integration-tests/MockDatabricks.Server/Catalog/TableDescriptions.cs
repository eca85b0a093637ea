using System.Text.Json;
using System.Text.Json.Nodes;
using MockDatabricks.Server.Query;
using MockDatabricks.Server.Query.Sql;

namespace MockDatabricks.Server.Catalog
{
    /// <summary>
    /// DESCRIBE of a catalog table. DESCRIBE [TABLE] [EXTENDED] name: Spark's rows (col_name, data_type, comment).
    /// DESCRIBE TABLE EXTENDED name AS JSON [STATIC ONLY]: one row, column json_metadata, the table in Databricks' JSON
    /// form (lower-case type names with their parameters, nullability, table_constraints as Databricks writes them),
    /// which the driver reads for GetColumnsExtended when adbc.databricks.use_desc_table_extended is on.
    /// </summary>
    public static class TableDescriptions
    {
        public static QuerySpec Describe(DescribeStatement describe, SessionContext session)
        {
            CatalogTable table = MockCatalog.Resolve(describe.Name, session)
                ?? throw SqlError.TableNotFound("`" + string.Join("`.`", describe.Name) + "`");
            if (describe.Json)
            {
                if (!describe.Extended)
                {
                    throw new SqlError("DESCRIBE_JSON_NOT_EXTENDED", "DESCRIBE TABLE ... AS JSON only supported when [EXTENDED|FORMATTED] is specified.", "0A000");
                }

                return StatementPlanner.Fixed("describe json", new[] { new SqlField("json_metadata", SqlType.String, false) }, new[] { new object?[] { Json(table) } });
            }

            var fields = new[] { new SqlField("col_name", SqlType.String, false), new SqlField("data_type", SqlType.String, false), new SqlField("comment", SqlType.String) };
            return StatementPlanner.Fixed("describe", fields, table.Fields.Select(f => new object?[] { f.Name, f.Type.Sql.ToLowerInvariant(), null }).ToList());
        }

        /// <summary>The DESCRIBE TABLE EXTENDED ... AS JSON document of a table.</summary>
        public static string Json(CatalogTable table)
        {
            bool view = table.Type == "VIEW";
            var document = new JsonObject
            {
                ["table_name"] = table.Name,
                ["catalog_name"] = table.Catalog,
                ["schema_name"] = table.Schema,
                ["namespace"] = new JsonArray(table.Schema),
                ["type"] = view ? "VIEW" : "MANAGED",
            };
            if (!view)
            {
                document["provider"] = "delta";
            }

            document["columns"] = new JsonArray(table.Fields.Select(f => (JsonNode?)Column(f)).ToArray());
            document["table_properties"] = new JsonObject();
            string? constraints = Constraints(table);
            if (constraints != null)
            {
                document["table_constraints"] = constraints;
            }

            return document.ToJsonString(new JsonSerializerOptions { WriteIndented = false });
        }

        private static JsonObject Column(SqlField field) => new JsonObject
        {
            ["name"] = field.Name,
            ["type"] = Type(field.Type),
            ["nullable"] = field.Nullable,
        };

        /// <summary>Databricks' JSON of a type: {"name": "decimal", "precision": 10, "scale": 2}, {"name": "array", "element_type": {...}}, ...</summary>
        private static JsonObject Type(SqlType type)
        {
            var json = new JsonObject
            {
                ["name"] = type.Kind switch
                {
                    SqlTypeKind.Timestamp => "timestamp_ltz",
                    SqlTypeKind.IntervalYearMonth or SqlTypeKind.IntervalDayTime => "interval",
                    SqlTypeKind.Decimal => "decimal",
                    SqlTypeKind.Varchar => "varchar",
                    SqlTypeKind.Char => "char",
                    SqlTypeKind.Array => "array",
                    SqlTypeKind.Map => "map",
                    SqlTypeKind.Struct => "struct",
                    _ => type.Sql.ToLowerInvariant(),
                },
            };
            switch (type.Kind)
            {
                case SqlTypeKind.Decimal:
                    json["precision"] = type.Precision;
                    json["scale"] = type.Scale;
                    break;
                case SqlTypeKind.Varchar or SqlTypeKind.Char:
                    json["length"] = type.Length;
                    break;
                case SqlTypeKind.IntervalYearMonth or SqlTypeKind.IntervalDayTime:
                    json["start_unit"] = type.IntervalStart!.ToLowerInvariant();
                    json["end_unit"] = (type.IntervalEnd ?? type.IntervalStart!).ToLowerInvariant();
                    break;
                case SqlTypeKind.Array:
                    json["element_type"] = Type(type.Element!);
                    json["element_nullable"] = true;
                    break;
                case SqlTypeKind.Map:
                    json["key_type"] = Type(type.Key!);
                    json["value_type"] = Type(type.Element!);
                    json["value_nullable"] = true;
                    break;
                case SqlTypeKind.Struct:
                    json["fields"] = new JsonArray(type.Fields.Select(f => (JsonNode?)Column(f)).ToArray());
                    break;
            }

            return json;
        }

        /// <summary>"[(name, PRIMARY KEY (`a`, `b`)), (name, FOREIGN KEY (`c`) REFERENCES `cat`.`schema`.`table` (`r`))]", or null without keys.</summary>
        private static string? Constraints(CatalogTable table)
        {
            var constraints = new List<string>();
            if (table.PrimaryKey.Count > 0)
            {
                constraints.Add($"({table.PrimaryKeyName}, PRIMARY KEY ({Columns(table.PrimaryKey)}))");
            }

            foreach (ForeignKey key in table.ForeignKeys)
            {
                constraints.Add($"({key.Name}, FOREIGN KEY ({Columns(key.Columns)}) REFERENCES `{key.RefCatalog}`.`{key.RefSchema}`.`{key.RefTable}` ({Columns(key.RefColumns)}))");
            }

            return constraints.Count == 0 ? null : "[" + string.Join(", ", constraints) + "]";
        }

        private static string Columns(IEnumerable<string> names) => string.Join(", ", names.Select(n => $"`{n}`"));
    }
}
