using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Types;
using MockDatabricks.Protocol.Cli;
using MockDatabricks.Protocol.Data;
using MockDatabricks.Protocol.Lz4;
using MockDatabricks.Server.Faults;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.ResultSets
{
    /// <summary>Builds metadata and result chunks (links or inline batches) for an operation; shared by direct results and FetchResults.</summary>
    public sealed class ResultBuilder
    {
        private readonly AdminFaultRegistry _adminFaults;

        public ResultBuilder(AdminFaultRegistry adminFaults)
        {
            _adminFaults = adminFaults;
        }

        public static Schema SchemaOf(MockOperation operation) =>
            operation.StaticSchema ?? operation.Dataset?.Schema ?? throw new InvalidOperationException("Operation without schema.");

        public static TGetResultSetMetadataResp Metadata(MockOperation operation)
        {
            Schema schema = SchemaOf(operation);
            return new TGetResultSetMetadataResp
            {
                Status = TStatus.Ok(),
                Schema = new TTableSchema
                {
                    Columns = schema.FieldsList.Select((f, i) => TColumnDesc.Primitive(f.Name, ThriftTypeOf(f.DataType), i + 1)).ToList(),
                },
                ResultFormat = operation.CloudFetch ? TSparkRowSetType.UrlBasedSet : TSparkRowSetType.ArrowBasedSet,
                Lz4Compressed = operation.Lz4,
                ArrowSchema = operation.Dataset?.SchemaBytes ?? DatasetFiles.SchemaMessage(schema),
            };
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
            if (operation.Dataset == null)
            {
                return StaticChunk(operation, start);
            }

            return operation.CloudFetch
                ? await LinkChunkAsync(operation, baseUrl, start, maxRows, refresh).ConfigureAwait(false)
                : InlineChunk(operation, start, maxRows, maxBytes ?? long.MaxValue);
        }

        private async Task<TFetchResultsResp> LinkChunkAsync(MockOperation operation, string baseUrl, long start, long maxRows, bool refresh)
        {
            StoredDataset dataset = operation.Dataset!;
            int first = dataset.Layout.FileContaining(start);
            if (first < 0)
            {
                return Done(start);
            }

            var indexes = new List<int>();
            long rows = 0;
            for (int index = first; index < dataset.Layout.FileCount; index++)
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

            // bytesNum is the stored (compressed) size, so the files must exist before their links do.
            StoredFile[] files = await Task.WhenAll(indexes.Select(dataset.GetFileAsync)).ConfigureAwait(false);
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            var links = new List<TSparkArrowResultLink>();
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

                links.Add(new TSparkArrowResultLink
                {
                    FileLink = $"{baseUrl}/cloudfetch/{operation.Id}/{file.Range.Index}?issue={issue}&exp={expiry}",
                    ExpiryTime = expiry,
                    StartRowOffset = file.Range.StartRow,
                    RowCount = file.Range.RowCount,
                    BytesNum = file.Bytes.Length,
                });
            }

            int last = indexes[^1];
            if (!refresh)
            {
                lock (operation.Lock)
                {
                    operation.Cursor = Math.Max(operation.Cursor, dataset.Layout.File(last).EndRow);
                }
            }

            return new TFetchResultsResp
            {
                Status = TStatus.Ok(),
                HasMoreRows = last < dataset.Layout.FileCount - 1,
                Results = new TRowSet { StartRowOffset = links[0].StartRowOffset, ResultLinks = links },
            };
        }

        private FaultRule? ExpiredFault(MockOperation operation, int file, int issue)
        {
            FaultRule? rule = operation.Query.Faults.FirstOrDefault(f => f.Kind == FaultKind.Expired && f.AppliesToFile(file) && issue <= f.Times);
            return rule ?? _adminFaults.TakeDownloadFault(file, operation.Tag, FaultKind.Expired);
        }

        private static TFetchResultsResp InlineChunk(MockOperation operation, long start, long maxRows, long maxBytes)
        {
            StoredDataset dataset = operation.Dataset!;
            long total = dataset.Spec.Rows;
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

        private static TFetchResultsResp StaticChunk(MockOperation operation, long start)
        {
            var batches = new List<TSparkArrowBatch>();
            if (start == 0 && operation.StaticRows > 0 && operation.StaticBatch != null)
            {
                byte[] payload = operation.Lz4 ? Lz4Framing.Encode(operation.StaticBatch, Lz4FrameOptions.Databricks) : operation.StaticBatch;
                batches.Add(new TSparkArrowBatch { Batch = payload, RowCount = operation.StaticRows });
                lock (operation.Lock)
                {
                    operation.Cursor = operation.StaticRows;
                }
            }

            return new TFetchResultsResp
            {
                Status = TStatus.Ok(),
                HasMoreRows = false,
                Results = new TRowSet { StartRowOffset = start, ArrowBatches = batches },
            };
        }

        /// <summary>End of results: no links and an empty (non-null) batch list, which ends both the CloudFetch and the inline reader.</summary>
        private static TFetchResultsResp Done(long start) => new TFetchResultsResp
        {
            Status = TStatus.Ok(),
            HasMoreRows = false,
            Results = new TRowSet { StartRowOffset = start, ArrowBatches = new List<TSparkArrowBatch>() },
        };

        private static TTypeId ThriftTypeOf(IArrowType type) => type.TypeId switch
        {
            ArrowTypeId.Int32 => TTypeId.Int,
            ArrowTypeId.Int64 => TTypeId.BigInt,
            ArrowTypeId.Double => TTypeId.Double,
            ArrowTypeId.Decimal128 => TTypeId.Decimal,
            ArrowTypeId.String => TTypeId.String,
            ArrowTypeId.Timestamp => TTypeId.Timestamp,
            ArrowTypeId.Date32 => TTypeId.Date,
            ArrowTypeId.Boolean => TTypeId.Boolean,
            _ => throw new NotSupportedException($"The mock does not serve Arrow type {type.Name}."),
        };
    }
}
