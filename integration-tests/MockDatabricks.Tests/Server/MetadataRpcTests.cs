namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// The catalog RPCs over the mock's catalog, sent as the driver sends them (with direct results, whose column-based
    /// row set is all it reads) and without. Expected rows are the catalog's tables as documented in the README and the
    /// types of <see cref="SampleTables"/> and <see cref="FixtureTables"/>, written out here.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class MetadataRpcTests(MockServerFixture fixture)
    {
        [Fact]
        public async Task GetCatalogs_ListsTheCatalogs_ColumnBased_InDirectResults()
        {
            (TMetadataResp response, List<string?[]> rows) = await CallAsync("GetCatalogs", session => new TGetCatalogsReq { SessionHandle = session, GetDirectResults = MockDatabricksClient.DriverDirectResults() });

            Assert.Equal(TOperationType.GetCatalogs, response.OperationHandle!.OperationType);
            Assert.Equal(TSparkRowSetType.ColumnBasedSet, response.DirectResults!.ResultSetMetadata!.ResultFormat);
            Assert.Equal(new[] { "TABLE_CAT" }, response.DirectResults.ResultSetMetadata.Schema!.Columns.Select(c => c.ColumnName));
            Assert.Equal(new[] { "hive_metastore", "main", "samples" }, rows.Select(r => r[0]));
        }

        [Fact]
        public async Task GetSchemas_FiltersByCatalogAndPattern()
        {
            (_, List<string?[]> rows) = await CallAsync("GetSchemas", session => new TGetSchemasReq { SessionHandle = session, CatalogName = "main", SchemaName = "%s%", GetDirectResults = MockDatabricksClient.DriverDirectResults() });

            Assert.Equal(new[] { "adbc_testing|main", "information_schema|main", "tpcds_sf100_delta|main" }, rows.Select(r => $"{r[0]}|{r[1]}"));
        }

        [Fact]
        public async Task GetTables_MatchesPatternsWithEscapes_AndTableTypes()
        {
            (_, List<string?[]> found) = await CallAsync("GetTables", session => new TGetTablesReq
            {
                SessionHandle = session,
                CatalogName = "main",
                SchemaName = "tpcds%",
                TableName = "store\\_sales",
                TableTypes = new List<string> { "TABLE" },
                GetDirectResults = MockDatabricksClient.DriverDirectResults(),
            });
            (_, List<string?[]> views) = await CallAsync("GetTables", session => new TGetTablesReq { SessionHandle = session, TableTypes = new List<string> { "VIEW" }, GetDirectResults = MockDatabricksClient.DriverDirectResults() });

            string?[] row = Assert.Single(found);
            Assert.Equal(new[] { "main", "tpcds_sf100_delta", "store_sales", "TABLE" }, row.Take(4));
            Assert.Equal(new[] { "main|default|trips_view|VIEW" }, views.Select(r => string.Join("|", r.Take(4))));
        }

        [Fact]
        public async Task GetColumns_DescribesEachColumn_WithJdbcTypesAndZeroBasedPositions()
        {
            (TMetadataResp response, List<string?[]> rows) = await CallAsync("GetColumns", session => new TGetColumnsReq
            {
                SessionHandle = session,
                CatalogName = "samples",
                SchemaName = "nyctaxi",
                TableName = "trips",
                GetDirectResults = MockDatabricksClient.DriverDirectResults(),
            });

            List<TColumnDesc> columns = response.DirectResults!.ResultSetMetadata!.Schema!.Columns;
            Assert.Equal(23, columns.Count);
            Assert.Equal(TTypeId.Int, columns.Single(c => c.ColumnName == "DATA_TYPE").TypeId);
            Assert.Equal(TTypeId.TinyInt, columns.Single(c => c.ColumnName == "BUFFER_LENGTH").TypeId);
            Assert.Equal(TTypeId.SmallInt, columns.Single(c => c.ColumnName == "SOURCE_DATA_TYPE").TypeId);

            // COLUMN_NAME, DATA_TYPE (java.sql.Types), TYPE_NAME, COLUMN_SIZE, DECIMAL_DIGITS, ORDINAL_POSITION, IS_NULLABLE
            Assert.Equal(
                new[]
                {
                    "tpep_pickup_datetime|93|TIMESTAMP|8|6|0|YES",
                    "tpep_dropoff_datetime|93|TIMESTAMP|8|6|1|YES",
                    "trip_distance|8|DOUBLE|8|15|2|YES",
                    "fare_amount|8|DOUBLE|8|15|3|YES",
                    "pickup_zip|4|INT|4|0|4|YES",
                    "dropoff_zip|4|INT|4|0|5|YES",
                },
                rows.Select(r => string.Join("|", r[3], r[4], r[5], r[6], r[8], r[16], r[17])));
        }

        [Fact]
        public async Task GetColumns_OfTheFixtureTable_NamesEveryTypeAsSparkDoes()
        {
            (_, List<string?[]> rows) = await CallAsync("GetColumns", session => new TGetColumnsReq
            {
                SessionHandle = session,
                CatalogName = "main",
                SchemaName = "adbc_testing",
                TableName = "all\\_column\\_types",
                ColumnName = "c\\_%",
                GetDirectResults = MockDatabricksClient.DriverDirectResults(),
            });

            Assert.Equal(
                new[]
                {
                    "TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL(10,2)", "FLOAT", "DOUBLE", "STRING", "BINARY", "BOOLEAN", "DATE", "TIMESTAMP",
                    "TIMESTAMP_NTZ", "INTERVAL YEAR TO MONTH", "INTERVAL DAY TO SECOND", "ARRAY<INT>", "MAP<STRING, INT>", "STRUCT<f1: STRING, f2: INT, f3: ARRAY<DOUBLE>>", "VARIANT", "VOID",
                },
                rows.Select(r => r[5]));
            Assert.Equal(new[] { "-6", "5", "4", "-5", "3", "6", "8", "12", "-2", "16", "91", "93", "93", "1111", "1111", "2003", "2000", "2002", "1111", "0" }, rows.Select(r => r[4]));
            Assert.Equal(new[] { "c_int", "c_string" }, rows.Where(r => r[10] == "0").Select(r => r[3]));
        }

        [Fact]
        public async Task GetTableTypes_AndKeys_AnswerFromTheCatalog()
        {
            (_, List<string?[]> types) = await CallAsync("GetTableTypes", session => new TGetTableTypesReq { SessionHandle = session, GetDirectResults = MockDatabricksClient.DriverDirectResults() });
            (TMetadataResp primaryResponse, List<string?[]> primary) = await CallAsync("GetPrimaryKeys", session => new TGetPrimaryKeysReq
            {
                SessionHandle = session,
                CatalogName = "main",
                SchemaName = "adbc_testing",
                TableName = "all_column_types",
                GetDirectResults = MockDatabricksClient.DriverDirectResults(),
            });
            (_, List<string?[]> foreign) = await CallAsync("GetCrossReference", session => new TGetCrossReferenceReq
            {
                SessionHandle = session,
                ParentCatalogName = "main",
                ParentSchemaName = "adbc_testing",
                ParentTableName = "fk_test_ref_table",
                ForeignCatalogName = "main",
                ForeignSchemaName = "adbc_testing",
                ForeignTableName = "all_column_types",
                GetDirectResults = MockDatabricksClient.DriverDirectResults(),
            });

            Assert.Equal(new[] { "TABLE", "VIEW" }, types.Select(r => r[0]));
            Assert.Equal(new[] { "c_string|1", "c_int|2" }, primary.Select(r => $"{r[3]}|{r[4]}"));
            Assert.Equal(
                new[] { "TABLE_CAT", "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "KEQ_SEQ", "PK_NAME" },
                primaryResponse.DirectResults!.ResultSetMetadata!.Schema!.Columns.Select(c => c.ColumnName));
            Assert.Equal(new[] { "r_bigint->c_bigint|1", "r_boolean->c_boolean|2" }, foreign.Select(r => $"{r[3]}->{r[7]}|{r[8]}"));
        }

        [Fact]
        public async Task ASessionWithoutMultipleCatalogs_SeesOnlyItsCatalog_AndIsToldSo()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TOpenSessionResp opened = await client.CallAsync<TOpenSessionResp>("OpenSession", new TOpenSessionReq
            {
                ClientProtocol = TProtocolVersion.SparkV7,
                CanUseMultipleCatalogs = false,
                InitialNamespace = new TNamespace { SchemaName = "default" },
            });
            TSessionHandle session = opened.SessionHandle!;

            TMetadataResp tables = await client.MetadataAsync("GetTables", new TGetTablesReq { SessionHandle = session, SchemaName = "default", GetDirectResults = MockDatabricksClient.DriverDirectResults() });

            Assert.False(opened.CanUseMultipleCatalogs);
            Assert.Null(opened.InitialNamespace!.CatalogName);
            Assert.Equal(new[] { "hive_metastore|default|trips" }, Rows(tables.DirectResults!.ResultSet!.Results!).Select(r => string.Join("|", r.Take(3))));
        }

        [Fact]
        public async Task OpenSession_AnswersTheNamespaceTheSessionIsIn()
        {
            using MockDatabricksClient client = fixture.NewClient();

            TOpenSessionResp unnamed = await client.CallAsync<TOpenSessionResp>("OpenSession", new TOpenSessionReq { ClientProtocol = TProtocolVersion.SparkV7, CanUseMultipleCatalogs = true });
            TOpenSessionResp named = await client.CallAsync<TOpenSessionResp>("OpenSession", new TOpenSessionReq
            {
                ClientProtocol = TProtocolVersion.SparkV7,
                CanUseMultipleCatalogs = true,
                InitialNamespace = new TNamespace { CatalogName = "main", SchemaName = "tpcds_sf100_delta" },
            });

            Assert.Equal(("hive_metastore", "default"), (unnamed.InitialNamespace!.CatalogName, unnamed.InitialNamespace.SchemaName));
            Assert.Equal(("main", "tpcds_sf100_delta"), (named.InitialNamespace!.CatalogName, named.InitialNamespace.SchemaName));
            Assert.True(named.CanUseMultipleCatalogs);
        }

        [Fact]
        public async Task WithoutDirectResults_TheAnswerComesFromFetchResults()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);

            TMetadataResp response = await client.MetadataAsync("GetCatalogs", new TGetCatalogsReq { SessionHandle = session });
            TGetResultSetMetadataResp metadata = await client.GetResultSetMetadataAsync(response.OperationHandle!);
            TFetchResultsResp fetched = await client.FetchResultsAsync(response.OperationHandle!, 1000);

            Assert.Null(response.DirectResults);
            Assert.Equal(TSparkRowSetType.ColumnBasedSet, metadata.ResultFormat);
            Assert.Equal(new[] { "hive_metastore", "main", "samples" }, Rows(fetched.Results!).Select(r => r[0]));
            Assert.False(fetched.HasMoreRows);
        }

        private async Task<(TMetadataResp Response, List<string?[]> Rows)> CallAsync(string method, Func<TSessionHandle, Thrift.Protocol.TBase> request)
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            TMetadataResp response = await client.MetadataAsync(method, request(session));
            Assert.Equal(TStatusCode.Success, response.Status.StatusCode);
            Assert.Equal(TOperationState.Finished, response.DirectResults!.OperationStatus!.OperationState);
            return (response, Rows(response.DirectResults.ResultSet!.Results!));
        }

        /// <summary>A column-based row set as text rows: each value's string form, null for a null.</summary>
        private static List<string?[]> Rows(TRowSet rowSet)
        {
            List<TColumn> columns = rowSet.Columns!;
            int count = columns.Count == 0 ? 0 : Values(columns[0]).Count;
            return Enumerable.Range(0, count).Select(row => columns.Select(c => Values(c)[row]).ToArray()).ToList();
        }

        private static List<string?> Values(TColumn column) => column switch
        {
            { StringVal: { } s } => s.Values.Select((v, i) => ColumnBasedSet.IsNull(s.Nulls, i) ? null : v).ToList(),
            { I32Val: { } n } => Numbers(n.Values, n.Nulls),
            { I16Val: { } n } => Numbers(n.Values, n.Nulls),
            { ByteVal: { } n } => Numbers(n.Values, n.Nulls),
            _ => throw new InvalidOperationException("The metadata answers have only string and integer columns."),
        };

        private static List<string?> Numbers<T>(List<T> values, byte[] nulls)
            where T : IFormattable =>
            values.Select((v, i) => ColumnBasedSet.IsNull(nulls, i) ? null : v.ToString(null, CultureInfo.InvariantCulture)).ToList();
    }
}
