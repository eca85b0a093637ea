namespace DriverOverlay.Tests
{
    /// <summary>Runs the overlay's frame decoder the simplest way, into a growable GC array.</summary>
    internal static class Lz4Decoding
    {
        public static byte[] Decode(byte[] compressed) => Decode(compressed, out _);

        public static byte[] Decode(byte[] compressed, out int frames)
        {
            // Sized exactly (every block measured), as DecompressToArray does; the scope paths are tested elsewhere.
            byte[] destination = new byte[Lz4FrameDecoder.Bounds(compressed, Lz4Measure.All).Upper];
            int length = Lz4FrameDecoder.Decode(compressed, destination, out frames);
            Assert.Equal(destination.Length, length);
            return destination;
        }
    }
}
