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
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Decodes LZ4 frames (the format Databricks uses for CloudFetch files and inline Arrow batches) block by block
    /// straight into one destination array, each block with K4os' <c>LZ4Codec.Decode</c>.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Why not K4os' frame reader: it decodes each block into its own buffer and copies it out (a 4 MB native
    /// allocation per file for Databricks' 4 MB blocks), hashes every block even without a content checksum, and
    /// read through a stream it can report end-of-stream at a frame boundary, which loses the rest of a file made
    /// of several frames (Databricks' last file of a result often is). This decoder reads every concatenated and
    /// skippable frame until the input ends and verifies the checksums a frame declares; the blocks are decoded by
    /// K4os' block codec (which the driver already ships), linked blocks with the preceding output as their prefix.
    /// </para>
    /// <para>
    /// <see cref="Bounds"/> sizes the destination from the headers before decoding, so it never grows, and finds
    /// structural errors (truncation, bad headers, oversized blocks) before anything is allocated.
    /// </para>
    /// </remarks>
    internal static class Lz4FrameDecoder
    {
        public const uint FrameMagic = 0x184D2204;
        public const uint SkippableMagicMask = 0xFFFFFFF0;
        public const uint SkippableMagic = 0x184D2A50;
        public const uint LegacyMagic = 0x184C2102;

        /// <summary>The largest array the runtime allows (Array.MaxLength, which netstandard2.0 lacks).</summary>
        public const int MaxOutputLength = 0x7FFFFFC7;

        // An LZ4 block cannot expand a byte into more than 255 bytes of output (a run of 255-valued length bytes).
        private const int MaxExpansion = 255;
        private const int MaxExpansionSlack = 64;

        // Linked blocks may reference up to 64 KiB of the output before them.
        internal const int WindowSize = 64 * 1024;

        /// <summary>
        /// Decodes all frames of <paramref name="source"/> into <paramref name="destination"/> (which must hold
        /// <see cref="Bounds"/>' upper bound) from offset 0; returns the decoded length and the frames seen.
        /// </summary>
        /// <exception cref="Lz4FormatException">The input is malformed or truncated; nothing useful was produced.</exception>
        public static int Decode(ReadOnlySpan<byte> source, byte[] destination, out int frameCount) =>
            Walk(source, destination, Lz4Measure.None, out _, out frameCount);

        /// <summary>
        /// Bounds of what <see cref="Decode"/> produces for <paramref name="source"/>, from the frame and block headers
        /// (nothing is decoded, checksums are not verified). <paramref name="measure"/> chooses which compressed blocks
        /// are measured from their sequence tokens; with <see cref="Lz4Measure.All"/> the bounds are exact.
        /// </summary>
        /// <exception cref="Lz4FormatException">The input is structurally malformed (what Decode would report).</exception>
        public static Lz4SizeBounds Bounds(ReadOnlySpan<byte> source, Lz4Measure measure)
        {
            Walk(source, null, measure, out Lz4SizeBounds bounds, out _);
            return bounds;
        }

        /// <summary>
        /// Walks every frame: decodes into <paramref name="destination"/> when there is one, otherwise only bounds the
        /// output. One walk for both, so sizing and decoding agree on what is malformed and say it the same way.
        /// </summary>
        private static int Walk(ReadOnlySpan<byte> source, byte[]? destination, Lz4Measure measure, out Lz4SizeBounds bounds, out int frameCount)
        {
            if (source.IsEmpty)
            {
                throw new Lz4FormatException("the input is empty; an LZ4 frame has at least 7 bytes", 0);
            }

            int position = 0;
            int written = 0;
            int cleared = 0;
            long upper = 0;
            long lower = 0;
            long lastBlockSlack = 0;
            int largestBlockMax = 0;
            frameCount = 0;
            while (position < source.Length)
            {
                if (!NextFrame(source, ref position, frameCount, out Lz4FrameHeader header))
                {
                    continue; // a skippable frame, skipped
                }

                largestBlockMax = Math.Max(largestBlockMax, header.BlockMaxSize);
                if (destination != null)
                {
                    written = DecodeFrame(source, ref position, header, destination, written, ref cleared);
                }
                else
                {
                    BoundFrame(source, ref position, header, measure, ref upper, ref lower, ref lastBlockSlack);
                }

                frameCount++;
            }

            // Only a certain size is refused: the unmeasured upper bound counts every block at its frame's maximum, and
            // valid files (many small blocks under a 4 MiB maximum) can claim far more than they decode to.
            if (destination == null && (lower > MaxOutputLength || (measure == Lz4Measure.All && upper > MaxOutputLength)))
            {
                throw new Lz4FormatException(
                    $"the input decodes to {(measure == Lz4Measure.All ? upper : lower)}{(measure == Lz4Measure.All ? "" : " or more")} bytes, more than the 2 GiB one buffer can hold",
                    0);
            }

            bounds = new Lz4SizeBounds(upper, Math.Min(lower, upper), largestBlockMax, Math.Min(lastBlockSlack, upper));
            return written;
        }

        /// <summary>
        /// Reads what starts at <paramref name="position"/> (which must be before the input's end): a frame's header
        /// (true; <paramref name="position"/> moves to its first block) or a skippable frame (false; skipped). Anything
        /// else is an error naming how many frames came before (<paramref name="framesBefore"/>).
        /// </summary>
        internal static bool NextFrame(ReadOnlySpan<byte> source, ref int position, int framesBefore, out Lz4FrameHeader header)
        {
            header = default;
            if (source.Length - position < 4)
            {
                throw new Lz4FormatException(
                    position == 0
                        ? $"the input is {source.Length} byte(s), too short for an LZ4 frame (at least 7)"
                        : $"{source.Length - position} trailing byte(s) after frame {framesBefore}, too short for a frame's magic number",
                    position);
            }

            uint magic = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
            if (magic == FrameMagic)
            {
                header = Lz4FrameHeader.Read(source, position);
                position += header.Length;
                return true;
            }

            if ((magic & SkippableMagicMask) == SkippableMagic)
            {
                position = SkipFrame(source, position);
                return false;
            }

            if (magic == LegacyMagic)
            {
                throw new Lz4FormatException("the legacy LZ4 format (magic 0x184C2102) is not supported", position);
            }

            throw new Lz4FormatException($"bad magic number 0x{magic:X8} (expected 0x{FrameMagic:X8}) after {framesBefore} frame(s)", position);
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

        /// <summary>
        /// Reads the next block's size field at <paramref name="position"/>: false at the EndMark; otherwise the block's
        /// data, checked against the frame's maximum and the input's end. Advances past the size field.
        /// </summary>
        internal static bool NextBlock(ReadOnlySpan<byte> source, ref int position, Lz4FrameHeader header, out int blockStart, out bool stored, out int size)
        {
            if (source.Length - position < 4)
            {
                throw new Lz4FormatException("the input ends inside a frame, where a block size or end mark is expected", position);
            }

            uint rawSize = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position));
            blockStart = position;
            position += 4;
            stored = (rawSize & 0x80000000U) != 0;
            size = (int)(rawSize & 0x7FFFFFFFU);
            if (rawSize == 0)
            {
                return false; // EndMark
            }

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

            return true;
        }

        private static void SkipContentChecksum(ReadOnlySpan<byte> source, ref int position, Lz4FrameHeader header)
        {
            if (header.ContentChecksum)
            {
                if (source.Length - position < 4)
                {
                    throw new Lz4FormatException("the content checksum after the end mark is cut off", position);
                }

                position += 4;
            }
        }

        /// <summary>
        /// The data of the block whose size field <see cref="NextBlock"/> read at <paramref name="blockStart"/>, its block
        /// checksum verified, and the most it may decode to (<paramref name="maxOutput"/>): the frame's block maximum, or
        /// what its declared content size leaves after the <paramref name="frameOutput"/> bytes decoded before it.
        /// </summary>
        internal static ReadOnlySpan<byte> CheckedBlock(ReadOnlySpan<byte> source, Lz4FrameHeader header, long frameOutput, int blockStart, bool stored, int size, out int maxOutput)
        {
            ReadOnlySpan<byte> block = source.Slice(blockStart + 4, size);
            if (header.BlockChecksum)
            {
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(blockStart + 4 + size));
                uint actual = XXH32.DigestOf(block);
                if (expected != actual)
                {
                    throw new Lz4FormatException($"block checksum mismatch (expected 0x{expected:X8}, computed 0x{actual:X8})", blockStart);
                }
            }

            maxOutput = (int)Math.Min(header.BlockMaxSize, header.ContentSize.HasValue ? header.ContentSize.Value - frameOutput : long.MaxValue);
            if (stored && size > maxOutput)
            {
                throw new Lz4FormatException("the frame decodes to more bytes than its declared content size", blockStart);
            }

            return block;
        }

        /// <summary>
        /// After a frame's end mark (<paramref name="position"/> just past it): checks the content checksum the frame
        /// declares against <paramref name="contentHash"/> (the XXH32 of its output; ignored without one), then its
        /// declared content size against the <paramref name="frameOutput"/> bytes it decoded to.
        /// </summary>
        internal static void EndFrame(ReadOnlySpan<byte> source, ref int position, Lz4FrameHeader header, int frameStart, long frameOutput, uint contentHash)
        {
            if (header.ContentChecksum)
            {
                SkipContentChecksum(source, ref position, header);
                uint expected = BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(position - 4));
                if (expected != contentHash)
                {
                    throw new Lz4FormatException($"content checksum mismatch (expected 0x{expected:X8}, computed 0x{contentHash:X8})", position - 4);
                }
            }

            if (header.ContentSize.HasValue && frameOutput != header.ContentSize.Value)
            {
                throw ContentSizeMismatch(header, frameOutput, frameStart);
            }
        }

        /// <summary>
        /// Adds one frame's bounds. Unmeasured, a compressed block counts at most the frame's block maximum (or what
        /// its bytes can expand to, if less) in the upper bound, and half its compressed size in the lower bound:
        /// every LZ4 sequence decodes to at least 15/17 of its bytes, bar one final token. A declared content size
        /// lowers the upper bound (decoding verifies it) but never raises the lower one: a false one must not size
        /// a buffer.
        /// </summary>
        private static void BoundFrame(ReadOnlySpan<byte> source, ref int position, Lz4FrameHeader header, Lz4Measure measure, ref long upper, ref long lower, ref long lastBlockSlack)
        {
            int frameStart = position - header.Length;
            long frameUpper = 0;
            long frameLower = 0;
            while (NextBlock(source, ref position, header, out int blockStart, out bool stored, out int size))
            {
                if (stored)
                {
                    frameUpper += size;
                    frameLower += size;
                }
                else if (measure == Lz4Measure.All || (measure == Lz4Measure.LastBlocks && IsLastBlock(source, position + size + (header.BlockChecksum ? 4 : 0))))
                {
                    long measured = Lz4BlockLength.Measure(source.Slice(position, size));
                    if (measured < 0)
                    {
                        throw MalformedSequences(blockStart);
                    }

                    if (measured > header.BlockMaxSize)
                    {
                        throw new Lz4FormatException("the block decodes to more bytes than the frame allows (its block maximum)", blockStart + 4);
                    }

                    frameUpper += measured;
                    frameLower += measured;
                }
                else
                {
                    long unmeasured = Math.Min(header.BlockMaxSize, (long)size * MaxExpansion + MaxExpansionSlack);
                    frameUpper += unmeasured;
                    frameLower += size / 2;
                    if (IsLastBlock(source, position + size + (header.BlockChecksum ? 4 : 0)))
                    {
                        lastBlockSlack += unmeasured;
                    }
                }

                position += size + (header.BlockChecksum ? 4 : 0);
            }

            SkipContentChecksum(source, ref position, header);
            if (header.ContentSize.HasValue)
            {
                if (measure == Lz4Measure.All && frameUpper != header.ContentSize.Value)
                {
                    throw ContentSizeMismatch(header, frameUpper, frameStart);
                }

                frameUpper = Math.Min(frameUpper, header.ContentSize.Value);
            }

            upper += frameUpper;
            lower += Math.Min(frameLower, frameUpper);
        }

        private static bool IsLastBlock(ReadOnlySpan<byte> source, int next) =>
            source.Length - next >= 4 && BinaryPrimitives.ReadUInt32LittleEndian(source.Slice(next)) == 0;

        /// <summary>
        /// Decodes one frame at <paramref name="written"/>. Without a content checksum the output is cleared ahead of each
        /// block (once per byte, tracked by <paramref name="cleared"/>), why: K4os' block decoder accepts a match with
        /// offset 0, which copies bytes the block has not written yet, so a corrupt or hostile block would otherwise return
        /// what the pooled destination held from an earlier decode (another file, maybe another connection's). A content
        /// checksum refuses such output instead (it cannot match bytes the sender never saw), so those frames skip it.
        /// </summary>
        private static int DecodeFrame(ReadOnlySpan<byte> source, ref int position, Lz4FrameHeader header, byte[] destination, int written, ref int cleared)
        {
            int frameStart = position - header.Length;
            int frameOutputStart = written;
            if (header.ContentSize > MaxOutputLength - (long)written)
            {
                throw new Lz4FormatException(
                    $"the frame declares {header.DeclaredContentSize} bytes of content, beyond the 2 GiB limit of one buffer",
                    frameStart);
            }

            while (NextBlock(source, ref position, header, out int blockStart, out bool stored, out int size))
            {
                ReadOnlySpan<byte> block = CheckedBlock(source, header, written - frameOutputStart, blockStart, stored, size, out int maxOutput);
                if (stored)
                {
                    EnsureRoom(destination, written, size);
                    block.CopyTo(destination.AsSpan(written));
                    written += size;
                }
                else
                {
                    if (!header.ContentChecksum)
                    {
                        ClearAhead(destination, written, maxOutput, ref cleared);
                    }

                    written += DecodeBlock(block, destination, written, header.IndependentBlocks ? written : frameOutputStart, maxOutput, blockStart);
                }

                position += size + (header.BlockChecksum ? 4 : 0);
            }

            uint contentHash = header.ContentChecksum ? XXH32.DigestOf(destination.AsSpan(frameOutputStart, written - frameOutputStart)) : 0;
            EndFrame(source, ref position, header, frameStart, written - frameOutputStart, contentHash);
            return written;
        }

        /// <summary>Zeroes what a block decoded at <paramref name="written"/> may write or read, except what an earlier block's clearing already covered.</summary>
        private static void ClearAhead(byte[] destination, int written, int maxOutput, ref int cleared)
        {
            int end = written + Math.Min(destination.Length - written, maxOutput);
            int start = Math.Max(cleared, written);
            if (end > start)
            {
                System.Array.Clear(destination, start, end - start);
                cleared = end;
            }
        }

        /// <summary>
        /// Decodes one compressed block with K4os at <paramref name="written"/>. A linked block gets the output since
        /// <paramref name="windowStart"/> (its frame's start), at most the last 64 KiB, as its dictionary: it lies just
        /// before the target in the same array, which K4os decodes as a prefix, with no copy.
        /// </summary>
        private static int DecodeBlock(ReadOnlySpan<byte> block, byte[] destination, int written, int windowStart, int maxOutput, int blockStart)
        {
            int room = Math.Min(destination.Length - written, maxOutput);
            Span<byte> target = destination.AsSpan(written, room);
            int decoded;
            if (windowStart < written)
            {
                int dictionaryStart = Math.Max(windowStart, written - WindowSize);
                decoded = LZ4Codec.Decode(block, target, destination.AsSpan(dictionaryStart, written - dictionaryStart));
            }
            else
            {
                decoded = LZ4Codec.Decode(block, target);
            }

            if (decoded >= 0)
            {
                return decoded;
            }

            throw BlockFailure(block, maxOutput, room, destination.Length, blockStart);
        }

        /// <summary>
        /// Why K4os refused a block (it says only "no"), for the message; the error path, so measuring is free.
        /// <paramref name="room"/> is what the destination had from the block's start, <paramref name="destinationLength"/>
        /// its whole length.
        /// </summary>
        internal static Exception BlockFailure(ReadOnlySpan<byte> block, int maxOutput, int room, int destinationLength, int blockStart)
        {
            long measured = Lz4BlockLength.Measure(block);
            if (measured < 0)
            {
                return MalformedSequences(blockStart);
            }

            if (measured > maxOutput)
            {
                return new Lz4FormatException("the block decodes to more bytes than the frame allows (its block maximum or declared content size)", blockStart + 4);
            }

            if (measured > room)
            {
                return DestinationTooSmall(destinationLength);
            }

            return new Lz4FormatException("a match has offset 0 or reaches back before the start of the data it may reference", blockStart + 4);
        }

        private static void EnsureRoom(byte[] destination, int written, int size)
        {
            if (destination.Length - written < size)
            {
                throw DestinationTooSmall(destination.Length);
            }
        }

        private static ArgumentException DestinationTooSmall(int destinationLength) =>
            new ArgumentException($"The destination holds {destinationLength} bytes; the input needs more. Size it from Lz4FrameDecoder.Bounds.", "destination");

        private static Lz4FormatException MalformedSequences(int blockStart) =>
            new Lz4FormatException("the block's sequences are malformed (a length or literal run is cut off by the end of the block)", blockStart + 4);

        private static Lz4FormatException ContentSizeMismatch(Lz4FrameHeader header, long decoded, int frameStart) =>
            new Lz4FormatException($"the frame declares {header.DeclaredContentSize} bytes of content but decodes to {decoded}", frameStart);
    }

    /// <summary>Which compressed blocks <see cref="Lz4FrameDecoder.Bounds(ReadOnlySpan{byte}, Lz4Measure)"/> measures.</summary>
    internal enum Lz4Measure
    {
        /// <summary>None: headers only.</summary>
        None,

        /// <summary>Each frame's last block (the one encoders leave short); a few percent of decoding for 4 MB frames.</summary>
        LastBlocks,

        /// <summary>Every block: exact bounds, at about a third of the cost of decoding (4 MB blocks of CloudFetch-like data).</summary>
        All,
    }

    /// <summary>What a sequence of LZ4 frames decodes to, as far as its headers (and any measured blocks) tell.</summary>
    internal readonly struct Lz4SizeBounds
    {
        public Lz4SizeBounds(long upper, long lower, int largestBlockMax, long lastBlockSlack)
        {
            Upper = upper;
            Lower = lower;
            LargestBlockMax = largestBlockMax;
            LastBlockSlack = lastBlockSlack;
        }

        /// <summary>Never below the decoded length: a destination this long never overflows.</summary>
        public long Upper { get; }

        /// <summary>Never above the decoded length of input that decodes without error.</summary>
        public long Lower { get; }

        /// <summary>The largest block maximum any frame declares (the "one block maximum" of the allocation bound).</summary>
        public int LargestBlockMax { get; }

        public bool IsExact => Upper == Lower;

        /// <summary>What unmeasured last blocks of frames contribute to <see cref="Upper"/>: measuring them can lower it by at most this.</summary>
        public long LastBlockSlack { get; }
    }
}
