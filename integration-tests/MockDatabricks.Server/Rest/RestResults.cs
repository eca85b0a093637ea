using Apache.Arrow;
using MockDatabricks.Protocol.Lz4;
using MockDatabricks.Server.ResultSets;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Rest
{
    /// <summary>
    /// An operation's result cut into the REST API's chunks, from the same stored data sets as Thrift:
    /// <list type="bullet">
    /// <item>EXTERNAL_LINKS: chunk i is CloudFetch file i, its link issued by <see cref="ResultBuilder.IssueLinksAsync"/>
    /// as Thrift's are (the same URL form, expiry, and "expired" faults; a chunk fetched again gets a fresh link, which is
    /// the driver's refresh).</item>
    /// <item>INLINE + ARROW_STREAM: one Arrow IPC stream split across the chunks (chunk 0 starts with the schema, the
    /// last ends with the end-of-stream marker, each holds one record batch of batch_rows rows), each chunk LZ4-framed
    /// on its own when compressed: what the driver's InlineArrowStreamReader concatenates.</item>
    /// <item>INLINE + JSON_ARRAY: the same row ranges as data_array strings.</item>
    /// </list>
    /// A command's answer (SHOW, DESCRIBE, SET) is inline whatever the disposition; a result without rows has no chunks.
    /// </summary>
    public sealed class RestResults(ResultBuilder results)
    {
        private static readonly byte[] s_endOfStream = { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 };

        public static IReadOnlyList<RowRange> Ranges(MockOperation operation)
        {
            DatasetLayout layout = operation.Dataset.Layout;
            return operation.CloudFetch
                ? Enumerable.Range(0, layout.FileCount).Select(layout.File).ToList()
                : Enumerable.Range(0, (int)layout.InlineBatchCount).Select(i => layout.InlineBatch(i)).ToList();
        }

        public static ResultManifest Manifest(MockOperation operation, RestFormat format)
        {
            Schema schema = operation.Dataset.Schema;
            IReadOnlyList<RowRange> ranges = Ranges(operation);

            // Links carry the stored file size, known once the file is built; the manifest lists it for the files built so
            // far (the mock builds files as their links are issued, not all before the first reply).
            Dictionary<int, long> built = operation.CloudFetch
                ? operation.Dataset.BuiltFiles().ToDictionary(f => f.Index, f => f.Bytes)
                : new Dictionary<int, long>();
            List<ChunkInfo> chunks = ranges.Select(r => new ChunkInfo(r.Index, r.StartRow, r.RowCount, built.TryGetValue(r.Index, out long bytes) ? bytes : null)).ToList();
            return new ResultManifest
            {
                Format = format == RestFormat.JsonArray ? "JSON_ARRAY" : "ARROW_STREAM",
                Schema = new ResultSchema(schema.FieldsList.Count, schema.FieldsList.Select((f, i) => ArrowSqlTypes.Describe(f, i)).ToList()),
                TotalChunkCount = chunks.Count,
                Chunks = chunks,
                TotalRowCount = ranges.Sum(r => r.RowCount),
                TotalByteCount = operation.CloudFetch && chunks.All(c => c.ByteCount != null) ? chunks.Sum(c => c.ByteCount!.Value) : null,
                ResultCompression = operation.Lz4 && format == RestFormat.ArrowStream ? "LZ4_FRAME" : null,
            };
        }

        /// <summary>Chunk <paramref name="index"/>, or null when the result has no such chunk.</summary>
        public async Task<ResultData?> ChunkAsync(MockOperation operation, RestFormat format, int index, string baseUrl)
        {
            IReadOnlyList<RowRange> ranges = Ranges(operation);
            if (index < 0 || index >= ranges.Count)
            {
                return null;
            }

            RowRange range = ranges[index];
            int? next = index + 1 < ranges.Count ? index + 1 : null;
            string? nextLink = next is int n ? string.Create(CultureInfo.InvariantCulture, $"/api/2.0/sql/statements/{operation.Id}/result/chunks/{n}") : null;
            if (operation.CloudFetch)
            {
                ExternalLink link = await LinkAsync(operation, range, baseUrl, next, nextLink).ConfigureAwait(false);
                return new ResultData
                {
                    ChunkIndex = index,
                    RowOffset = range.StartRow,
                    RowCount = range.RowCount,
                    ByteCount = link.ByteCount,
                    ExternalLinks = new List<ExternalLink> { link },
                    NextChunkIndex = next,
                    NextChunkInternalLink = nextLink,
                };
            }

            if (format == RestFormat.JsonArray)
            {
                using RecordBatch generated = operation.Dataset.Generator.BuildBatch(range.StartRow, (int)range.RowCount);
                List<string?[]> rows = JsonArrayRows.From(generated);
                return new ResultData { ChunkIndex = index, RowOffset = range.StartRow, RowCount = range.RowCount, DataArray = rows, NextChunkIndex = next, NextChunkInternalLink = nextLink };
            }

            byte[] attachment = Attachment(operation, range, first: index == 0, last: next == null);
            return new ResultData
            {
                ChunkIndex = index,
                RowOffset = range.StartRow,
                RowCount = range.RowCount,
                ByteCount = attachment.Length,
                Attachment = attachment,
                NextChunkIndex = next,
                NextChunkInternalLink = nextLink,
            };
        }

        private async Task<ExternalLink> LinkAsync(MockOperation operation, RowRange file, string baseUrl, int? next, string? nextLink)
        {
            IssuedLink link = (await results.IssueLinksAsync(operation, baseUrl, new[] { file.Index }).ConfigureAwait(false)).Single();
            return new ExternalLink
            {
                ChunkIndex = file.Index,
                RowOffset = link.StartRow,
                RowCount = link.RowCount,
                ByteCount = link.Bytes,
                Url = link.Url,
                Expiration = DateTimeOffset.FromUnixTimeMilliseconds(link.ExpiryMs).UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture),
                NextChunkIndex = next,
                NextChunkInternalLink = nextLink,
            };
        }

        /// <summary>The chunk's piece of the result's Arrow IPC stream: [schema] record batch [end-of-stream], LZ4-framed when compressed.</summary>
        private static byte[] Attachment(MockOperation operation, RowRange range, bool first, bool last)
        {
            StoredDataset dataset = operation.Dataset;
            byte[] schema = first ? dataset.SchemaBytes : System.Array.Empty<byte>();
            byte[] batch = DatasetFiles.BuildInlineBatch(dataset.Generator, range, dataset.Types);
            byte[] piece = [.. schema, .. batch, .. (last ? s_endOfStream : System.Array.Empty<byte>())];
            return operation.Lz4 ? Lz4Framing.Encode(piece, dataset.Framing.Frame) : piece;
        }
    }
}
