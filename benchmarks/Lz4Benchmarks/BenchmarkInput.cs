using System;
using System.Collections.Generic;
using System.Buffers.Binary;
using Apache.Arrow.Adbc.Drivers.Databricks;
using Lz4Reference;
using MockDatabricks.Protocol.Data;

namespace Lz4Benchmarks
{
    /// <summary>
    /// One Databricks-like CloudFetch file: an Arrow IPC stream of about 20 MB with mixed columns (the mock
    /// server's deterministic data set), LZ4-framed by liblz4 either the way Databricks does it (4 MB independent
    /// blocks) or with liblz4's defaults (64 KB linked blocks).
    /// </summary>
    internal sealed class BenchmarkInput
    {
        private BenchmarkInput(string framing, byte[] original, byte[] compressed)
        {
            Framing = framing;
            Original = original;
            Compressed = compressed;
            Blocks = SplitBlocks(compressed);
        }

        public string Framing { get; }

        public byte[] Original { get; }

        public byte[] Compressed { get; }

        /// <summary>The frame's compressed blocks (stored flag, bytes), for the block-codec floor.</summary>
        public IReadOnlyList<(bool Stored, ArraySegment<byte> Bytes)> Blocks { get; }

        public bool IndependentBlocks { get; private set; }

        public static BenchmarkInput Create(string framing)
        {
            var spec = new DatasetSpec { Rows = 150_000, Seed = 42, Profile = DatasetProfile.Mixed, RowsPerFile = 150_000 };
            var generator = new DatasetGenerator(spec);
            byte[] ipc = DatasetFiles.BuildIpcStream(generator, new DatasetLayout(spec), 0).Bytes;
            FrameOptions options = framing switch
            {
                Framings.Databricks => FrameOptions.Databricks,
                Framings.Linked64K => new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false },
                _ => throw new ArgumentException("unknown framing " + framing),
            };

            byte[] compressed = NativeLz4.CompressFrame(ipc, options);
            return new BenchmarkInput(framing, ipc, compressed) { IndependentBlocks = options.IndependentBlocks };
        }

        private static List<(bool, ArraySegment<byte>)> SplitBlocks(byte[] frame)
        {
            Lz4FrameHeader header = Lz4FrameHeader.Read(frame, 0);
            var blocks = new List<(bool, ArraySegment<byte>)>();
            int position = header.Length;
            while (true)
            {
                uint raw = BinaryPrimitives.ReadUInt32LittleEndian(frame.AsSpan(position));
                position += 4;
                if (raw == 0)
                {
                    return blocks;
                }

                int size = (int)(raw & 0x7FFFFFFF);
                blocks.Add(((raw & 0x80000000) != 0, new ArraySegment<byte>(frame, position, size)));
                position += size + (header.BlockChecksum ? 4 : 0);
            }
        }
    }

    internal static class Framings
    {
        public const string Databricks = "4MB-independent";
        public const string Linked64K = "64KB-linked";
    }
}
