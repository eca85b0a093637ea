using System.Numerics;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// The Spark SQL the mock answers, read as the driver reads it. A literal SELECT returns its literals: the expected
    /// types and values here follow from the SQL text by Spark's rules (1 is INT, 1L BIGINT, 1.5 DECIMAL(2,1), ...);
    /// range(...) returns its numbers; a table returns its generator's values (<see cref="SampleTables"/>).
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class SqlStatementTests(MockServerFixture fixture)
    {
        [Fact]
        public async Task Literals_HaveSparksTypesNamesAndValues()
        {
            QueryOutcome outcome = await RunAsync(
                "SELECT 1, 3000000000, 1L, 2S, 3Y, 1.5, 1.50, 1.5D, 2.5F, 1e3, 'hello', true, NULL, DATE '2024-02-29', " +
                "TIMESTAMP '2024-01-02 03:04:05.123456', X'0A0B', -7 AS negative");

            Assert.Equal(
                new[] { "1", "3000000000", "1", "2", "3", "1.5", "1.50", "1.5", "2.5", "1000.0", "hello", "true", "NULL", "DATE '2024-02-29'", "TIMESTAMP '2024-01-02 03:04:05.123456'", "X'0A0B'", "negative" },
                outcome.Metadata.Schema!.Columns.Select(c => c.ColumnName));
            Assert.Equal(
                new[] { TTypeId.Int, TTypeId.BigInt, TTypeId.BigInt, TTypeId.SmallInt, TTypeId.TinyInt, TTypeId.Decimal, TTypeId.Decimal, TTypeId.Double, TTypeId.Float, TTypeId.Double, TTypeId.String, TTypeId.Boolean, TTypeId.Null, TTypeId.Date, TTypeId.Timestamp, TTypeId.Binary, TTypeId.Int },
                outcome.Metadata.Schema.Columns.Select(c => c.TypeId));
            Assert.Equal(new[] { "DECIMAL(2,1)", "DECIMAL(3,2)" }, new[] { 5, 6 }.Select(i => SqlName(outcome.Schema, i)));

            RecordBatch row = Assert.Single(outcome.Batches);
            Assert.Equal(1, ((Int32Array)row.Column(0)).GetValue(0));
            Assert.Equal(3_000_000_000L, ((Int64Array)row.Column(1)).GetValue(0));
            Assert.Equal(1L, ((Int64Array)row.Column(2)).GetValue(0));
            Assert.Equal((short)2, ((Int16Array)row.Column(3)).GetValue(0));
            Assert.Equal((sbyte)3, ((Int8Array)row.Column(4)).GetValue(0));
            Assert.Equal(1.5m, ((Decimal128Array)row.Column(5)).GetValue(0));
            Assert.Equal(1.50m, ((Decimal128Array)row.Column(6)).GetValue(0));
            Assert.Equal(1.5, ((DoubleArray)row.Column(7)).GetValue(0));
            Assert.Equal(2.5f, ((FloatArray)row.Column(8)).GetValue(0));
            Assert.Equal(1000.0, ((DoubleArray)row.Column(9)).GetValue(0));
            Assert.Equal("hello", ((StringArray)row.Column(10)).GetString(0));
            Assert.True(((BooleanArray)row.Column(11)).GetValue(0));
            Assert.True(row.Column(12).IsNull(0));
            Assert.Equal(new DateOnly(2024, 2, 29), ((Date32Array)row.Column(13)).GetDateOnly(0));
            Assert.Equal(new DateTimeOffset(2024, 1, 2, 3, 4, 5, TimeSpan.Zero).AddTicks(1_234_560), ((TimestampArray)row.Column(14)).GetTimestamp(0));
            Assert.Equal(new byte[] { 0x0A, 0x0B }, ((BinaryArray)row.Column(15)).GetBytes(0).ToArray());
            Assert.Equal(-7, ((Int32Array)row.Column(16)).GetValue(0));
        }

        [Fact]
        public async Task CastsAndArithmetic_FollowSparksAnsiRules()
        {
            QueryOutcome outcome = await RunAsync(
                "SELECT CAST('42' AS INT) AS a, CAST(1.25 AS DECIMAL(5,1)) AS b, 7 / 2 AS c, 7 DIV 2 AS d, 1.5 + 1 AS e, " +
                "CAST(id AS STRING) AS s, id * 2 AS twice FROM range(3, 6)");

            Assert.Equal(new[] { "INT", "DECIMAL(5,1)", "DOUBLE", "BIGINT", "DECIMAL(12,1)", "STRING", "BIGINT" }, Enumerable.Range(0, 7).Select(i => SqlName(outcome.Schema, i)));
            RecordBatch batch = Assert.Single(outcome.Batches);
            Assert.Equal(3, batch.Length);
            Assert.Equal(42, ((Int32Array)batch.Column(0)).GetValue(0));
            Assert.Equal(1.3m, ((Decimal128Array)batch.Column(1)).GetValue(0)); // half up
            Assert.Equal(3.5, ((DoubleArray)batch.Column(2)).GetValue(0));
            Assert.Equal(3L, ((Int64Array)batch.Column(3)).GetValue(0));
            Assert.Equal(2.5m, ((Decimal128Array)batch.Column(4)).GetValue(0));
            Assert.Equal(new[] { "3", "4", "5" }, Enumerable.Range(0, 3).Select(i => ((StringArray)batch.Column(5)).GetString(i)));
            Assert.Equal(new long?[] { 6, 8, 10 }, ((Int64Array)batch.Column(6)).ToArray());
        }

        [Fact]
        public async Task BinaryOperators_GroupFromTheLeft_AndAQuoteDoubledIsTheQuote()
        {
            QueryOutcome outcome = await RunAsync(
                "SELECT 10 - 2 - 3 AS l, 100 DIV 10 DIV 5 AS d, 'a' || 'b' || 'c' AS j, true OR false AND false AS o, " +
                "'it''s' AS q, 'a\\tb' AS e, 1 AS `a``b\\t`");

            // In a `quoted identifier` a backslash is itself; in a string it escapes, as in Spark.
            Assert.Equal(new[] { "l", "d", "j", "o", "q", "e", "a`b\\t" }, outcome.Schema.FieldsList.Select(f => f.Name));
            RecordBatch row = Assert.Single(outcome.Batches);
            Assert.Equal(5, ((Int32Array)row.Column(0)).GetValue(0)); // (10 - 2) - 3, not 10 - (2 - 3)
            Assert.Equal(2L, ((Int64Array)row.Column(1)).GetValue(0)); // (100 DIV 10) DIV 5, not 100 DIV (10 DIV 5)
            Assert.Equal("abc", ((StringArray)row.Column(2)).GetString(0));
            Assert.True(((BooleanArray)row.Column(3)).GetValue(0)); // true OR (false AND false): AND binds tighter
            Assert.Equal("it's", ((StringArray)row.Column(4)).GetString(0));
            Assert.Equal("a\tb", ((StringArray)row.Column(5)).GetString(0));
        }

        [Fact]
        public async Task TypeNamedFunctions_Cast()
        {
            QueryOutcome outcome = await RunAsync("SELECT timestamp('2023-12-31 23:59:59.999') AS t, date('2024-02-29') AS d, int('7') AS i, string(1.5) AS s");

            RecordBatch row = Assert.Single(outcome.Batches);
            Assert.Equal(new DateTimeOffset(2023, 12, 31, 23, 59, 59, 999, TimeSpan.Zero), ((TimestampArray)row.Column(0)).GetTimestamp(0));
            Assert.Equal(new DateOnly(2024, 2, 29), ((Date32Array)row.Column(1)).GetDateOnly(0));
            Assert.Equal(7, ((Int32Array)row.Column(2)).GetValue(0));
            Assert.Equal("1.5", ((StringArray)row.Column(3)).GetString(0));
        }

        [Theory]
        [InlineData("SELECT 1 / 0", "DIVIDE_BY_ZERO", "22012")]
        [InlineData("SELECT CAST('x' AS INT)", "CAST_INVALID_INPUT", "22018")]
        [InlineData("SELECT 2147483647 + 1", "ARITHMETIC_OVERFLOW", "22003")]
        [InlineData("SELECT * FROM this_table_definitely_does_not_exist_xyz_123", "TABLE_OR_VIEW_NOT_FOUND", "42P01")]
        [InlineData("SELECT nope FROM range(3)", "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703")]
        [InlineData("CREATE TABLE t (a INT)", "MOCK_NOT_SUPPORTED", "0A000")]
        [InlineData("INSERT INTO t VALUES (1)", "MOCK_NOT_SUPPORTED", "0A000")]
        [InlineData("SELECT * FROM range(10) WHERE id > 3", "MOCK_NOT_SUPPORTED", "0A000")]
        [InlineData("SELECT * FROM range(3) AS t(a, b)", "NUM_TABLE_VALUE_ALIASES_MISMATCH", "42826")]
        [InlineData("SELECT * FROM VALUES (1, 2), (3)", "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH", "42000")]
        public async Task StatementsAWarehouseRefuses_AnswerWithItsErrorClassAndSqlState(string statement, string errorClass, string sqlState)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp response = await MockServerFixture.ExecuteInNewSessionAsync(client, statement);

            Assert.Equal(TStatusCode.Error, response.Status.StatusCode);
            Assert.StartsWith($"[{errorClass}]", response.Status.ErrorMessage);
            Assert.EndsWith($"SQLSTATE: {sqlState}", response.Status.ErrorMessage);
            Assert.Equal(sqlState, response.Status.SqlState);
        }

        [Theory]
        [InlineData("SELECT * FROM range(1000)", 0, 1000)]
        [InlineData("SELECT * FROM range(1000) LIMIT 0", 0, 0)]
        [InlineData("SELECT * FROM range(1, 100)", 1, 99)]
        [InlineData("SELECT * FROM RANGE(10) LIMIT 4", 0, 4)]
        [InlineData("SELECT id FROM range(0, 20, 5)", 0, 4)]
        public async Task Range_ReturnsItsNumbers(string statement, long first, int rows)
        {
            QueryOutcome outcome = await RunAsync(statement);

            long step = statement.Contains("20, 5", StringComparison.Ordinal) ? 5 : 1;
            long[] ids = outcome.Batches.SelectMany(b => ((Int64Array)b.Column(0)).Values.ToArray()).ToArray();
            Assert.Equal(Enumerable.Range(0, rows).Select(i => first + (i * step)), ids);
            Field id = outcome.Schema.GetFieldByName("id");
            Assert.False(id.IsNullable);
            Assert.Equal("BIGINT", id.Metadata[ArrowColumns.SqlNameKey]);
        }

        [Fact]
        public async Task AColumnAliasList_RenamesTheColumnsOfRange()
        {
            QueryOutcome outcome = await RunAsync("SELECT n FROM range(100) AS t(n)");

            Assert.Equal(new[] { "n" }, outcome.Schema.FieldsList.Select(f => f.Name));
            long[] values = outcome.Batches.SelectMany(b => ((Int64Array)b.Column(0)).Values.ToArray()).ToArray();
            Assert.Equal(Enumerable.Range(0, 100).Select(i => (long)i), values);
        }

        [Fact]
        public async Task AnInlineTable_ReturnsItsRows_UnderItsColumnAliases()
        {
            QueryOutcome outcome = await RunAsync("SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c')) AS t(id, name)");

            Assert.Equal(new[] { "id", "name" }, outcome.Schema.FieldsList.Select(f => f.Name));
            Assert.Equal(new[] { "INT", "STRING" }, new[] { 0, 1 }.Select(i => SqlName(outcome.Schema, i)));
            RecordBatch batch = Assert.Single(outcome.Batches);
            Assert.Equal(new int?[] { 1, 2, 3 }, ((Int32Array)batch.Column(0)).ToArray());
            var names = (StringArray)batch.Column(1);
            Assert.Equal(new[] { "a", "b", "c" }, Enumerable.Range(0, 3).Select(i => names.GetString(i)));
        }

        [Fact]
        public async Task AnInlineTableWithoutAliases_NamesItsColumnsCol1AndWidensEachToTheTypeItsValuesMeetIn()
        {
            QueryOutcome outcome = await RunAsync("SELECT * FROM VALUES (1, NULL), (2L, 'x')");

            Assert.Equal(new[] { "col1", "col2" }, outcome.Schema.FieldsList.Select(f => f.Name));
            Assert.Equal(new[] { "BIGINT", "STRING" }, new[] { 0, 1 }.Select(i => SqlName(outcome.Schema, i)));
            Assert.False(outcome.Schema.GetFieldByName("col1").IsNullable);
            Assert.True(outcome.Schema.GetFieldByName("col2").IsNullable);
            RecordBatch batch = Assert.Single(outcome.Batches);
            Assert.Equal(new long?[] { 1, 2 }, ((Int64Array)batch.Column(0)).ToArray());
            Assert.True(batch.Column(1).IsNull(0));
            Assert.Equal("x", ((StringArray)batch.Column(1)).GetString(1));
        }

        [Fact]
        public async Task ALargeRange_ComesByCloudFetch_InFilesOfTheClientsMaxBytesPerFile()
        {
            QueryOutcome outcome = await RunAsync("SELECT * FROM range(1000000)", new ExecuteOptions { MaxBytesPerFile = 2 * 1024 * 1024 });

            Assert.True(outcome.CloudFetch);
            Assert.Equal(4, outcome.Links.Count); // 8 bytes a row: 262,144 rows per 2 MB file
            Assert.Equal(1_000_000, outcome.RowCount);
            Assert.Equal(Enumerable.Range(0, 1_000_000).Select(i => (long)i), outcome.Batches.SelectMany(b => ((Int64Array)b.Column(0)).Values.ToArray()));
        }

        [Fact]
        public async Task ExplodeSequence_IsARowSource()
        {
            QueryOutcome outcome = await RunAsync("SELECT INTERVAL '2-6' YEAR TO MONTH AS ym, col FROM (SELECT explode(sequence(1, 2000)))");

            Assert.Equal(2000, outcome.RowCount);
            Assert.All(outcome.Batches, b => Assert.All(Enumerable.Range(0, b.Length), i => Assert.Equal("2-6", ((StringArray)b.Column(0)).GetString(i))));
            Assert.Equal(Enumerable.Range(1, 2000), outcome.Batches.SelectMany(b => ((Int32Array)b.Column(1)).Values.ToArray()));
        }

        [Theory]
        [InlineData("SELECT INTERVAL '2-6' YEAR TO MONTH", "2-6", "INTERVAL YEAR TO MONTH")]
        [InlineData("SELECT INTERVAL '3 12:30:15' DAY TO SECOND", "3 12:30:15.000000000", "INTERVAL DAY TO SECOND")]
        [InlineData("SELECT INTERVAL '1 00:00:00.123456' DAY TO SECOND", "1 00:00:00.123456000", "INTERVAL DAY TO SECOND")]
        [InlineData("SELECT INTERVAL 1 DAY", "1 00:00:00.000000000", "INTERVAL DAY")]
        [InlineData("SELECT CAST(NULL AS INTERVAL YEAR TO MONTH)", null, "INTERVAL YEAR TO MONTH")]
        public async Task Intervals_AreStringsUnlessTheClientAsksForArrowIntervals(string statement, string? expected, string sqlName)
        {
            QueryOutcome outcome = await RunAsync(statement);

            Assert.Equal(ArrowTypeId.String, outcome.Schema.FieldsList[0].DataType.TypeId);
            Assert.Equal(sqlName, SqlName(outcome.Schema, 0));
            Assert.Equal(expected, ((StringArray)Assert.Single(outcome.Batches).Column(0)).GetString(0));
        }

        [Fact]
        public async Task ComplexTypes_AreNativeArrowWithComplexTypesAsArrow_AndWarehouseJsonWithout()
        {
            const string statement = "SELECT ARRAY(CAST(1 AS INT), 2, NULL) AS a, MAP('k', 1.5D) AS m, STRUCT(CAST(1 AS INT) AS id, 'Alice' AS name) AS s, CAST(NULL AS ARRAY<INT>) AS n";
            var native = new TSparkArrowTypes { TimestampAsArrow = true, DecimalAsArrow = true, ComplexTypesAsArrow = true, IntervalTypesAsArrow = false };

            QueryOutcome asArrow = await RunAsync(statement, new ExecuteOptions { ArrowNativeTypes = native });
            QueryOutcome asStrings = await RunAsync(statement);

            Assert.Equal(new[] { "ARRAY<INT>", "MAP<STRING, DOUBLE>", "STRUCT<id: INT, name: STRING>", "ARRAY<INT>" }, Enumerable.Range(0, 4).Select(i => SqlName(asArrow.Schema, i)));
            Assert.Equal(new[] { TTypeId.Array, TTypeId.Map, TTypeId.Struct, TTypeId.Array }, asArrow.Metadata.Schema!.Columns.Select(c => c.TypeId));
            RecordBatch arrow = Assert.Single(asArrow.Batches);
            var list = (ListArray)arrow.Column(0);
            Assert.Equal(new int?[] { 1, 2, null }, ((Int32Array)list.GetSlicedValues(0)).ToArray());
            var map = (MapArray)arrow.Column(1);
            Assert.Equal("k", ((StringArray)map.Keys).GetString(0));
            Assert.Equal(1.5, ((DoubleArray)map.Values).GetValue(0));
            var person = (StructArray)arrow.Column(2);
            Assert.Equal(1, ((Int32Array)person.Fields[0]).GetValue(0));
            Assert.Equal("Alice", ((StringArray)person.Fields[1]).GetString(0));
            Assert.True(arrow.Column(3).IsNull(0));

            RecordBatch strings = Assert.Single(asStrings.Batches);
            Assert.All(Enumerable.Range(0, 4), i => Assert.Equal(ArrowTypeId.String, strings.Schema.FieldsList[i].DataType.TypeId));
            Assert.Equal(new[] { "[1,2,null]", "{\"k\":1.5}", "{\"id\":1,\"name\":\"Alice\"}", null }, Enumerable.Range(0, 4).Select(i => ((StringArray)strings.Column(i)).GetString(0)));
        }

        [Fact]
        public async Task SessionFunctions_FollowTheOpenNamespaceAndUse()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TOpenSessionResp opened = await client.CallAsync<TOpenSessionResp>("OpenSession", new TOpenSessionReq
            {
                ClientProtocol = TProtocolVersion.SparkV7,
                CanUseMultipleCatalogs = true,
                InitialNamespace = new TNamespace { CatalogName = "main", SchemaName = "information_schema" },
            });
            DriverLikeReader reader = MockServerFixture.NewReader(client);

            QueryOutcome before = await reader.RunAsync(opened.SessionHandle!, "SELECT current_catalog(), current_schema()");
            await reader.RunAsync(opened.SessionHandle!, "USE samples.nyctaxi");
            QueryOutcome after = await reader.RunAsync(opened.SessionHandle!, "SELECT current_catalog() AS c, current_database() AS s");
            QueryOutcome trips = await reader.RunAsync(opened.SessionHandle!, "SELECT COUNT(*) FROM trips");

            Assert.Equal(new[] { "current_catalog()", "current_schema()" }, before.Schema.FieldsList.Select(f => f.Name));
            Assert.Equal(new[] { "main", "information_schema" }, Strings(Assert.Single(before.Batches)));
            Assert.Equal(new[] { "samples", "nyctaxi" }, Strings(Assert.Single(after.Batches)));
            Assert.Equal(SampleTables.NycTaxiTripsRows, ((Int64Array)Assert.Single(trips.Batches).Column(0)).GetValue(0));
        }

        [Fact]
        public async Task Set_ListsTheSessionConfiguration_FromOpenSessionAndSetStatements()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TOpenSessionResp opened = await client.CallAsync<TOpenSessionResp>("OpenSession", new TOpenSessionReq
            {
                ClientProtocol = TProtocolVersion.SparkV7,
                Configuration = new() { ["use_cached_result"] = "false" },
            });
            DriverLikeReader reader = MockServerFixture.NewReader(client);

            QueryOutcome set = await reader.RunAsync(opened.SessionHandle!, "SET statement_timeout=`12345`");
            QueryOutcome all = await reader.RunAsync(opened.SessionHandle!, "SET");

            Assert.Equal(new[] { "statement_timeout", "12345" }, Strings(Assert.Single(set.Batches)));
            RecordBatch listed = Assert.Single(all.Batches);
            Assert.Equal(new[] { "key", "value" }, listed.Schema.FieldsList.Select(f => f.Name));
            Assert.Equal(
                new[] { ("statement_timeout", "12345"), ("use_cached_result", "false") },
                Enumerable.Range(0, listed.Length).Select(i => (((StringArray)listed.Column(0)).GetString(i), ((StringArray)listed.Column(1)).GetString(i))));
        }

        [Fact]
        public async Task StoreSales_WithLimit_ComesByCloudFetch_EveryValueFromTheSampleTablesGenerator()
        {
            QueryOutcome outcome = await RunAsync("SELECT * FROM main.tpcds_sf100_delta.store_sales LIMIT 100000", new ExecuteOptions { MaxBytesPerFile = 10 * 1024 * 1024 });

            Assert.True(outcome.CloudFetch);
            Assert.Equal(3, outcome.Links.Count); // 240 bytes a row: 43,690 rows per 10 MB file
            Assert.Equal(23, outcome.Schema.FieldsList.Count);
            Assert.Equal("DECIMAL(7,2)", SqlName(outcome.Schema, 11));
            var spec = new DatasetSpec { Rows = 100_000, Table = SampleTables.All["main.tpcds_sf100_delta.store_sales"].Table };
            Assert.Equal(100_000, ResultVerifier.VerifyAllValues(outcome.Batches, spec));
        }

        [Fact]
        public async Task StoreSalesAmounts_AddUpAsInTpcds()
        {
            QueryOutcome outcome = await RunAsync("SELECT ss_quantity, ss_sales_price, ss_ext_sales_price, ss_coupon_amt, ss_net_paid FROM main.tpcds_sf100_delta.store_sales LIMIT 2000");

            int checkedRows = 0;
            foreach (RecordBatch batch in outcome.Batches)
            {
                for (int i = 0; i < batch.Length; i++)
                {
                    if (Enumerable.Range(0, 5).Any(c => batch.Column(c).IsNull(i)))
                    {
                        continue;
                    }

                    int quantity = ((Int32Array)batch.Column(0)).GetValue(i)!.Value;
                    decimal price = ((Decimal128Array)batch.Column(1)).GetValue(i)!.Value;
                    decimal extended = ((Decimal128Array)batch.Column(2)).GetValue(i)!.Value;
                    Assert.Equal(price * quantity, extended);
                    Assert.Equal(extended - ((Decimal128Array)batch.Column(3)).GetValue(i)!.Value, ((Decimal128Array)batch.Column(4)).GetValue(i)!.Value);
                    checkedRows++;
                }
            }

            Assert.InRange(checkedRows, 1_500, 2_000);
        }

        [Fact]
        public async Task CountOfACrossJoin_RunsUntilCancelled_AndASmallOneCounts()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            // 10^10 rows: the statement runs for 30 s (at most), so it is RUNNING when cancelled.
            TExecuteStatementResp large = await client.ExecuteStatementAsync(session, "SELECT COUNT(*) FROM (SELECT a.id FROM range(100000000) a CROSS JOIN range(100) b)");
            TGetOperationStatusResp running = await client.GetOperationStatusAsync(large.OperationHandle!);
            await client.CancelOperationAsync(large.OperationHandle!);
            TGetOperationStatusResp cancelled = await client.GetOperationStatusAsync(large.OperationHandle!);
            QueryOutcome small = await MockServerFixture.NewReader(client).RunAsync(session, "SELECT COUNT(*) FROM (SELECT a.id FROM range(1000) a CROSS JOIN range(10) b)");

            Assert.Null(large.DirectResults);
            Assert.Equal(TOperationState.Running, running.OperationState);
            Assert.Equal(TOperationState.Canceled, cancelled.OperationState);
            Assert.Equal(10_000L, ((Int64Array)Assert.Single(small.Batches).Column(0)).GetValue(0));
            Assert.Equal("count(1)", small.Schema.FieldsList[0].Name);
        }

        [Fact]
        public async Task DescribeTableExtendedAsJson_DescribesColumnsTypesAndKeys_AsDatabricksWritesThem()
        {
            QueryOutcome outcome = await RunAsync("DESC TABLE EXTENDED `main`.`adbc_testing`.`all_column_types` AS JSON STATIC ONLY");

            Assert.Equal("json_metadata", outcome.Schema.FieldsList.Single().Name);
            using var json = System.Text.Json.JsonDocument.Parse(((StringArray)Assert.Single(outcome.Batches).Column(0)).GetString(0)!);
            System.Text.Json.JsonElement root = json.RootElement;
            Assert.Equal("all_column_types", root.GetProperty("table_name").GetString());
            Assert.Equal(20, root.GetProperty("columns").GetArrayLength());
            System.Text.Json.JsonElement decimalColumn = root.GetProperty("columns")[4];
            Assert.Equal("c_decimal", decimalColumn.GetProperty("name").GetString());
            Assert.Equal("{\"name\":\"decimal\",\"precision\":10,\"scale\":2}", decimalColumn.GetProperty("type").GetRawText());
            Assert.Equal("{\"name\":\"interval\",\"start_unit\":\"year\",\"end_unit\":\"month\"}", root.GetProperty("columns")[13].GetProperty("type").GetRawText());
            Assert.Equal("{\"name\":\"variant\"}", root.GetProperty("columns")[18].GetProperty("type").GetRawText());
            Assert.False(root.GetProperty("columns")[2].GetProperty("nullable").GetBoolean());
            Assert.Equal(
                "[(all_column_types_pk, PRIMARY KEY (`c_string`, `c_int`)), (all_column_types_fk_test_ref_table_fk, FOREIGN KEY (`c_bigint`, `c_boolean`) REFERENCES `main`.`adbc_testing`.`fk_test_ref_table` (`r_bigint`, `r_boolean`))]",
                root.GetProperty("table_constraints").GetString());
        }

        [Fact]
        public async Task TheFixtureTablesVariantColumn_IsJsonText_DescribedAsVariant()
        {
            QueryOutcome outcome = await RunAsync("SELECT c_variant FROM main.adbc_testing.all_column_types");

            Assert.Equal(TTypeId.String, Assert.Single(outcome.Metadata.Schema!.Columns).TypeId);
            Assert.Equal("VARIANT", SqlName(outcome.Schema, 0));
            var values = (StringArray)Assert.Single(outcome.Batches).Column(0);
            Assert.Equal(new[] { "{\"n\":1,\"tags\":[\"t1\"]}", "{\"n\":2,\"tags\":[\"t2\"]}", null }, Enumerable.Range(0, values.Length).Select(i => values.GetString(i)));
        }

        [Fact]
        public async Task TheSuitesSampleTable_ReadsAsItsScriptLeftIt_CharPaddedVarcharAsString()
        {
            QueryOutcome outcome = await RunAsync("SELECT id, name, varchar, char, decimal FROM main.adbc_testing.sample_types");

            Assert.Equal(FixtureTables.SampleTypesRows, outcome.RowCount);
            RecordBatch batch = Assert.Single(outcome.Batches);
            Assert.Equal(new long?[] { 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 }, ((Int64Array)batch.Column(0)).ToArray());
            Assert.Equal("John Doe", ((StringArray)batch.Column(2)).GetString(0));
            Assert.Equal("John Doe  ", ((StringArray)batch.Column(3)).GetString(0)); // CHAR(10), padded on read
            Assert.Equal(new[] { "STRING", "STRING" }, new[] { 2, 3 }.Select(i => SqlName(outcome.Schema, i)));
            Assert.Equal("99999999999999999999999999999.999900000", ((Decimal128Array)batch.Column(4)).GetString(1));
        }

        [Theory]
        [InlineData("SELECT * FROM main.adbc_testing.sample_types WHERE FALSE", 0)]
        [InlineData("SELECT * FROM range(7) WHERE 1 = 1", 7)]
        [InlineData("SELECT id FROM range(7) WHERE NULL", 0)]
        public async Task ConstantWhere_KeepsAllRowsOrNone(string statement, long rows)
        {
            QueryOutcome outcome = await RunAsync(statement);

            Assert.Equal(rows, outcome.RowCount);
            Assert.Equal("id", outcome.Schema.FieldsList[0].Name);
        }

        [Fact]
        public async Task CountUnderARowFilter_RunsThenFails_ItCannotBeCounted()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TExecuteStatementResp executed = await MockServerFixture.ExecuteInNewSessionAsync(client,
                "SELECT COUNT(*) AS total_count FROM (SELECT t1.id AS id1, t2.id AS id2 FROM RANGE(1000) t1 CROSS JOIN RANGE(1000) t2) subquery WHERE MOD(id1 + id2, 2) = 0");
            TGetOperationStatusResp status;
            do
            {
                status = await client.GetOperationStatusAsync(executed.OperationHandle!);
            }
            while (status.OperationState == TOperationState.Running);

            Assert.Equal(TStatusCode.Success, executed.Status.StatusCode);
            Assert.Equal(TOperationState.Error, status.OperationState);
            Assert.StartsWith("[MOCK_NOT_SUPPORTED]", status.ErrorMessage);
            Assert.Equal("0A000", status.SqlState);
        }

        private async Task<QueryOutcome> RunAsync(string statement, ExecuteOptions? options = null)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            return await MockServerFixture.NewReader(client).RunAsync(session, statement, options);
        }

        private static string SqlName(Schema schema, int column) => schema.FieldsList[column].Metadata[ArrowColumns.SqlNameKey];

        private static string?[] Strings(RecordBatch batch) => Enumerable.Range(0, batch.ColumnCount)
            .Select(c => batch.Column(c) is StringArray s ? s.GetString(0) : null).ToArray();
    }
}
