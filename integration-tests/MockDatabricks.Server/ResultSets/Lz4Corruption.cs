using System.Buffers.Binary;
using K4os.Hash.xxHash;
using MockDatabricks.Protocol.Lz4;

namespace MockDatabricks.Server.ResultSets
{
    /// <summary>
    /// Corruptions that every conforming LZ4 frame decoder must reject (so a client that returns rows instead of
    /// an error is provably wrong), rather than random bit flips that could decode to plausible garbage.
    /// </summary>
    public static class Lz4Corruption
    {
        /// <summary>
        /// Rewrites the start of the first compressed block to "0 literals, match at offset 65535": at the start of
        /// a frame there is no history, so the offset points before the output and decoding must fail.
        /// Falls back to <see cref="BreakMagic"/> when the file has no compressed block.
        /// </summary>
        public static byte[] InvalidMatchOffset(byte[] frame)
        {
            byte[] copy = (byte[])frame.Clone();
            int position = FirstBlockPosition(copy, out bool blockChecksum);
            if (position < 0)
            {
                return BreakMagic(frame);
            }

            uint size = BinaryPrimitives.ReadUInt32LittleEndian(copy.AsSpan(position));
            if ((size & 0x80000000U) != 0 || size < 8)
            {
                return BreakMagic(frame);
            }

            int data = position + 4;
            copy[data] = 0x0F;      // token: 0 literals, match length 15 + extension
            copy[data + 1] = 0xFF;  // offset low
            copy[data + 2] = 0xFF;  // offset high -> 65535, beyond the 0 bytes decoded so far
            copy[data + 3] = 0x00;
            if (blockChecksum)
            {
                // Keep the block checksum valid so the failure is the decoder's, not the checksum's.
                uint hash = XXH32.DigestOf(copy.AsSpan(data, (int)size));
                BinaryPrimitives.WriteUInt32LittleEndian(copy.AsSpan(data + (int)size), hash);
            }

            return copy;
        }

        public static byte[] BreakMagic(byte[] frame)
        {
            byte[] copy = (byte[])frame.Clone();
            if (copy.Length >= 4)
            {
                copy[0] ^= 0x55;
            }

            return copy;
        }

        /// <summary>Flips a byte in the middle of the file: only checksums (block or content) can catch this one.</summary>
        public static byte[] FlipContentByte(byte[] frame)
        {
            byte[] copy = (byte[])frame.Clone();
            copy[copy.Length / 2] ^= 0x01;
            return copy;
        }

        private static int FirstBlockPosition(byte[] frame, out bool blockChecksum)
        {
            blockChecksum = false;
            if (frame.Length < 7 || BinaryPrimitives.ReadUInt32LittleEndian(frame) != Lz4Framing.FrameMagic)
            {
                return -1;
            }

            byte flags = frame[4];
            blockChecksum = (flags & 0x10) != 0;
            int position = 4 + 2 + ((flags & 0x08) != 0 ? 8 : 0) + ((flags & 0x01) != 0 ? 4 : 0) + 1;
            return position + 4 <= frame.Length ? position : -1;
        }
    }
}
