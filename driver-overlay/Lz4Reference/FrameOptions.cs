namespace Lz4Reference
{
    /// <summary>LZ4 frame block maximum sizes, as encoded in the frame descriptor's BD byte.</summary>
    public enum BlockMaxSize
    {
        Max64KB = 4,
        Max256KB = 5,
        Max1MB = 6,
        Max4MB = 7,
    }

    /// <summary>Every option of the LZ4 frame format that the native encoder can write.</summary>
    public sealed record FrameOptions
    {
        public BlockMaxSize BlockSize { get; init; } = BlockMaxSize.Max4MB;

        /// <summary>True for independent blocks (what Databricks sends), false for linked blocks (liblz4's default).</summary>
        public bool IndependentBlocks { get; init; } = true;

        public bool ContentChecksum { get; init; }

        public bool BlockChecksum { get; init; }

        /// <summary>Writes the content size field into the frame header.</summary>
        public bool ContentSize { get; init; }

        /// <summary>0 is liblz4's default (fast); up to 12 for high compression.</summary>
        public int CompressionLevel { get; init; }

        /// <summary>Databricks-like: 4 MB independent blocks, no checksums.</summary>
        public static FrameOptions Databricks { get; } = new FrameOptions();

        public int BlockSizeBytes => BlockSize switch
        {
            BlockMaxSize.Max64KB => 64 * 1024,
            BlockMaxSize.Max256KB => 256 * 1024,
            BlockMaxSize.Max1MB => 1024 * 1024,
            _ => 4 * 1024 * 1024,
        };

        public override string ToString() =>
            $"{BlockSize},{(IndependentBlocks ? "independent" : "linked")}" +
            $"{(ContentChecksum ? ",content-checksum" : "")}{(BlockChecksum ? ",block-checksum" : "")}" +
            $"{(ContentSize ? ",content-size" : "")}";
    }
}
