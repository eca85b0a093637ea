using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using K4os.Compression.LZ4.Streams;
using K4os.Hash.xxHash;

namespace MockDatabricks.Protocol.Lz4
{
    /// <summary>
    /// LZ4 frames for files and inline batches, compressed by K4os (the library the driver decodes with).
    /// K4os writes the blocks; the mock only assembles frames around them for shapes K4os's writer cannot
    /// produce on its own: a content size in the header, and one frame whose blocks end early at chosen
    /// points (what a writer that flushes its encoder after every message sends).
    /// </summary>
    public static class Lz4Framing
    {
        public const uint FrameMagic = 0x184D2204;

        /// <summary>K4os's frame header: magic, FLG, BD, header checksum (no content size, no dictionary id).</summary>
        private const int K4osHeaderLength = 7;

        private const int EndMarkLength = 4;

        /// <summary>One frame holding <paramref name="data"/>.</summary>
        public static byte[] Encode(ReadOnlySpan<byte> data, Lz4FrameOptions options)
        {
            byte[] frame = EncodeWithK4os(data, options);
            if (!options.ContentSize)
            {
                return frame;
            }

            // Same blocks and trailer, under a header that also declares the content size.
            byte[] header = Header(options, data.Length);
            byte[] result = new byte[header.Length + frame.Length - K4osHeaderLength];
            header.CopyTo(result, 0);
            frame.AsSpan(K4osHeaderLength).CopyTo(result.AsSpan(header.Length));
            return result;
        }

        /// <summary>Concatenated frames, one per piece between the cut offsets (ascending, inside the data).</summary>
        public static byte[] EncodeFrames(ReadOnlySpan<byte> data, Lz4FrameOptions options, IReadOnlyList<int> cuts)
        {
            using var output = new MemoryStream((data.Length / 2) + 1024);
            int start = 0;
            for (int i = 0; i <= cuts.Count; i++)
            {
                int end = i < cuts.Count ? cuts[i] : data.Length;
                output.Write(Encode(data[start..end], options));
                start = end;
            }

            return output.ToArray();
        }

        /// <summary>
        /// One frame whose blocks end at every flush point, so blocks are smaller than the declared maximum: each
        /// piece is compressed by K4os on its own and its blocks are kept, under one header, one end mark and (if
        /// asked) one content checksum over all the data.
        /// </summary>
        public static byte[] EncodeFlushed(ReadOnlySpan<byte> data, Lz4FrameOptions options, IReadOnlyList<int> flushPoints)
        {
            Lz4FrameOptions pieceOptions = options with { ContentChecksum = false, ContentSize = false };
            using var output = new MemoryStream((data.Length / 2) + 1024);
            output.Write(Header(options, data.Length));
            int start = 0;
            for (int i = 0; i <= flushPoints.Count; i++)
            {
                int end = i < flushPoints.Count ? flushPoints[i] : data.Length;
                byte[] piece = EncodeWithK4os(data[start..end], pieceOptions);
                output.Write(piece.AsSpan(K4osHeaderLength, piece.Length - K4osHeaderLength - EndMarkLength));
                start = end;
            }

            Span<byte> trailer = stackalloc byte[8];
            trailer.Clear();
            BinaryPrimitives.WriteUInt32LittleEndian(trailer.Slice(4), XXH32.DigestOf(data));
            output.Write(trailer.Slice(0, options.ContentChecksum ? 8 : 4));
            return output.ToArray();
        }

        /// <summary>Cut offsets for <paramref name="parts"/> pieces of about equal length.</summary>
        public static int[] EvenSplits(int length, int parts)
        {
            var cuts = new int[Math.Max(0, parts - 1)];
            for (int i = 0; i < cuts.Length; i++)
            {
                cuts[i] = (int)((long)length * (i + 1) / parts);
            }

            return cuts;
        }

        /// <summary>A frame header for these options (LZ4 frame format 1.6.x), with the content size when asked for.</summary>
        public static byte[] Header(Lz4FrameOptions options, long contentSize)
        {
            byte flags = (byte)(0x40
                | (options.IndependentBlocks ? 0x20 : 0)
                | (options.BlockChecksum ? 0x10 : 0)
                | (options.ContentSize ? 0x08 : 0)
                | (options.ContentChecksum ? 0x04 : 0));
            int descriptorLength = options.ContentSize ? 10 : 2;
            byte[] header = new byte[4 + descriptorLength + 1];
            BinaryPrimitives.WriteUInt32LittleEndian(header, FrameMagic);
            header[4] = flags;
            header[5] = (byte)((int)options.BlockMaxSize << 4);
            if (options.ContentSize)
            {
                BinaryPrimitives.WriteInt64LittleEndian(header.AsSpan(6), contentSize);
            }

            header[^1] = (byte)(XXH32.DigestOf(header.AsSpan(4, descriptorLength)) >> 8);
            return header;
        }

        private static byte[] EncodeWithK4os(ReadOnlySpan<byte> data, Lz4FrameOptions options)
        {
            using var output = new MemoryStream((data.Length / 2) + 1024);
            using (LZ4EncoderStream encoder = LZ4Stream.Encode(output, options.ToEncoderSettings(), leaveOpen: true))
            {
                encoder.Write(data);
            }

            return output.ToArray();
        }
    }
}
