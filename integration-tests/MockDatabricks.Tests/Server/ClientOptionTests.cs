using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Tests.Server
{
    /// <summary>
    /// What any client gets, not only one that asks what the ADBC driver asks: handles a UUID parser accepts, type
    /// qualifiers, warehouse strings when native Arrow types are turned off, column-based rows when Arrow is refused.
    /// Expected strings are written here with .NET's own formatting of the generator's values.
    /// </summary>
    [Collection(MockServerCollection.Name)]
    public class ClientOptionTests(MockServerFixture fixture)
    {
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 1_000, Seed = 17, RowsPerBatch = 300, RowsPerFile = 400 };

        [Fact]
        public async Task Handles_AreRandomUuidsInRfc4122ByteOrder()
        {
            using MockDatabricksClient client = fixture.NewClient();
            var identifiers = new List<THandleIdentifier>();
            for (int i = 0; i < 16; i++)
            {
                TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
                TExecuteStatementResp executed = await client.ExecuteStatementAsync(session, "SELECT 1");
                identifiers.Add(session.SessionId);
                identifiers.Add(executed.OperationHandle!.OperationId);
            }

            // Version 4 in the high nibble of byte 6, variant 10xx in byte 8: what uuid.stringify (Node) and
            // java.util.UUID readers check. .NET's Guid.ToByteArray() order fails the first about 15 times in 16.
            Assert.All(identifiers.SelectMany(h => new[] { h.Guid, h.Secret }), bytes =>
            {
                Assert.Equal(16, bytes.Length);
                Assert.Equal(4, bytes[6] >> 4);
                Assert.Equal(0x80, bytes[8] & 0xC0);
            });
            Assert.Equal(identifiers.Count, identifiers.Select(h => h.ToHex()).Distinct().Count());
        }

        [Fact]
        public async Task DecimalColumns_CarryPrecisionAndScale()
        {
            QueryOutcome outcome = await RunAsync("mode=inline", new ExecuteOptions());

            foreach (TColumnDesc column in outcome.Metadata.Schema!.Columns)
            {
                TTypeQualifiers? qualifiers = column.TypeDesc.Types[0].PrimitiveEntry.TypeQualifiers;
                if (column.ColumnName == "amount")
                {
                    Assert.Equal(TTypeId.Decimal, column.TypeId);
                    Assert.Equal(new[] { "precision", "scale" }, qualifiers!.Qualifiers.Keys.Order());
                    Assert.Equal(18, qualifiers.Qualifiers["precision"].I32Value);
                    Assert.Equal(4, qualifiers.Qualifiers["scale"].I32Value);
                }
                else
                {
                    Assert.Null(qualifiers);
                }
            }
        }

        [Theory]
        [InlineData("inline", false, false)]
        [InlineData("inline", true, false)]
        [InlineData("inline", false, true)]
        [InlineData("cloudfetch", false, false)]
        [InlineData("cloudfetch", true, true)]
        public async Task NativeTypesTurnedOff_TimestampsAndDecimalsComeAsWarehouseStrings(string mode, bool timestampAsArrow, bool decimalAsArrow)
        {
            var types = new TSparkArrowTypes { TimestampAsArrow = timestampAsArrow, DecimalAsArrow = decimalAsArrow, ComplexTypesAsArrow = false, IntervalTypesAsArrow = false };

            QueryOutcome outcome = await RunAsync($"mode={mode}", new ExecuteOptions { ArrowNativeTypes = types });

            Assert.Equal(mode == "cloudfetch", outcome.CloudFetch);
            AssertServedTypes(outcome, timestampAsArrow, decimalAsArrow);
            Assert.Equal(s_spec.Rows, VerifyValues(outcome.Batches));
        }

        [Fact]
        public async Task NativeTypesNotSent_TimestampsAndDecimalsComeAsWarehouseStrings()
        {
            QueryOutcome outcome = await RunAsync("mode=inline", new ExecuteOptions { ArrowNativeTypes = null });

            AssertServedTypes(outcome, timestampAsArrow: false, decimalAsArrow: false);
            Assert.Equal(s_spec.Rows, VerifyValues(outcome.Batches));
        }

        [Fact]
        public async Task ArrowRefused_RowsComeColumnBased_InlineAndUncompressed_EvenWhenCloudFetchIsAllowed()
        {
            using MockDatabricksClient client = fixture.NewClient();
            TSessionHandle session = await MockServerFixture.OpenSessionAsync(client);
            var options = new ExecuteOptions { CanReadArrowResult = false, CanDownloadResult = true, CanDecompressLz4 = true };

            TExecuteStatementResp executed = await client.ExecuteStatementAsync(session, MockSql.Select(s_spec, "mode=cloudfetch"), options);
            TGetResultSetMetadataResp metadata = executed.DirectResults!.ResultSetMetadata!;
            var pages = new List<TRowSet> { executed.DirectResults.ResultSet!.Results! };
            bool more = executed.DirectResults.ResultSet.HasMoreRows;
            while (more)
            {
                TFetchResultsResp fetched = await client.FetchResultsAsync(executed.OperationHandle!, 100_000);
                Assert.Equal(TStatusCode.Success, fetched.Status.StatusCode);
                pages.Add(fetched.Results!);
                more = fetched.HasMoreRows;
            }

            Assert.Equal(TSparkRowSetType.ColumnBasedSet, metadata.ResultFormat);
            Assert.Null(metadata.ArrowSchema);
            Assert.False(metadata.Lz4Compressed);
            Assert.All(pages, page => Assert.Null(page.ResultLinks));
            Assert.All(pages, page => Assert.Null(page.ArrowBatches));

            // At most batch_rows (300) rows per reply, in order.
            Assert.Equal(new long[] { 0, 300, 600, 900 }, pages.Select(p => p.StartRowOffset));
            var generator = new DatasetGenerator(s_spec);
            foreach (TRowSet page in pages)
            {
                VerifyColumns(generator, page);
            }
        }

        private Task<QueryOutcome> RunAsync(string settings, ExecuteOptions options) => fixture.QueryAsync(s_spec, settings, options);

        private static void AssertServedTypes(QueryOutcome outcome, bool timestampAsArrow, bool decimalAsArrow)
        {
            // The descriptors keep the SQL types; only the Arrow data (arrowSchema, batches, files) changes.
            Dictionary<string, TTypeId> described = outcome.Metadata.Schema!.Columns.ToDictionary(c => c.ColumnName, c => c.TypeId);
            Assert.Equal(TTypeId.Timestamp, described["created_at"]);
            Assert.Equal(TTypeId.Decimal, described["amount"]);
            Assert.All(outcome.Batches.Prepend(new RecordBatch(outcome.Schema, System.Array.Empty<IArrowArray>(), 0)), batch =>
            {
                Assert.Equal(timestampAsArrow ? ArrowTypeId.Timestamp : ArrowTypeId.String, batch.Schema.GetFieldByName("created_at").DataType.TypeId);
                Assert.Equal(decimalAsArrow ? ArrowTypeId.Decimal128 : ArrowTypeId.String, batch.Schema.GetFieldByName("amount").DataType.TypeId);
                Assert.Equal(ArrowTypeId.Date32, batch.Schema.GetFieldByName("event_date").DataType.TypeId);
            });
        }

        /// <summary>Every value of every batch: strings where the server sent strings, else the generator's own check.</summary>
        private static long VerifyValues(IEnumerable<RecordBatch> batches)
        {
            var generator = new DatasetGenerator(s_spec);
            long row = 0;
            foreach (RecordBatch batch in batches)
            {
                for (int i = 0; i < batch.Length; i++, row++)
                {
                    for (int column = 0; column < batch.ColumnCount; column++)
                    {
                        if (batch.Column(column) is StringArray strings && generator.Schema.FieldsList[column].DataType is not StringType)
                        {
                            object? expected = generator.GetValue(row, column);
                            Assert.Equal(expected == null ? null : WarehouseText(expected), strings.GetString(i));
                        }
                        else
                        {
                            Assert.True(generator.ValueEquals(row, column, batch.Column(column), i), $"row {row}, column {column}");
                        }
                    }
                }
            }

            return row;
        }

        private static void VerifyColumns(DatasetGenerator generator, TRowSet page)
        {
            Assert.Equal(generator.Schema.FieldsList.Count, page.Columns.Count);
            for (int column = 0; column < page.Columns.Count; column++)
            {
                TColumn values = page.Columns[column];
                (int count, byte[] nulls, Func<int, object?> valueAt) = generator.Schema.FieldsList[column].DataType switch
                {
                    Int64Type => (values.I64Val.Values.Count, values.I64Val.Nulls, i => values.I64Val.Values[i]),
                    Int32Type => (values.I32Val.Values.Count, values.I32Val.Nulls, i => values.I32Val.Values[i]),
                    DoubleType => (values.DoubleVal.Values.Count, values.DoubleVal.Nulls, i => values.DoubleVal.Values[i]),
                    BooleanType => (values.BoolVal.Values.Count, values.BoolVal.Nulls, i => values.BoolVal.Values[i]),
                    _ => (values.StringVal.Values.Count, values.StringVal.Nulls, (Func<int, object?>)(i => values.StringVal.Values[i])),
                };

                int lastNull = -1;
                for (int i = 0; i < count; i++)
                {
                    object? expected = generator.GetValue(page.StartRowOffset + i, column);
                    Assert.Equal(expected == null, ColumnBasedSet.IsNull(nulls, i));
                    lastNull = expected == null ? i : lastNull;
                    object? actual = valueAt(i);
                    object? wanted = expected switch
                    {
                        null => actual is string ? string.Empty : actual is bool ? false : Convert.ChangeType(0, actual!.GetType(), CultureInfo.InvariantCulture),
                        string or long or int or double or bool => expected,
                        _ => WarehouseText(expected),
                    };
                    Assert.Equal(wanted, actual);
                }

                // Hive's bitmap: 1 + (last null + 1) / 8 bytes, a zero byte for a column without nulls.
                Assert.Equal(1 + ((lastNull + 1) / 8), nulls.Length);
            }
        }

        /// <summary>Spark's toHiveString forms, written with .NET formatting: "2024-01-01 00:00:04.12", "-1234.5600", "2020-01-15".</summary>
        private static string WarehouseText(object? value) => value switch
        {
            DateTimeOffset t => t.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss.FFFFFF", CultureInfo.InvariantCulture),
            decimal d => d.ToString("0.0000", CultureInfo.InvariantCulture),
            DateOnly d => d.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture),
            _ => throw new ArgumentException($"no warehouse text for {value?.GetType().Name ?? "null"}"),
        };
    }
}
