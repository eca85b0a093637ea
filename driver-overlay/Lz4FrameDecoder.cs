/*
* Licensed to the Apache Software Foundation (ASF) under one or more
* contributor license agreements.  See the NOTICE file distributed with
* this work for additional information regarding copyright ownership.
* The ASF licenses this file to You under the Apache License, Version 2.0
* (the "License"); you may not use this file except in compliance with
* the License.  You may obtain a copy of the License at
*
*    http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.Buffers.Binary;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Decodes LZ4 frames (the format Databricks uses for CloudFetch files and inline Arrow batches) block by block
    /// straight into one destination buffer.
    /// </summary>
    /// <remarks>
    /// Why not K4os' frame reader: it decodes each block into its own buffer and copies it out (a 4 MB native
    /// allocation per file for Databricks' 4 MB blocks), hashes every block even without a content checksum, and
    /// read through a stream it can report end-of-stream at a frame boundary, which loses the rest of a file made
    /// of several frames (Databricks' last file of a result often is). This decoder reads every concatenated and
    /// skippable frame until the input ends, verifies the checksums a frame declares, and never allocates more than
    /// the input can legally expand to.
    /// </remarks>
    internal static class Lz4FrameDecoder
    {
        public const uint FrameMagic = 0x184D2204;
        public const uint SkippableMagicMask = 0xFFFFFFF0;
        public const uint SkippableMagic = 0x184D2A50;
        public const uint LegacyMagic = 0x184C2102;

        // LZ4 cannot expand a byte of input into more than about 255 bytes of output (a run of 255-valued length
        // bytes); declared sizes beyond that are not trusted for pre-allocation.
        private const int MaxExpansion = 255;
        private const int MaxExpansionSlack = 64;

        /// <summary>
        /// Decodes all frames in <paramref name="source"/> into <paramref name="destination"/>, starting at its
        /// offset 0. Returns the number of decoded bytes and the number of LZ4 frames seen.
        /// </summary>
        /// <exception cref="Lz4FormatException">The input is malformed or truncated; nothing useful was produced.</exception>
        public static int Decode(ReadOnlySpan<byte> source, Lz4Destination destination, out int frameCount)
        {
            if (source.IsEmpty)
            {
                throw new Lz4FormatException("the input is empty; an LZ4 frame has at least 7 bytes", 0);
            }

            int position = 0;
            int written = 0;
            frameCount = 0;
            while (position < source.Length)
            {
                if (source.Length - position < 4)
                {
                    throw new Lz4FormatException(
                        $"{source.Length - position} trailing byte(s) after frame {frameCount}, too short for a frame's magic number",
                        position);
                }

                uint magic = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
                if (magic == FrameMagic)
                {
                    written = DecodeFrame(source, ref position, destination, written);
                    frameCount++;
                }
                else if ((magic & SkippableMagicMask) == SkippableMagic)
                {
                    position = SkipFrame(source, position);
                }
                else if (magic == LegacyMagic)
                {
                    throw new Lz4FormatException("the legacy LZ4 format (magic 0x184C2102) is not supported", position);
                }
                else
                {
                    throw new Lz4FormatException(
                        $"bad magic number 0x{magic:X8} (expected 0x{FrameMagic:X8}) after {frameCount} frame(s)",
                        position);
                }
            }

            return written;
        }

        /// <summary>
        /// An upper bound of the bytes <see cref="Decode"/> produces for <paramref name="source"/>, found by walking
        /// frame and block headers without copying anything; -1 when the input is malformed (<see cref="Decode"/>
        /// then reports exactly what is wrong). Checksums are not verified here.
        /// </summary>
        /// <remarks>
        /// Databricks' frames carry no content size, and a buffer sized by guesswork is either too small (regrown and
        /// copied) or too large (a bigger pool bucket, or none). Encoders fill every block of a frame but the last
        /// (lz4-java and liblz4 do), so the bound counts a compressed block before the last as the frame's block
        /// maximum and measures only the last one from its sequence tokens: exact for such frames at a fraction of
        /// the cost of measuring every block, and never too small for any valid frame. A declared content size is
        /// used when it is below that bound.
        /// </remarks>
        public static long DecodedLengthBound(ReadOnlySpan<byte> source)
        {
            try
            {
                return Bound(source, measureLastBlocks: true, out _);
            }
            catch (Lz4FormatException)
            {
                return -1;
            }
        }

        /// <summary>
        /// <see cref="DecodedLengthBound"/> from the headers alone, without measuring any block: each frame's last
        /// compressed block is counted at the block maximum in <paramref name="upper"/> and at its compressed size in
        /// <paramref name="lower"/> (what it decodes to, give or take, at the least). A caller whose buffer sizes are
        /// coarse can skip measuring when both land on the same size. False when the input is malformed.
        /// </summary>
        public static bool HeaderBounds(ReadOnlySpan<byte> source, out long upper, out long lower)
        {
            try
            {
                upper = Bound(source, measureLastBlocks: false, out lower);
                return upper >= 0;
            }
            catch (Lz4FormatException)
            {
                upper = lower = -1;
                return false;
            }
        }

        private static long Bound(ReadOnlySpan<byte> source, bool measureLastBlocks, out long lower)
        {
            lower = -1;
            if (source.IsEmpty)
            {
                return -1;
            }

            long total = 0;
            long lowerTotal = 0;
            int position = 0;
            while (position < source.Length)
            {
                if (source.Length - position < 4)
                {
                    return -1;
                }

                uint magic = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
                if ((magic & SkippableMagicMask) == SkippableMagic)
                {
                    position = SkipFrame(source, position);
                    continue;
                }

                if (magic != FrameMagic)
                {
                    return -1;
                }

                Lz4FrameHeader header = Lz4FrameHeader.Read(source, position);
                position += header.Length;
                int checksumLength = header.BlockChecksum ? 4 : 0;
                long frameBound = 0;
                long frameLower = 0;
                while (true)
                {
                    if (source.Length - position < 4)
                    {
                        return -1;
                    }

                    uint rawSize = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
                    position += 4;
                    if (rawSize == 0)
                    {
                        break;
                    }

                    int size = (int)(rawSize & 0x7FFFFFFFU);
                    if (size > header.BlockMaxSize || source.Length - position < size + checksumLength)
                    {
                        return -1;
                    }

                    int next = position + size + checksumLength;
                    bool lastBlock = source.Length - next >= 4 && BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(next)) == 0;
                    bool stored = (rawSize & 0x80000000U) != 0;
                    // An unmeasured block counts at the block maximum, but never beyond what its bytes can expand to:
                    // a frame of many tiny blocks must not size a buffer of megabytes per block.
                    long unmeasured = Math.Min(header.BlockMaxSize, (long)size * MaxExpansion + MaxExpansionSlack);
                    long blockBound = stored ? size
                        : !lastBlock ? unmeasured
                        : measureLastBlocks ? Lz4BlockDecoder.MeasureDecodedLength(source.Slice(position, size))
                        : unmeasured;
                    frameLower += stored || !lastBlock || measureLastBlocks ? blockBound : size;
                    if (blockBound < 0 || blockBound > header.BlockMaxSize)
                    {
                        return -1;
                    }

                    frameBound += blockBound;
                    position = next;
                }

                position += header.ContentChecksum ? 4 : 0;
                total += header.ContentSize.HasValue ? Math.Min(header.ContentSize.Value, frameBound) : frameBound;
                lowerTotal += header.ContentSize.HasValue ? Math.Min(header.ContentSize.Value, frameLower) : frameLower;
                if (total > Lz4Destination.MaxLength)
                {
                    return -1;
                }
            }

            if (position != source.Length)
            {
                return -1;
            }

            lower = lowerTotal;
            return total;
        }

        private static int SkipFrame(ReadOnlySpan<byte> source, int position)
        {
            if (source.Length - position < 8)
            {
                throw new Lz4FormatException("a skippable frame's size field is cut off", position);
            }

            uint size = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position + 4));
            if (size > (uint)(source.Length - position - 8))
            {
                throw new Lz4FormatException(
                    $"a skippable frame declares {size} bytes but only {source.Length - position - 8} remain",
                    position);
            }

            return position + 8 + (int)size;
        }

        private static int DecodeFrame(ReadOnlySpan<byte> source, ref int position, Lz4Destination destination, int written)
        {
            int frameStart = position;
            Lz4FrameHeader header = Lz4FrameHeader.Read(source, frameStart);
            position = frameStart + header.Length;
            int frameOutputStart = written;

            long remainingInput = source.Length - position;
            long contentLimit = long.MaxValue;
            if (header.ContentSize.HasValue)
            {
                long declared = header.ContentSize.Value;
                if (declared > Lz4Destination.MaxLength - (long)written)
                {
                    throw new Lz4FormatException(
                        $"the frame declares {declared} bytes of content, beyond the 2 GiB limit of one buffer",
                        frameStart);
                }

                contentLimit = declared;
                long plausible = Math.Min(declared, remainingInput * MaxExpansion);
                destination.EnsureCapacity(written + (int)plausible, written);
            }

            while (true)
            {
                if (source.Length - position < 4)
                {
                    throw new Lz4FormatException("the input ends inside a frame, where a block size or end mark is expected", position);
                }

                uint rawSize = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
                int blockStart = position;
                position += 4;
                if (rawSize == 0)
                {
                    break; // EndMark
                }

                bool stored = (rawSize & 0x80000000U) != 0;
                int size = (int)(rawSize & 0x7FFFFFFFU);
                if (size > header.BlockMaxSize)
                {
                    throw new Lz4FormatException(
                        $"a block of {size} bytes exceeds the frame's declared maximum of {header.BlockMaxSize}",
                        blockStart);
                }

                int checksumLength = header.BlockChecksum ? 4 : 0;
                if (source.Length - position < size + checksumLength)
                {
                    throw new Lz4FormatException(
                        $"a block declares {size} bytes{(checksumLength > 0 ? " plus a checksum" : "")} but only {source.Length - position} remain",
                        blockStart);
                }

                ReadOnlySpan<byte> block = source.Slice(position, size);
                if (header.BlockChecksum)
                {
                    uint expected = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position + size));
                    uint actual = Xxh32.Hash(block);
                    if (expected != actual)
                    {
                        throw new Lz4FormatException($"block checksum mismatch (expected 0x{expected:X8}, computed 0x{actual:X8})", blockStart);
                    }
                }

                long maxOutput = Math.Min(header.BlockMaxSize, contentLimit - (written - frameOutputStart));
                if (stored)
                {
                    if (size > maxOutput)
                    {
                        throw new Lz4FormatException("the frame decodes to more bytes than its declared content size", blockStart);
                    }

                    destination.EnsureCapacity(checked(written + size), written);
                    block.CopyTo(destination.Buffer.AsSpan(written));
                    written += size;
                }
                else
                {
                    written += DecodeBlock(block, destination, written, header.IndependentBlocks ? written : frameOutputStart, (int)maxOutput, blockStart);
                }

                position += size + checksumLength;
            }

            if (header.ContentChecksum)
            {
                if (source.Length - position < 4)
                {
                    throw new Lz4FormatException("the content checksum after the end mark is cut off", position);
                }

                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
                uint actual = Xxh32.Hash(destination.Buffer.AsSpan(frameOutputStart, written - frameOutputStart));
                if (expected != actual)
                {
                    throw new Lz4FormatException($"content checksum mismatch (expected 0x{expected:X8}, computed 0x{actual:X8})", position);
                }

                position += 4;
            }

            if (header.ContentSize.HasValue && written - frameOutputStart != header.ContentSize.Value)
            {
                throw new Lz4FormatException(
                    $"the frame declares {header.ContentSize.Value} bytes of content but decodes to {written - frameOutputStart}",
                    frameStart);
            }

            return written;
        }

        private static int DecodeBlock(ReadOnlySpan<byte> block, Lz4Destination destination, int written, int windowStart, int maxOutput, int blockStart)
        {
            if (written > Lz4Destination.MaxLength - maxOutput)
            {
                maxOutput = Lz4Destination.MaxLength - written;
            }

            // First try the room the destination already has: when the caller sized it exactly, the last block must
            // not force a regrowth just because a block *could* be as large as the frame's maximum.
            byte[] buffer = destination.Buffer;
            int limit = (int)Math.Min(buffer.Length, (long)written + maxOutput);
            int decoded = Lz4BlockDecoder.Decode(block, buffer.AsSpan(0, limit), written, windowStart, out Lz4BlockError error, out int errorPosition);
            if (decoded < 0 && error == Lz4BlockError.OutputOverflow && limit < written + maxOutput)
            {
                destination.EnsureCapacity(written + maxOutput, written);
                buffer = destination.Buffer;
                decoded = Lz4BlockDecoder.Decode(block, buffer.AsSpan(0, written + maxOutput), written, windowStart, out error, out errorPosition);
            }

            if (decoded < 0)
            {
                throw new Lz4FormatException(Lz4BlockDecoder.Describe(error), blockStart + 4 + errorPosition);
            }

            return decoded;
        }
    }
}
