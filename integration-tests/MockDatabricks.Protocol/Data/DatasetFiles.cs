using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using MockDatabricks.Protocol.Lz4;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>An uncompressed Arrow IPC stream for one file, with the byte offset where each message starts (schema, batches, EOS).</summary>
    public sealed record IpcFile(byte[] Bytes, IReadOnlyList<int> MessageOffsets);

    /// <summary>
    /// Builds the bytes the server stores and serves, all written by Apache.Arrow's <see cref="ArrowStreamWriter"/>:
    /// Arrow IPC streams per file, the arrowSchema metadata, inline batch messages; and their LZ4 framing.
    /// </summary>
    public static class DatasetFiles
    {
        /// <summary>One CloudFetch file's Arrow IPC stream; <paramref name="types"/> (default native) decides timestamps and decimals.</summary>
        public static IpcFile BuildIpcStream(DatasetGenerator generator, DatasetLayout layout, int fileIndex, ResultTypes? types = null)
        {
            types ??= ResultTypes.Native;
            RowRange file = layout.File(fileIndex);
            long estimate = file.RowCount * DatasetGenerator.EstimatedRowBytes(generator.Spec);
            using var output = new MemoryStream((int)Math.Min(System.Array.MaxLength, estimate + (estimate / 4) + 4096));
            var offsets = new List<int> { 0 };
            using (var writer = new ArrowStreamWriter(output, generator.ServedSchema(types), leaveOpen: true))
            {
                writer.WriteStart();
                foreach (RowRange range in layout.Batches(file))
                {
                    offsets.Add((int)output.Position);
                    using RecordBatch batch = generator.BuildServedBatch(range.StartRow, (int)range.RowCount, types);
                    writer.WriteRecordBatch(batch);
                }

                offsets.Add((int)output.Position);
                writer.WriteEnd();
            }

            return new IpcFile(output.ToArray(), offsets);
        }

        /// <summary>The file's LZ4 encoding: one frame (Databricks), N frames, a frame per message, or one frame flushed per message.</summary>
        public static byte[] Compress(IpcFile file, FileFraming framing)
        {
            int[] messageStarts = file.MessageOffsets.Skip(1).ToArray();
            if (framing.FramePerMessage)
            {
                return Lz4Framing.EncodeFrames(file.Bytes, framing.Frame, messageStarts);
            }

            if (framing.FlushPerMessage)
            {
                return Lz4Framing.EncodeFlushed(file.Bytes, framing.Frame, messageStarts);
            }

            return framing.FramesPerFile <= 1
                ? Lz4Framing.Encode(file.Bytes, framing.Frame)
                : Lz4Framing.EncodeFrames(file.Bytes, framing.Frame, Lz4Framing.EvenSplits(file.Bytes.Length, framing.FramesPerFile));
        }

        /// <summary>
        /// The arrowSchema metadata: one encapsulated Schema message, no end-of-stream marker. The driver reads it with
        /// ArrowStreamReader(...).Schema; the Python connector puts it in front of the inline batches and reads the
        /// whole as one stream, so Databricks cannot be sending an EOS there.
        /// </summary>
        public static byte[] SchemaMessage(Schema schema)
        {
            using var output = new MemoryStream();
            using var writer = new ArrowStreamWriter(output, schema, leaveOpen: true);
            writer.WriteStart();
            return output.ToArray();
        }

        /// <summary>One inline TSparkArrowBatch payload for rows of the data set.</summary>
        public static byte[] BuildInlineBatch(DatasetGenerator generator, RowRange range, ResultTypes? types = null)
        {
            using RecordBatch batch = generator.BuildServedBatch(range.StartRow, (int)range.RowCount, types ?? ResultTypes.Native);
            return RecordBatchMessage(batch);
        }

        /// <summary>
        /// One encapsulated RecordBatch message and nothing else (no schema before it, no end-of-stream after it):
        /// what Databricks puts in a TSparkArrowBatch and what ArrowSerializationHelpers.DeserializeRecordBatch reads.
        /// </summary>
        public static byte[] RecordBatchMessage(RecordBatch batch)
        {
            using var output = new MemoryStream();
            using var writer = new ArrowStreamWriter(output, batch.Schema, leaveOpen: true);
            writer.WriteStart();
            int schemaEnd = (int)output.Position;
            writer.WriteRecordBatch(batch);
            return output.GetBuffer().AsSpan(schemaEnd, (int)output.Length - schemaEnd).ToArray();
        }
    }
}
