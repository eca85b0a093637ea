using System.Globalization;
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

        /// <summary>One frame whose blocks end at every IPC message, as from an encoder flushed after each message: blocks smaller than the declared maximum.</summary>
        public bool FlushPerMessage { get; init; }

        public override string ToString() =>
            $"{Frame};frames={(FramePerMessage ? "per_message" : FramesPerFile.ToString(CultureInfo.InvariantCulture))}{(FlushPerMessage ? ";flush=per_message" : string.Empty)}";
    }
}
