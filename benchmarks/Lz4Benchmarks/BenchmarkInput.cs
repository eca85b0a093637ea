using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using Lz4Reference;
using MockDatabricks.Protocol.Data;

namespace Lz4Benchmarks
{
    /// <summary>
    /// One Databricks-like CloudFetch file: an Arrow IPC stream of about 20 MB with mixed columns (the mock
    /// server's deterministic data set), LZ4-framed by liblz4 in one of the <see cref="Framings"/>.
    /// </summary>
    internal sealed class BenchmarkInput
    {
        private BenchmarkInput(string framing, FrameOptions options, byte[] original, byte[] compressed)
        {
            Framing = framing;
            Options = options;
            Original = original;
            Compressed = compressed;
            Blocks = SplitBlocks(compressed);
        }

        public string Framing { get; }

        public FrameOptions Options { get; }

        public byte[] Original { get; }

        public byte[] Compressed { get; }

        /// <summary>The frame's blocks (stored flag, bytes), for the block-codec floors.</summary>
        public IReadOnlyList<(bool Stored, ArraySegment<byte> Bytes)> Blocks { get; }

        /// <summary>Output bytes that come from stored (incompressible, not LZ4-coded) blocks: copied, never decoded.</summary>
        public long StoredBytes => Blocks.Where(block => block.Stored).Sum(block => (long)block.Bytes.Count);

        /// <summary>The data set every framing holds: the mock's mixed columns, 150,000 rows in 5 record batches (the mock's 32,768 rows each, the last shorter).</summary>
        public static DatasetSpec Spec { get; } = new DatasetSpec { Rows = 150_000, Seed = 42, Profile = DatasetProfile.Mixed, RowsPerFile = 150_000 };

        public static BenchmarkInput Create(string framing)
        {
            var spec = Spec;
            var generator = new DatasetGenerator(spec);
            byte[] ipc = DatasetFiles.BuildIpcStream(generator, new DatasetLayout(spec), 0).Bytes;
            FrameOptions options = Framings.Options(framing);
            return new BenchmarkInput(framing, options, ipc, NativeLz4.CompressFrame(ipc, options));
        }

        /// <summary>
        /// Splits a single frame into its blocks. The benchmark parses the frame itself instead of borrowing the
        /// overlay's parser, so the floors stay the same whatever the overlay's internals become.
        /// </summary>
        private static List<(bool, ArraySegment<byte>)> SplitBlocks(byte[] frame)
        {
            byte flags = frame[4];
            bool blockChecksum = (flags & 0x10) != 0;
            bool contentSize = (flags & 0x08) != 0;
            bool dictionaryId = (flags & 0x01) != 0;
            int position = 4 + 2 + (contentSize ? 8 : 0) + (dictionaryId ? 4 : 0) + 1; // magic, FLG+BD, optional fields, header checksum
            var blocks = new List<(bool, ArraySegment<byte>)>();
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
                position += size + (blockChecksum ? 4 : 0);
            }
        }
    }

    /// <summary>The frame layouts the benchmark measures.</summary>
    internal static class Framings
    {
        /// <summary>4 MB independent blocks, no content checksum: lz4-java's LZ4FrameOutputStream defaults, as Databricks' frames declare.</summary>
        public const string Databricks = "4MB-independent";

        /// <summary>The same with a content checksum, which Databricks sends at least sometimes (a client failed on "Invalid stream checksum").</summary>
        public const string DatabricksChecksummed = "4MB-independent+content-checksum";

        /// <summary>liblz4's library defaults: 64 KB linked blocks.</summary>
        public const string Linked64K = "64KB-linked";

        public static readonly string[] All = { Databricks, DatabricksChecksummed, Linked64K };

        public static FrameOptions Options(string framing) => framing switch
        {
            Databricks => FrameOptions.Databricks,
            DatabricksChecksummed => FrameOptions.Databricks with { ContentChecksum = true },
            Linked64K => new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false },
            _ => throw new ArgumentException("unknown framing " + framing),
        };
    }
}
