using Apache.Arrow;

namespace MockDatabricks.Tests.Server.Rest
{
    /// <summary>
    /// One SQL front end and one catalog for both protocols: the same statement gets the same columns and rows over
    /// Thrift (ExecuteStatement, Arrow) as over the Statement Execution API (JSON_ARRAY), and the same error.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class ProtocolParityTests(MockServerFixture fixture)
    {
        [Theory]
        [InlineData("SHOW CATALOGS LIKE 'ma*'")]
        [InlineData("SHOW SCHEMAS IN ALL CATALOGS")]
        [InlineData("SHOW SCHEMAS IN `main` LIKE 'adbc*'")]
        [InlineData("SHOW TABLES IN CATALOG `main` SCHEMA LIKE 'adbc.testing'")]
        [InlineData("SHOW TABLES IN main.adbc_testing LIKE 'cross*'")]
        [InlineData("SHOW COLUMNS IN CATALOG `main` SCHEMA LIKE 'adbc_testing' TABLE LIKE 'cross*'")]
        [InlineData("SHOW KEYS IN CATALOG `main` IN SCHEMA `adbc_testing` IN TABLE `all_column_types`")]
        [InlineData("SHOW FOREIGN KEYS IN CATALOG `main` IN SCHEMA `adbc_testing` IN TABLE `cross_ref_orders`")]
        [InlineData("DESCRIBE TABLE main.adbc_testing.fk_test_ref_table")]
        [InlineData("DESC TABLE EXTENDED `main`.`adbc_testing`.`cross_ref_orders` AS JSON")]
        [InlineData("SELECT current_catalog(), current_schema() AS s")]
        [InlineData("SELECT customer_id, customer_name, email FROM main.adbc_testing.cross_ref_customers")]
        [InlineData("SELECT c_int, c_string, c_variant FROM main.adbc_testing.all_column_types")]
        public async Task AStatement_AnswersTheSame_OverThriftAndRest(string statement)
        {
            QueryOutcome thrift = await ThriftAsync(statement);
            RestOutcome rest = await fixture.QueryAsync(new RestExecuteRequest { Statement = statement, Format = "JSON_ARRAY", Disposition = "INLINE" });

            Assert.Equal(thrift.Schema.FieldsList.Select(f => f.Name), rest.Manifest.Schema!.Columns!.Select(c => c.Name));
            List<List<string?>> thriftRows = thrift.Batches.SelectMany(Text).ToList();
            Assert.NotEmpty(thriftRows);
            Assert.Equal(thriftRows, rest.Rows);
        }

        [Theory]
        [InlineData("SHOW SCHEMAS IN `no_such_catalog`", "[NO_SUCH_CATALOG_EXCEPTION]", "42704")]
        [InlineData("SHOW KEYS IN CATALOG `main` IN SCHEMA `no_such_schema` IN TABLE `t`", "[SCHEMA_NOT_FOUND]", "42704")]
        [InlineData("SELECT * FROM main.adbc_testing.no_such_table", "[TABLE_OR_VIEW_NOT_FOUND]", "42P01")]
        [InlineData("SHOW TABLES IN CATALOG `main` SCHEMA", "[PARSE_SYNTAX_ERROR]", "42601")]
        [InlineData("SELECT * FROM mock.nope", "[PARSE_SYNTAX_ERROR]", "42601")]
        public async Task ARefusedStatement_FailsTheSame_OverThriftAndRest(string statement, string errorClass, string sqlState)
        {
            using MockDatabricksClient thriftClient = fixture.NewClient();
            TExecuteStatementResp thrift = await thriftClient.ExecuteStatementAsync(await MockServerFixture.OpenSessionAsync(thriftClient), statement);
            using RestApiClient restClient = fixture.NewRestClient();
            RestStatement rest = await restClient.ExecuteAsync(new RestExecuteRequest { Statement = statement, SessionId = await restClient.CreateSessionAsync() });

            Assert.Equal(TStatusCode.Error, thrift.Status.StatusCode);
            Assert.StartsWith(errorClass, thrift.Status.ErrorMessage);
            Assert.Equal(sqlState, thrift.Status.SqlState);
            Assert.Equal("FAILED", rest.State);
            Assert.Equal(thrift.Status.ErrorMessage, rest.Status!.Error!.Message);
            Assert.Equal(sqlState, rest.Status.Error.SqlState);
        }

        private async Task<QueryOutcome> ThriftAsync(string statement)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            return await MockServerFixture.NewReader(client).RunAsync(session, statement);
        }

        /// <summary>A batch's rows as JSON_ARRAY writes them: invariant digits, true/false, null for SQL NULL.</summary>
        private static IEnumerable<List<string?>> Text(RecordBatch batch) => Enumerable.Range(0, batch.Length).Select(row =>
            Enumerable.Range(0, batch.ColumnCount).Select(column => batch.Column(column) switch
            {
                IArrowArray array when array.IsNull(row) => null,
                StringArray strings => strings.GetString(row),
                Int32Array ints => ints.GetValue(row)!.Value.ToString(CultureInfo.InvariantCulture),
                Int64Array longs => longs.GetValue(row)!.Value.ToString(CultureInfo.InvariantCulture),
                BooleanArray flags => flags.GetValue(row)!.Value ? "true" : "false",
                IArrowArray other => throw new NotSupportedException($"No text form here for {other.Data.DataType.Name}."),
            }).ToList());
    }
}
