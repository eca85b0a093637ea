using System.Buffers.Binary;

namespace MockDatabricks.Tests.Protocol
{
    /// <summary>One block of an LZ4 frame: where its data starts, how long it is, whether it is stored uncompressed.</summary>
    internal readonly record struct Lz4Block(int Offset, int Length, bool Stored);

    /// <summary>One frame: its FLG and BD bytes and its blocks.</summary>
    internal sealed record Lz4Frame(byte Flags, byte BlockDescriptor, IReadOnlyList<Lz4Block> Blocks);

    /// <summary>
    /// Walks the structure of concatenated LZ4 frames (format spec 1.6: header, blocks, end mark, optional
    /// content checksum) without decoding, so tests can count frames and blocks in what the mock serves.
    /// </summary>
    internal static class Lz4FrameLayout
    {
        public static List<Lz4Frame> Read(byte[] bytes)
        {
            var frames = new List<Lz4Frame>();
            int position = 0;
            while (position < bytes.Length)
            {
                if (BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(position)) != 0x184D2204)
                {
                    throw new FormatException($"No LZ4 frame magic at byte {position}.");
                }

                byte flags = bytes[position + 4];
                byte descriptor = bytes[position + 5];
                position += 7 + ((flags & 0x08) != 0 ? 8 : 0) + ((flags & 0x01) != 0 ? 4 : 0);
                var blocks = new List<Lz4Block>();
                while (true)
                {
                    uint word = BinaryPrimitives.ReadUInt32LittleEndian(bytes.AsSpan(position));
                    position += 4;
                    if (word == 0)
                    {
                        break;
                    }

                    int length = (int)(word & 0x7FFFFFFF);
                    blocks.Add(new Lz4Block(position, length, (word & 0x80000000) != 0));
                    position += length + ((flags & 0x10) != 0 ? 4 : 0);
                }

                position += (flags & 0x04) != 0 ? 4 : 0;
                frames.Add(new Lz4Frame(flags, descriptor, blocks));
            }

            return frames;
        }
    }
}
