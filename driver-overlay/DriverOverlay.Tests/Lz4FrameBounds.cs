namespace DriverOverlay.Tests
{
    /// <summary>The decoder's <see cref="Lz4FrameDecoder.Bounds"/> as the tests ask for them.</summary>
    internal static class Lz4FrameBounds
    {
        /// <summary>The exact decoded length (every block measured), or -1 when the input is malformed.</summary>
        public static long DecodedLengthBound(ReadOnlySpan<byte> source)
        {
            try
            {
                return Lz4FrameDecoder.Bounds(source, Lz4Measure.All).Upper;
            }
            catch (Lz4FormatException)
            {
                return -1;
            }
        }

        /// <summary>
        /// <see cref="Lz4FrameDecoder.Bounds"/> without measuring any block: <paramref name="upper"/> is never below and
        /// <paramref name="lower"/> never above the decoded length of input that decodes. False when malformed.
        /// </summary>
        public static bool HeaderBounds(ReadOnlySpan<byte> source, out long upper, out long lower)
        {
            try
            {
                Lz4SizeBounds bounds = Lz4FrameDecoder.Bounds(source, Lz4Measure.None);
                upper = bounds.Upper;
                lower = bounds.Lower;
                return true;
            }
            catch (Lz4FormatException)
            {
                upper = lower = -1;
                return false;
            }
        }
    }
}
