namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>
    /// The metadata SQL of the driver's REST path (csharp/v1.1.7 StatementExecution/MetadataCommands), answered from the
    /// mock's catalog. The expected fixture table is upstream's: main.adbc_testing.all_column_types as its
    /// create_table_all_types.sql declares it, with fk_test_ref_table as create_reference_table.sql does.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class RestMetadataTests(MockServerFixture fixture)
    {
        /// <summary>create_table_all_types.sql, column by column.</summary>
        private static readonly (string Name, string Type)[] s_allColumnTypes =
        {
            ("c_tinyint", "TINYINT"), ("c_smallint", "SMALLINT"), ("c_int", "INT"), ("c_bigint", "BIGINT"), ("c_decimal", "DECIMAL(10,2)"),
            ("c_float", "FLOAT"), ("c_double", "DOUBLE"), ("c_string", "STRING"), ("c_binary", "BINARY"), ("c_boolean", "BOOLEAN"),
            ("c_date", "DATE"), ("c_timestamp", "TIMESTAMP"), ("c_timestamp_ntz", "TIMESTAMP_NTZ"), ("c_interval_ym", "INTERVAL YEAR TO MONTH"),
            ("c_interval_ds", "INTERVAL DAY TO SECOND"), ("c_array", "ARRAY<INT>"), ("c_map", "MAP<STRING, INT>"),
            ("c_struct", "STRUCT<f1: STRING, f2: INT, f3: ARRAY<DOUBLE>>"), ("c_variant", "VARIANT"), ("c_void", "VOID"),
        };

        [Fact]
        public async Task ShowCatalogs_ListsTheCatalogs_AndFiltersByPattern()
        {
            List<List<string?>> all = await RowsAsync("SHOW CATALOGS");
            List<List<string?>> like = await RowsAsync("SHOW CATALOGS LIKE 'ma*'");

            // Other catalogs may come with the statement planner's sample tables; these two hold what the driver's tests read.
            Assert.Contains("hive_metastore", all.Select(r => r[0]));
            Assert.Contains("main", all.Select(r => r[0]));
            Assert.Equal(all.Select(r => r[0]).Order(StringComparer.Ordinal), all.Select(r => r[0]));
            Assert.Equal(new[] { "main" }, like.Select(r => r[0]));
        }

        [Fact]
        public async Task ShowSchemas_InAllCatalogs_NamesTheCatalog_InOneCatalogDoesNot()
        {
            RestOutcome all = await QueryAsync("SHOW SCHEMAS IN ALL CATALOGS");
            RestOutcome main = await QueryAsync("SHOW SCHEMAS IN `main` LIKE 'adbc*'");

            Assert.Equal(new[] { "databaseName", "catalog" }, all.Manifest.Schema!.Columns!.Select(c => c.Name));
            List<string> pairs = all.Rows.Select(r => $"{r[1]}.{r[0]}").ToList();
            Assert.Contains("main.adbc_testing", pairs);
            Assert.Contains("hive_metastore.default", pairs);
            Assert.Equal(new[] { "databaseName" }, main.Manifest.Schema!.Columns!.Select(c => c.Name));
            Assert.Equal(new[] { "adbc_testing" }, Assert.Single(main.Rows));
        }

        [Fact]
        public async Task ShowTables_InACatalog_WithTheDriversPatterns()
        {
            // The driver turns a JDBC '_' into '.' (any one character) and '%' into '*'.
            RestOutcome tables = await QueryAsync("SHOW TABLES IN CATALOG `main` SCHEMA LIKE 'adbc.testing' LIKE 'cross*'");

            Assert.Equal(new[] { "catalogName", "namespace", "tableName", "tableType", "remarks" }, tables.Manifest.Schema!.Columns!.Select(c => c.Name));
            Assert.Equal(new[] { "cross_ref_customers", "cross_ref_orders" }, tables.Rows.Select(r => r[2]));
            Assert.All(tables.Rows, r => Assert.Equal(new string?[] { "main", "adbc_testing" }, r.Take(2)));
            Assert.All(tables.Rows, r => Assert.Equal("TABLE", r[3]));
        }

        [Fact]
        public async Task ShowColumns_OfAllColumnTypes_AreUpstreamsFixtureColumns()
        {
            RestOutcome columns = await QueryAsync("SHOW COLUMNS IN CATALOG `main` SCHEMA LIKE 'adbc.testing' TABLE LIKE 'all.column.types'");

            List<string?> names = columns.Manifest.Schema!.Columns!.Select(c => c.Name).ToList();
            int name = names.IndexOf("col_name"), type = names.IndexOf("columnType"), nullable = names.IndexOf("isNullable"), table = names.IndexOf("tableName");
            Assert.Equal(s_allColumnTypes.Select(c => c.Name), columns.Rows.Select(r => r[name]));
            Assert.Equal(s_allColumnTypes.Select(c => c.Type), columns.Rows.Select(r => r[type]));
            Assert.All(columns.Rows, r => Assert.Equal("all_column_types", r[table]));
            Assert.Equal(new[] { "c_int", "c_string" }, columns.Rows.Where(r => r[nullable] == "false").Select(r => r[name]));
        }

        [Fact]
        public async Task ShowKeys_AreThePrimaryKeyInKeyOrder_AndShowForeignKeysTheReference()
        {
            RestOutcome keys = await QueryAsync("SHOW KEYS IN CATALOG `main` IN SCHEMA `adbc_testing` IN TABLE `all_column_types`", format: "ARROW_STREAM");
            RestOutcome foreign = await QueryAsync("SHOW FOREIGN KEYS IN CATALOG `main` IN SCHEMA `adbc_testing` IN TABLE `all_column_types`");

            Apache.Arrow.RecordBatch batch = Assert.Single(keys.Batches);
            Assert.Equal(new[] { "c_string", "c_int" }, Column(batch, "col_name"));
            Assert.Equal(new int?[] { 1, 2 }, ((Apache.Arrow.Int32Array)batch.Column("keySeq")).ToArray());
            Assert.Equal("INT", keys.Manifest.Schema!.Columns!.Single(c => c.Name == "keySeq").TypeText);
            List<string?> names = foreign.Manifest.Schema!.Columns!.Select(c => c.Name).ToList();
            Assert.Equal(new[] { "c_bigint:r_bigint", "c_boolean:r_boolean" },
                foreign.Rows.Select(r => $"{r[names.IndexOf("col_name")]}:{r[names.IndexOf("parentColName")]}"));
            Assert.All(foreign.Rows, r => Assert.Equal("fk_test_ref_table", r[names.IndexOf("parentTableName")]));
        }

        [Fact]
        public async Task DescribeTableExtendedAsJson_DescribesColumnsTypesAndConstraints()
        {
            List<List<string?>> rows = await RowsAsync("DESC TABLE EXTENDED `main`.`adbc_testing`.`all_column_types` AS JSON");

            using JsonDocument json = JsonDocument.Parse(Assert.Single(Assert.Single(rows))!);
            JsonElement root = json.RootElement;
            Assert.Equal("all_column_types", root.GetProperty("table_name").GetString());
            Assert.Equal("main", root.GetProperty("catalog_name").GetString());
            Assert.Equal("adbc_testing", root.GetProperty("schema_name").GetString());
            JsonElement[] columns = root.GetProperty("columns").EnumerateArray().ToArray();
            Assert.Equal(s_allColumnTypes.Select(c => c.Name), columns.Select(c => c.GetProperty("name").GetString()));
            JsonElement decimalType = columns[4].GetProperty("type");
            Assert.Equal(("decimal", 10, 2), (decimalType.GetProperty("name").GetString(), decimalType.GetProperty("precision").GetInt32(), decimalType.GetProperty("scale").GetInt32()));
            JsonElement interval = columns[13].GetProperty("type");
            Assert.Equal(("interval", "year", "month"), (interval.GetProperty("name").GetString(), interval.GetProperty("start_unit").GetString(), interval.GetProperty("end_unit").GetString()));
            JsonElement structType = columns[17].GetProperty("type");
            Assert.Equal(new[] { "f1", "f2", "f3" }, structType.GetProperty("fields").EnumerateArray().Select(f => f.GetProperty("name").GetString()));
            Assert.Equal("double", structType.GetProperty("fields")[2].GetProperty("type").GetProperty("element_type").GetProperty("name").GetString());
            Assert.False(columns[2].GetProperty("nullable").GetBoolean());
            string constraints = root.GetProperty("table_constraints").GetString()!;
            Assert.Contains("PRIMARY KEY (`c_string`, `c_int`)", constraints);
            Assert.Contains("FOREIGN KEY (`c_bigint`, `c_boolean`) REFERENCES `main`.`adbc_testing`.`fk_test_ref_table` (`r_bigint`, `r_boolean`)", constraints);
        }

        [Fact]
        public async Task CurrentCatalog_IsTheSessions_OrHiveMetastoreByDefault()
        {
            // hive_metastore: the default of the workspace upstream's E2E suite expects (SetDefaultCatalogAndSchemaOptionsTest).
            using RestApiClient client = fixture.NewRestClient();
            string main = await client.CreateSessionAsync(catalog: "main", schema: "information_schema");
            string plain = await client.CreateSessionAsync();

            RestStatement inMain = await client.ExecuteAsync(new RestExecuteRequest { Statement = "SELECT CURRENT_CATALOG()", SessionId = main, Format = "JSON_ARRAY", Disposition = "INLINE" }, metadata: true);
            RestStatement inPlain = await client.ExecuteAsync(new RestExecuteRequest { Statement = "SELECT current_catalog() AS c, current_database()", SessionId = plain, Format = "JSON_ARRAY", Disposition = "INLINE" });

            Assert.Equal(new string?[] { "main" }, Assert.Single(inMain.Result!.DataArray!));
            Assert.Equal("current_catalog()", Assert.Single(inMain.Manifest!.Schema!.Columns!).Name);
            Assert.Equal(new string?[] { "hive_metastore", "default" }, Assert.Single(inPlain.Result!.DataArray!));
            Assert.Equal(new[] { "c", "current_database()" }, inPlain.Manifest!.Schema!.Columns!.Select(c => c.Name));
        }

        [Theory]
        [InlineData("DESC TABLE EXTENDED `main`.`adbc_testing`.`no_such_table` AS JSON", "[TABLE_OR_VIEW_NOT_FOUND]", "42P01")]
        [InlineData("SHOW KEYS IN CATALOG `main` IN SCHEMA `no_such_schema` IN TABLE `t`", "[SCHEMA_NOT_FOUND]", "42704")]
        [InlineData("SHOW SCHEMAS IN `no_such_catalog`", "[NO_SUCH_CATALOG_EXCEPTION]", "42704")]
        [InlineData("SHOW TABLES IN CATALOG `main` SCHEMA", "[PARSE_SYNTAX_ERROR]", "42601")]
        public async Task UnknownObjects_FailWithTheErrorClassesTheDriverTreatsAsNotFound(string sql, string errorClass, string sqlState)
        {
            using RestApiClient client = fixture.NewRestClient();

            RestStatement failed = await client.ExecuteAsync(new RestExecuteRequest { Statement = sql, SessionId = await client.CreateSessionAsync() }, metadata: true);

            Assert.Equal("FAILED", failed.State);
            Assert.StartsWith(errorClass, failed.Status!.Error!.Message);
            Assert.Equal(sqlState, failed.Status.Error.SqlState);
        }

        private async Task<RestOutcome> QueryAsync(string sql, string format = "JSON_ARRAY") =>
            await fixture.QueryAsync(new RestExecuteRequest { Statement = sql, Format = format, Disposition = format == "JSON_ARRAY" ? "INLINE" : "INLINE_OR_EXTERNAL_LINKS" });

        private async Task<List<List<string?>>> RowsAsync(string sql) => (await QueryAsync(sql)).Rows;

        private static string?[] Column(Apache.Arrow.RecordBatch batch, string name)
        {
            var column = (Apache.Arrow.StringArray)batch.Column(name);
            return Enumerable.Range(0, column.Length).Select(i => column.GetString(i)).ToArray();
        }
    }
}
