namespace Harness.Tests
{
    /// <summary>
    /// The mock's faults (statement grammar, see integration-tests/README.md) against any driver: a recoverable fault
    /// must end in every row correct, an unrecoverable one in an error; never in wrong or missing rows.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class FaultToleranceTests(HarnessFixture fixture, ITestOutputHelper output)
    {
        // Four files of 2,500 rows: fault selectors (files=1,3) hit files in the middle of the result.
        private static readonly DatasetSpec s_spec = new DatasetSpec { Rows = 10_000, Seed = 41, RowsPerFile = 2_500, RowsPerBatch = 1_000 };

        [Theory]
        [InlineData("expired")]
        [InlineData("expired mode=soon")]
        [InlineData("expired files=1,3 times=2")]
        public async Task ExpiredLinksAreRefreshed(string fault)
        {
            List<JournalEntry> journal = await RunWithFaultAsync(fault, "refresh");
            Run(journal).AssertAllRowsCorrect();

            // A refresh is a FetchResults that is not paging, at the expired file's start row offset: apache/arrow-adbc's
            // driver asks for one row (maxRows=1); adbc-drivers/databricks' asks with its batch size again, after the
            // server has said that no rows are left.
            int lastPage = journal.FindIndex(e => e.Method == "FetchResults" && e.Detail?.Contains("hasMoreRows=False") == true);
            List<JournalEntry> refreshes = journal
                .Where((e, i) => e.Method == "FetchResults" && (e.MaxRows == 1 || (lastPage >= 0 && i > lastPage)))
                .ToList();
            Assert.NotEmpty(refreshes);
            Assert.All(refreshes, e => Assert.Equal(0, (e.StartRowOffset ?? 0) % s_spec.RowsPerFile!.Value));
        }

        [Fact]
        public async Task Forbidden403OnALiveLinkIsRetried()
        {
            // Driver behaviour (tag 21, stock and patched alike): on 403 the downloader asks the result fetcher for a
            // fresh link, but the fetcher answers from its cache while the cached link is not near expiry, so the
            // driver GETs the same URL again without any FetchResults. A one-off 403 therefore heals by plain retry.
            List<JournalEntry> journal = await RunWithFaultAsync("http403 files=0", "forbidden");
            Run(journal).AssertAllRowsCorrect();
            Assert.Contains(journal, e => e.Kind == "download" && e.File == 0 && e.Status == 403);
            Assert.DoesNotContain(journal, e => e.Method == "FetchResults" && e.MaxRows == 1);
        }

        [Theory]
        [InlineData("http404 files=1")]
        [InlineData("http500 files=0,2")]
        [InlineData("http503 times=2")]
        [InlineData("http502 files=3")]
        [InlineData("slow delay_ms=300 files=2")]
        public async Task TransientDownloadErrorsAreRetried(string fault)
        {
            List<JournalEntry> journal = await RunWithFaultAsync(fault, "retry");
            Run(journal).AssertAllRowsCorrect();
            Assert.Contains(journal, e => e.Kind == "download" && e.Status >= 400 || e.Outcome == "slow");
        }

        [Theory]
        [InlineData("http500 files=1 times=always", 500, "status code does not indicate success: 500")]
        [InlineData("http404 files=2 times=always", 404, "status code does not indicate success: 404")]
        [InlineData("http403 files=0 times=always", 403, "after 3 attempts")]
        public async Task PersistentDownloadErrorEndsWithAClearError(string fault, int status, string expectedMessage)
        {
            List<JournalEntry> journal = await RunWithFaultAsync(fault, "final");
            Exception error = Run(journal).AssertFailed();
            string messages = AllMessages(error);
            output.WriteLine(messages);

            // "Clear" = the reader fails (no partial result passed off as complete) after the configured number of
            // attempts (adbc.databricks.cloudfetch.max_retries, default 3), and says why. Driver behaviour (tag 21,
            // stock and patched): the exception is the raw HttpRequestException for 404/5xx, and for a 403 on a live
            // link an InvalidOperationException "Failed to download file from <full presigned URL> after 3 attempts"
            // that names neither the status nor the refresh, and puts the whole URL, query string included, in the
            // message. Neither is an AdbcException. adbc-drivers/databricks (stock and patched) wraps every persistent
            // failure the way tag 21 wraps the 403: "Failed to download file from <sanitized URL> after 3 attempts over
            // N s (...). Last error: HttpRequestException", without the status.
            Assert.Equal(3, journal.Count(e => e.Kind == "download" && e.Status == status));
            Assert.True(messages.Contains(expectedMessage, StringComparison.Ordinal) || messages.Contains("after 3 attempts", StringComparison.Ordinal), messages);
        }

        [Theory]
        [InlineData("truncate files=1")]
        [InlineData("truncate at=0.1 files=0,3")]
        [InlineData("reset files=2")]
        [InlineData("reset at=0.9 files=0")]
        public async Task BrokenBodyOnceIsRetriedOrFails(string fault)
        {
            QueryOutcome outcome = await RunDescribedAsync(fault, "body-once");
            outcome.AssertCorrectOrFailed();
        }

        [Theory]
        [InlineData("truncate files=1 times=always")]
        [InlineData("reset files=2 times=always")]
        public async Task BrokenBodyAlwaysFails(string fault)
        {
            QueryOutcome outcome = await RunDescribedAsync(fault, "body-always");
            outcome.AssertFailed();
        }

        [Theory]
        [InlineData("corrupt_lz4 files=1", null)]
        [InlineData("corrupt_lz4 mode=magic files=2", null)]
        [InlineData("corrupt_lz4 mode=checksum files=0", "lz4_block_checksum=true, lz4_content_checksum=true")]
        public async Task CorruptLz4IsAnErrorNotWrongRows(string fault, string? encoding)
        {
            QueryOutcome outcome = await RunDescribedAsync(fault, "corrupt", encoding);
            outcome.AssertFailed();
        }

        [Fact]
        public void WrongTokenIsUnauthorized()
        {
            // Driver behaviour (tag 21, observed): a plain AdbcException (not a subclass) with status Unauthorized that
            // names the HTTP status the server sent.
            AdbcException error = Assert.Throws<AdbcException>(() =>
                Bounded.Run(() =>
                {
                    using AdbcDatabase database = fixture.OpenDatabase(token: "not-the-token");
                    using AdbcConnection connection = database.Connect(null);
                }, Bounded.Query, "connect with a wrong token"));
            output.WriteLine(AllMessages(error));
            Assert.Equal(AdbcStatusCode.Unauthorized, error.Status);
            Assert.StartsWith(
                "Couldn't connect to server: System.Net.Http.HttpRequestException: Response status code does not indicate success: 401 (Unauthorized).",
                error.Message,
                StringComparison.Ordinal);
        }

        [Theory]
        [InlineData("rpc_error method=ExecuteStatement message=table_is_gone", "direct=false", "table is gone")]
        [InlineData("rpc_http method=ExecuteStatement status=500 message=warehouse_down", "direct=false", "500")]
        [InlineData("rpc_error method=GetOperationStatus message=query_failed", "direct=false", "query failed")]
        public async Task ServerSideErrorReachesTheCaller(string fault, string extra, string message)
        {
            List<JournalEntry> journal = await RunWithFaultAsync(fault, "rpc", extra);
            Exception error = Run(journal).AssertFailed();
            Assert.Contains(message, AllMessages(error), StringComparison.Ordinal);
        }

        [SkippableTheory]
        [InlineData("direct=false")]
        [InlineData("links_per_fetch=1")]
        [InlineData("mode=inline, batch_rows=1000, direct=false")]
        public async Task FetchResultsErrorStatusIsNotASilentlyShortResult(string extra)
        {
            // A FetchResults answered with TStatus ERROR (HTTP 200). With links_per_fetch=1 the first links come with
            // direct results and the error hits the second page, mid-result.
            QueryOutcome outcome = await RunDescribedAsync("rpc_error method=FetchResults message=fetch_broke", "fetch-error", extra);
            KnownDriverBugs.SkipIfSilentlyShort(outcome,
                "neither the CloudFetch result fetcher (CloudFetchResultFetcher.FetchNextResultBatchAsync) nor the inline reader " +
                "(DatabricksReader.ReadNextRecordBatchAsync) of tag 21 checks TFetchResultsResp.Status, so a FetchResults answered " +
                "with ERROR_STATUS ends the stream early without an error");
            Exception error = outcome.AssertFailed();
            Assert.Contains("fetch broke", AllMessages(error), StringComparison.Ordinal);
        }

        private Task<List<JournalEntry>> RunWithFaultAsync(string fault, string tag, string? extra = null)
        {
            return RunAsync();

            async Task<List<JournalEntry>> RunAsync()
            {
                await fixture.Admin.ClearJournalAsync();
                string options = $"mode=cloudfetch, tag={tag}, faults='{fault}'" + (extra == null ? string.Empty : ", " + extra);
                _lastOutcome = DriverQueries.RunOnce(fixture, s_spec, options);
                List<JournalEntry> journal = await fixture.Admin.JournalAsync();
                foreach (JournalEntry e in journal.Where(e => e.Kind != "rpc" || e.Method != "GetOperationStatus"))
                {
                    output.WriteLine($"{e.Kind} {e.Method} offset={e.StartRowOffset} maxRows={e.MaxRows} file={e.File} {e.Status} {e.Outcome} {e.Detail}");
                }

                return journal;
            }
        }

        private QueryOutcome? _lastOutcome;

        /// <summary>Runs the query under <paramref name="fault"/> and writes what it got to the test output.</summary>
        private async Task<QueryOutcome> RunDescribedAsync(string fault, string tag, string? extra = null)
        {
            QueryOutcome outcome = Run(await RunWithFaultAsync(fault, tag, extra));
            output.WriteLine(outcome.Describe());
            return outcome;
        }

        private QueryOutcome Run(List<JournalEntry> journal) => _lastOutcome ?? throw new InvalidOperationException("no query ran");

        private static string AllMessages(Exception error)
        {
            var parts = new List<string>();
            for (Exception? e = error; e != null; e = e.InnerException)
            {
                parts.Add($"{e.GetType().Name}: {e.Message}");
                if (e is AggregateException aggregate)
                {
                    parts.AddRange(aggregate.InnerExceptions.Skip(1).Select(i => $"{i.GetType().Name}: {i.Message}"));
                }
            }

            return string.Join(" <- ", parts);
        }
    }
}
