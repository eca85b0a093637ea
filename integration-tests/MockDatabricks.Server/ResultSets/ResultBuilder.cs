using Apache.Arrow;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.ResultSets
{
    /// <summary>A CloudFetch link as issued, whichever protocol carries it: URL, expiry (epoch ms), the result rows of its file, the stored size.</summary>
    public sealed record IssuedLink(string Url, long ExpiryMs, long StartRow, long RowCount, long Bytes);

    /// <summary>Builds metadata and result chunks (links or inline batches) for an operation; shared by direct results and FetchResults.</summary>
    public sealed class ResultBuilder
    {
        private readonly AdminFaultRegistry _adminFaults;

        public ResultBuilder(AdminFaultRegistry adminFaults)
        {
            _adminFaults = adminFaults;
        }

        public static TGetResultSetMetadataResp Metadata(MockOperation operation)
        {
            // The descriptors name the SQL types; arrowSchema describes the Arrow data as served.
            List<TColumnDesc> columns = operation.Dataset.Generator.Fields.Select((f, i) => TColumnDesc.Of(f, i + 1)).ToList();
            var metadata = new TGetResultSetMetadataResp
            {
                Status = TStatus.Ok(),
                Schema = new TTableSchema { Columns = columns },
                ResultFormat = operation.ColumnBased ? TSparkRowSetType.ColumnBasedSet : operation.CloudFetch ? TSparkRowSetType.UrlBasedSet : TSparkRowSetType.ArrowBasedSet,
                Lz4Compressed = operation.Lz4,
            };
            if (!operation.ColumnBased)
            {
                metadata.ArrowSchema = operation.Dataset.SchemaBytes;
            }

            return metadata;
        }

        /// <summary>
        /// One chunk of results from <paramref name="startRowOffset"/> (or the operation's cursor). maxRows=1 with an
        /// offset is the driver's link refresh: it returns the link starting there with a fresh URL and does not move
        /// the cursor.
        /// </summary>
        public async Task<TFetchResultsResp> FetchAsync(MockOperation operation, string baseUrl, long? startRowOffset, long maxRows, long? maxBytes)
        {
            long start = startRowOffset ?? operation.Cursor;
            bool refresh = startRowOffset != null && maxRows == 1;
            maxRows = Math.Max(1, maxRows);
            if (operation.ColumnBased)
            {
                return ColumnChunk(operation, start, maxRows);
            }

            return operation.CloudFetch
                ? await LinkChunkAsync(operation, baseUrl, start, maxRows, refresh).ConfigureAwait(false)
                : InlineChunk(operation, start, maxRows, maxBytes ?? long.MaxValue);
        }

        private async Task<TFetchResultsResp> LinkChunkAsync(MockOperation operation, string baseUrl, long start, long maxRows, bool refresh)
        {
            StoredDataset dataset = operation.Dataset;
            long resultRows = operation.ResultRows;
            int first = start < resultRows ? dataset.Layout.FileContaining(start) : -1;
            if (first < 0)
            {
                return Done(start);
            }

            // Under LIMIT with limit_files=whole the result ends inside a file: that file is the last link.
            int lastFile = dataset.Layout.FileContaining(resultRows - 1);
            var indexes = new List<int>();
            long rows = 0;
            for (int index = first; index <= lastFile; index++)
            {
                long fileRows = dataset.Layout.File(index).RowCount;
                bool full = indexes.Count > 0 && (rows + fileRows > maxRows || (operation.Query.LinksPerFetch > 0 && indexes.Count >= operation.Query.LinksPerFetch));
                if (full)
                {
                    break;
                }

                indexes.Add(index);
                rows += fileRows;
            }

            IReadOnlyList<IssuedLink> issued = await IssueLinksAsync(operation, baseUrl, indexes).ConfigureAwait(false);
            List<TSparkArrowResultLink> links = issued.Select(link => new TSparkArrowResultLink
            {
                FileLink = link.Url,
                ExpiryTime = link.ExpiryMs,
                StartRowOffset = link.StartRow,
                RowCount = link.RowCount,
                BytesNum = link.Bytes,
            }).ToList();

            int last = indexes[^1];
            if (!refresh)
            {
                lock (operation.Lock)
                {
                    operation.Cursor = Math.Max(operation.Cursor, Math.Min(dataset.Layout.File(last).EndRow, resultRows));
                }
            }

            return new TFetchResultsResp
            {
                Status = TStatus.Ok(),
                HasMoreRows = last < lastFile,
                Results = new TRowSet { StartRowOffset = links[0].StartRowOffset, ResultLinks = links },
            };
        }

        /// <summary>
        /// Links to these CloudFetch files of the operation's result, each with a fresh URL and expiry (already expired, or
        /// about to, under an "expired" fault). The files are built first: a link carries the stored (compressed) size.
        /// </summary>
        public async Task<IReadOnlyList<IssuedLink>> IssueLinksAsync(MockOperation operation, string baseUrl, IReadOnlyList<int> indexes)
        {
            StoredFile[] files = await Task.WhenAll(indexes.Select(operation.Dataset.GetFileAsync)).ConfigureAwait(false);
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            var links = new List<IssuedLink>();
            foreach (StoredFile file in files)
            {
                int issue = operation.NextLinkIssue(file.Range.Index);
                long expiry = now + (operation.Query.ExpirySeconds * 1000L);
                FaultRule? expired = ExpiredFault(operation, file.Range.Index, issue);
                if (expired != null)
                {
                    // past: the driver must refresh before downloading; soon: inside its 60 s "expiring" margin.
                    expiry = expired.ExpireInPast ? now - 60_000 : now + 30_000;
                }

                // The rows of the file that belong to the result: all of them, except in the file LIMIT cuts when the
                // files are the whole data set's (limit_files=whole), where the file holds more rows than this.
                links.Add(new IssuedLink(
                    $"{baseUrl}/cloudfetch/{operation.Id}/{file.Range.Index}?issue={issue}&exp={expiry}",
                    expiry,
                    file.Range.StartRow,
                    Math.Min(file.Range.RowCount, operation.ResultRows - file.Range.StartRow),
                    file.Bytes.Length));
            }

            return links;
        }

        private FaultRule? ExpiredFault(MockOperation operation, int file, int issue)
        {
            FaultRule? rule = operation.Query.Faults.FirstOrDefault(f => f.Kind == FaultKind.Expired && f.AppliesToFile(file) && issue <= f.Times);
            return rule ?? _adminFaults.TakeDownloadFault(file, operation.Tag, FaultKind.Expired);
        }

        private static TFetchResultsResp InlineChunk(MockOperation operation, long start, long maxRows, long maxBytes)
        {
            StoredDataset dataset = operation.Dataset;
            long total = operation.ResultRows;
            if (start >= total)
            {
                return Done(start);
            }

            var batches = new List<TSparkArrowBatch>();
            long position = start;
            long rows = 0;
            long bytes = 0;
            while (position < total)
            {
                long count = Math.Min(dataset.Spec.RowsPerBatch, total - position);
                if (batches.Count > 0 && rows + count > maxRows)
                {
                    break;
                }

                byte[] payload = dataset.GetInlineBatch(position, count);
                if (batches.Count > 0 && bytes + payload.Length > maxBytes)
                {
                    break;
                }

                batches.Add(new TSparkArrowBatch { Batch = payload, RowCount = count });
                position += count;
                rows += count;
                bytes += payload.Length;
            }

            lock (operation.Lock)
            {
                operation.Cursor = position;
            }

            return new TFetchResultsResp
            {
                Status = TStatus.Ok(),
                HasMoreRows = position < total,
                Results = new TRowSet { StartRowOffset = start, ArrowBatches = batches },
            };
        }

        /// <summary>
        /// Column-based rows from <paramref name="start"/>: at most min(maxRows, batch_rows) per reply, built from the
        /// native batch (so timestamps and decimals are strings whatever useArrowNativeTypes says, as from a warehouse).
        /// </summary>
        private static TFetchResultsResp ColumnChunk(MockOperation operation, long start, long maxRows)
        {
            StoredDataset dataset = operation.Dataset;
            long total = operation.ResultRows;
            int count = (int)Math.Max(0, Math.Min(Math.Min(maxRows, dataset.Spec.RowsPerBatch), total - start));
            List<TColumn> columns;
            if (dataset.Spec.Table != null)
            {
                columns = ColumnBasedSet.From(dataset.Generator.Fields, dataset.Generator.GetValue, start, count);
            }
            else
            {
                using RecordBatch batch = dataset.Generator.BuildBatch(start, count);
                columns = ColumnBasedSet.From(batch);
            }

            lock (operation.Lock)
            {
                operation.Cursor = start + count;
            }

            return new TFetchResultsResp
            {
                Status = TStatus.Ok(),
                HasMoreRows = start + count < total,
                Results = new TRowSet { StartRowOffset = start, Columns = columns },
            };
        }

        /// <summary>End of results: no links and an empty (non-null) batch list, which ends both the CloudFetch and the inline reader.</summary>
        private static TFetchResultsResp Done(long start) => new TFetchResultsResp
        {
            Status = TStatus.Ok(),
            HasMoreRows = false,
            Results = new TRowSet { StartRowOffset = start, ArrowBatches = new List<TSparkArrowBatch>() },
        };
    }
}
