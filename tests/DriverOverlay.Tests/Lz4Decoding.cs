using System;
using Apache.Arrow.Adbc.Drivers.Databricks;

namespace DriverOverlay.Tests
{
    /// <summary>Runs the overlay's frame decoder the simplest way, into a growable GC array.</summary>
    internal static class Lz4Decoding
    {
        public static byte[] Decode(byte[] compressed) => Decode(compressed, out _);

        public static byte[] Decode(byte[] compressed, out int frames)
        {
            var destination = new ArrayDestination(0);
            int length = Lz4FrameDecoder.Decode(compressed, destination, out frames);
            return destination.Buffer.AsSpan(0, length).ToArray();
        }
    }
}
