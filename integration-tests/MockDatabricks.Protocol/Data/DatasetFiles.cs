using System;
using System.Collections.Generic;
using MockDatabricks.Protocol.Arrow;
using MockDatabricks.Protocol.Lz4;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>How a CloudFetch file's Arrow stream is LZ4-framed.</summary>
    public sealed record FileFraming
    {
        public static FileFraming Databricks { get; } = new FileFraming();

        public Lz4FrameOptions Frame { get; init; } = Lz4FrameOptions.Databricks;

        /// <summary>Number of concatenated LZ4 frames per file, cut at even byte offsets (1 = one frame).</summary>
        public int FramesPerFile { get; init; } = 1;

        /// <summary>One frame per IPC message (schema, each batch, EOS): the small trailing EOS frame is what trips naive decoders.</summary>
        public bool FramePerMessage { get; init; }

        public override string ToString() =>
            $"{Frame};frames={(FramePerMessage ? "per_message" : FramesPerFile.ToString(System.Globalization.CultureInfo.InvariantCulture))}";
    }

    /// <summary>An uncompressed Arrow IPC stream for one file, with the byte offset where each message starts.</summary>
    public sealed record IpcFile(byte[] Bytes, IReadOnlyList<int> MessageOffsets);

    /// <summary>Builds the bytes the server stores and serves: Arrow IPC streams per file, LZ4 framing, inline batch messages.</summary>
    public static class DatasetFiles
    {
        public static IpcFile BuildIpcStream(DatasetGenerator generator, DatasetLayout layout, int fileIndex)
        {
            RowRange file = layout.File(fileIndex);
            long estimate = file.RowCount * DatasetGenerator.EstimatedRowBytes(generator.Spec.Profile);
            var output = new ByteBuilder((int)Math.Min(Array.MaxLength, estimate + (estimate / 4) + 4096));
            var offsets = new List<int> { 0 };
            ArrowIpcWriter.WriteSchemaMessage(output, generator.Schema);
            foreach (RowRange batch in layout.Batches(file))
            {
                offsets.Add(output.Length);
                ArrowColumnBuilder[] builders = generator.CreateBuilders((int)batch.RowCount);
                generator.AppendRows(batch.StartRow, (int)batch.RowCount, builders);
                ArrowIpcWriter.WriteRecordBatchMessage(output, builders);
            }

            offsets.Add(output.Length);
            ArrowIpcWriter.WriteEndOfStream(output);
            return new IpcFile(output.ToArray(), offsets);
        }

        public static byte[] Compress(IpcFile file, FileFraming framing)
        {
            if (framing.FramePerMessage)
            {
                var splits = new List<int>();
                for (int i = 1; i < file.MessageOffsets.Count; i++)
                {
                    splits.Add(file.MessageOffsets[i]);
                }

                return Lz4FrameEncoder.EncodeFrames(file.Bytes, framing.Frame, splits);
            }

            return framing.FramesPerFile <= 1
                ? Lz4FrameEncoder.Encode(file.Bytes, framing.Frame)
                : Lz4FrameEncoder.EncodeFrames(file.Bytes, framing.Frame, Lz4FrameEncoder.EvenSplits(file.Bytes.Length, framing.FramesPerFile));
        }

        /// <summary>One encapsulated RecordBatch message (no schema) for an inline TSparkArrowBatch.</summary>
        public static byte[] BuildInlineBatch(DatasetGenerator generator, RowRange range)
        {
            ArrowColumnBuilder[] builders = generator.CreateBuilders((int)range.RowCount);
            generator.AppendRows(range.StartRow, (int)range.RowCount, builders);
            return ArrowIpcWriter.RecordBatchMessage(builders);
        }
    }
}
