using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using MockDatabricks.Protocol.Arrow;

namespace MockDatabricks.Protocol.Lz4
{
    /// <summary>
    /// Writes the LZ4 frame format (magic 0x184D2204, FLG/BD descriptor with header checksum, size-prefixed
    /// blocks, EndMark, optional checksums). A block that does not shrink is stored uncompressed (high bit of its
    /// size set), as lz4-java and liblz4 do. Several frames can be written back to back: Databricks' last CloudFetch
    /// file often holds many frame ends, and decoders must keep going after each EndMark.
    /// </summary>
    public static class Lz4FrameEncoder
    {
        public const uint FrameMagic = 0x184D2204;

        public static byte[] Encode(ReadOnlySpan<byte> data, Lz4FrameOptions options)
        {
            var output = new ByteBuilder(Lz4BlockCompressor.MaxCompressedLength(data.Length) + 64);
            EncodeFrame(data, options, output);
            return output.ToArray();
        }

        /// <summary>Encodes <paramref name="data"/> as consecutive frames split at the given ascending offsets (0 and the length are implied).</summary>
        public static byte[] EncodeFrames(ReadOnlySpan<byte> data, Lz4FrameOptions options, IReadOnlyList<int> splitOffsets)
        {
            var output = new ByteBuilder(Lz4BlockCompressor.MaxCompressedLength(data.Length) + (64 * (splitOffsets.Count + 1)));
            int start = 0;
            foreach (int split in splitOffsets)
            {
                if (split < start || split > data.Length)
                {
                    throw new ArgumentException("Split offsets must be ascending and inside the data.", nameof(splitOffsets));
                }

                EncodeFrame(data.Slice(start, split - start), options, output);
                start = split;
            }

            EncodeFrame(data.Slice(start), options, output);
            return output.ToArray();
        }

        /// <summary>Split offsets that cut <paramref name="length"/> bytes into <paramref name="frameCount"/> nearly equal frames.</summary>
        public static int[] EvenSplits(int length, int frameCount)
        {
            if (frameCount <= 1)
            {
                return Array.Empty<int>();
            }

            var splits = new int[frameCount - 1];
            for (int i = 1; i < frameCount; i++)
            {
                splits[i - 1] = (int)((long)length * i / frameCount);
            }

            return splits;
        }

        public static void EncodeFrame(ReadOnlySpan<byte> data, Lz4FrameOptions options, ByteBuilder output)
        {
            output.AppendUInt32(FrameMagic);
            int descriptorStart = output.Length;
            byte flags = 0x40; // version 01
            if (options.IndependentBlocks)
            {
                flags |= 0x20;
            }

            if (options.BlockChecksum)
            {
                flags |= 0x10;
            }

            if (options.ContentSize)
            {
                flags |= 0x08;
            }

            if (options.ContentChecksum)
            {
                flags |= 0x04;
            }

            output.AppendByte(flags);
            output.AppendByte((byte)((int)options.BlockMaxSize << 4));
            if (options.ContentSize)
            {
                output.AppendInt64(data.Length);
            }

            uint headerHash = Xxh32.Hash(output.WrittenSpan.Slice(descriptorStart));
            output.AppendByte((byte)((headerHash >> 8) & 0xFF));

            int blockMax = options.BlockMaxBytes;
            int[] hashTable = Lz4BlockCompressor.CreateHashTable();
            for (int blockStart = 0; blockStart < data.Length; blockStart += blockMax)
            {
                int blockEnd = Math.Min(data.Length, blockStart + blockMax);
                int blockLength = blockEnd - blockStart;
                int lowLimit = options.IndependentBlocks ? blockStart : 0;
                Span<byte> target = output.GetSpan(4 + Lz4BlockCompressor.MaxCompressedLength(blockLength));
                int compressed = Lz4BlockCompressor.Compress(data, blockStart, blockEnd, lowLimit, target.Slice(4), hashTable);
                int stored;
                if (compressed < blockLength)
                {
                    BinaryPrimitives.WriteInt32LittleEndian(target, compressed);
                    stored = compressed;
                }
                else
                {
                    BinaryPrimitives.WriteUInt32LittleEndian(target, (uint)blockLength | 0x80000000U);
                    data.Slice(blockStart, blockLength).CopyTo(target.Slice(4));
                    stored = blockLength;
                }

                output.Advance(4 + stored);
                if (options.BlockChecksum)
                {
                    uint blockHash = Xxh32.Hash(output.WrittenSpan.Slice(output.Length - stored, stored));
                    output.AppendUInt32(blockHash);
                }
            }

            output.AppendUInt32(0); // EndMark
            if (options.ContentChecksum)
            {
                output.AppendUInt32(Xxh32.Hash(data));
            }
        }
    }
}
