using K4os.Compression.LZ4.Streams;

namespace MockDatabricks.Protocol.Lz4
{
    /// <summary>LZ4 frame block maximum sizes, with their BD-byte codes.</summary>
    public enum Lz4BlockMaxSize
    {
        Max64KB = 4,
        Max256KB = 5,
        Max1MB = 6,
        Max4MB = 7,
    }

    /// <summary>
    /// LZ4 frame options of the mock's files and inline batches. The defaults mimic what Databricks is believed to
    /// send (lz4-java's frame output stream: 4 MB blocks, independent, no checksums, no content size).
    /// </summary>
    public sealed record Lz4FrameOptions
    {
        public static Lz4FrameOptions Databricks { get; } = new Lz4FrameOptions();

        public Lz4BlockMaxSize BlockMaxSize { get; init; } = Lz4BlockMaxSize.Max4MB;

        /// <summary>True: each block stands alone. False: blocks may reference the previous 64 KB (liblz4's default).</summary>
        public bool IndependentBlocks { get; init; } = true;

        public bool BlockChecksum { get; init; }

        public bool ContentChecksum { get; init; }

        public bool ContentSize { get; init; }

        public int BlockMaxBytes => BlockMaxSize switch
        {
            Lz4BlockMaxSize.Max64KB => 64 * 1024,
            Lz4BlockMaxSize.Max256KB => 256 * 1024,
            Lz4BlockMaxSize.Max1MB => 1024 * 1024,
            _ => 4 * 1024 * 1024,
        };

        /// <summary>K4os settings for these options; the content size is written by <see cref="Lz4Framing"/> (K4os's stream writer does not).</summary>
        public LZ4EncoderSettings ToEncoderSettings() => new LZ4EncoderSettings
        {
            BlockSize = BlockMaxBytes,
            ChainBlocks = !IndependentBlocks,
            BlockChecksum = BlockChecksum,
            ContentChecksum = ContentChecksum,
        };

        public override string ToString() =>
            $"{BlockMaxSize},{(IndependentBlocks ? "independent" : "linked")}" +
            $"{(BlockChecksum ? ",block-checksum" : "")}{(ContentChecksum ? ",content-checksum" : "")}{(ContentSize ? ",content-size" : "")}";
    }
}
