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
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>Why <see cref="Lz4BlockDecoder.Decode"/> rejected a block.</summary>
    internal enum Lz4BlockError
    {
        None,
        EndsBeforeToken,
        LengthCutOff,
        LengthTooLarge,
        LiteralsPastInput,
        OffsetCutOff,
        ZeroOffset,
        OffsetBeforeWindow,
        OutputOverflow,
    }

    /// <summary>
    /// Decodes one raw LZ4 block straight into a caller-owned buffer, with every read and write bounds-checked.
    /// </summary>
    /// <remarks>
    /// The frame decoder needs "decode into this slice of one contiguous destination, letting matches reach back
    /// into earlier output" (linked blocks); K4os offers that only through its pointer API, and the NuGet mirror
    /// this project is built with does not serve K4os, so the block codec is part of the overlay. Most
    /// sequences (short literal run, short match) are far from both buffer ends and take a fast path that copies
    /// fixed 16- and 18-byte chunks with a single offset check; the rest take a path that checks every field. The
    /// bytes a fixed-size copy writes past its sequence are overwritten by the next one or lie beyond the final
    /// length.
    /// </remarks>
    internal static class Lz4BlockDecoder
    {
        private const int MinMatch = 4;
        private const int WildCopy = 16;
        private const int MaxWildMatch = 64;

        // Input: token + 14 literals (16 copied) + 2 offset bytes. Output: 16 literal bytes copied, then up to 14
        // literals + an 18-byte match copy = 32. Both rounded up.
        private const int FastPathMargin = 40;

        // Any real length fits well below this; a longer run of 255s is an attack or garbage.
        private const int MaxSequenceLength = 1 << 30;

        /// <summary>
        /// Decodes <paramref name="source"/> (one compressed block) into <paramref name="destination"/> starting at
        /// <paramref name="outputStart"/>, never writing at or past <c>destination.Length</c>.
        /// </summary>
        /// <param name="windowStart">
        /// How far back matches may reach: the frame's first output byte for linked blocks, the block's own first
        /// output byte for independent blocks.
        /// </param>
        /// <returns>The number of bytes written, or -1 with <paramref name="error"/> and <paramref name="errorPosition"/> set.</returns>
        public static int Decode(
            ReadOnlySpan<byte> source,
            Span<byte> destination,
            int outputStart,
            int windowStart,
            out Lz4BlockError error,
            out int errorPosition)
        {
            ref byte src = ref MemoryMarshal.GetReference(source);
            ref byte dst = ref MemoryMarshal.GetReference(destination);
            int inputEnd = source.Length;
            int outputEnd = destination.Length;
            int ip = 0;
            int op = outputStart;

            while (true)
            {
                // The common sequence (under 15 literals, a match of at most 18 bytes at least 8 back) far from both
                // ends: the margins make every read and write safe, so only the offset needs checking. Anything
                // else, and every sequence near the end, takes the fully checked path below.
                if (inputEnd - ip >= FastPathMargin && outputEnd - op >= FastPathMargin)
                {
                    int fastToken = Unsafe.Add(ref src, ip);
                    int fastLiterals = fastToken >> 4;
                    int fastMatch = fastToken & 15;
                    if (fastLiterals != 15 && fastMatch != 15)
                    {
                        int literalsEnd = ip + 1 + fastLiterals;
                        int fastOffset = Unsafe.Add(ref src, literalsEnd) | (Unsafe.Add(ref src, literalsEnd + 1) << 8);
                        int matchStart = op + fastLiterals;
                        if (fastOffset >= 8 && fastOffset <= matchStart - windowStart)
                        {
                            Copy16(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, ip + 1));
                            ref byte from = ref Unsafe.Add(ref dst, matchStart - fastOffset);
                            ref byte to = ref Unsafe.Add(ref dst, matchStart);
                            Copy8(ref to, ref from);
                            Copy8(ref Unsafe.Add(ref to, 8), ref Unsafe.Add(ref from, 8));
                            Unsafe.WriteUnaligned(ref Unsafe.Add(ref to, 16), Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref from, 16)));
                            ip = literalsEnd + 2;
                            op = matchStart + fastMatch + MinMatch;
                            continue;
                        }
                    }
                }

                if (ip >= inputEnd)
                {
                    return Fail(Lz4BlockError.EndsBeforeToken, ip, out error, out errorPosition);
                }

                int token = Unsafe.Add(ref src, ip++);

                int literalLength = token >> 4;
                if (literalLength == 15)
                {
                    Lz4BlockError lengthError = ReadLengthExtension(ref src, ref ip, inputEnd, ref literalLength);
                    if (lengthError != Lz4BlockError.None)
                    {
                        return Fail(lengthError, ip, out error, out errorPosition);
                    }
                }

                if (literalLength > inputEnd - ip)
                {
                    return Fail(Lz4BlockError.LiteralsPastInput, ip, out error, out errorPosition);
                }

                if (literalLength > outputEnd - op)
                {
                    return Fail(Lz4BlockError.OutputOverflow, ip, out error, out errorPosition);
                }

                if (literalLength <= WildCopy && inputEnd - ip >= WildCopy && outputEnd - op >= WildCopy)
                {
                    Copy16(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref src, ip));
                }
                else
                {
                    source.Slice(ip, literalLength).CopyTo(destination.Slice(op));
                }

                ip += literalLength;
                op += literalLength;

                // The last sequence of a block carries literals only.
                if (ip == inputEnd)
                {
                    error = Lz4BlockError.None;
                    errorPosition = 0;
                    return op - outputStart;
                }

                if (inputEnd - ip < 2)
                {
                    return Fail(Lz4BlockError.OffsetCutOff, ip, out error, out errorPosition);
                }

                int offset = Unsafe.Add(ref src, ip) | (Unsafe.Add(ref src, ip + 1) << 8);
                if (offset == 0)
                {
                    return Fail(Lz4BlockError.ZeroOffset, ip, out error, out errorPosition);
                }

                if (offset > op - windowStart)
                {
                    return Fail(Lz4BlockError.OffsetBeforeWindow, ip, out error, out errorPosition);
                }

                ip += 2;

                int matchLength = token & 15;
                if (matchLength == 15)
                {
                    Lz4BlockError lengthError = ReadLengthExtension(ref src, ref ip, inputEnd, ref matchLength);
                    if (lengthError != Lz4BlockError.None)
                    {
                        return Fail(lengthError, ip, out error, out errorPosition);
                    }
                }

                matchLength += MinMatch;
                if (matchLength > outputEnd - op)
                {
                    return Fail(Lz4BlockError.OutputOverflow, ip, out error, out errorPosition);
                }

                int match = op - offset;
                if (offset >= 8 && matchLength <= MaxWildMatch && outputEnd - op >= matchLength + 8)
                {
                    // Sequential 8-byte copies: with offset >= 8 each reads only bytes the previous ones have finished.
                    // Up to a few cache lines this beats a memmove call, whose setup dominates short copies.
                    ref byte to = ref Unsafe.Add(ref dst, op);
                    ref byte from = ref Unsafe.Add(ref dst, match);
                    for (int copied = 0; copied < matchLength; copied += 8)
                    {
                        Copy8(ref Unsafe.Add(ref to, copied), ref Unsafe.Add(ref from, copied));
                    }
                }
                else if (offset < 8 && matchLength <= MaxWildMatch)
                {
                    // A short repeating pattern (runs of zeros, repeated small values): byte by byte is overlap-safe and
                    // cheaper than the general copy's span slicing for lengths this short.
                    ref byte to = ref Unsafe.Add(ref dst, op);
                    ref byte from = ref Unsafe.Add(ref dst, match);
                    for (int copied = 0; copied < matchLength; copied++)
                    {
                        Unsafe.Add(ref to, copied) = Unsafe.Add(ref from, copied);
                    }
                }
                else
                {
                    CopyMatch(destination, op, match, matchLength);
                }

                op += matchLength;
            }
        }

        /// <summary>
        /// The number of bytes <paramref name="source"/> decodes to, from its sequence tokens and length bytes only
        /// (literals are skipped, nothing is copied), or -1 when the block is malformed. Lets a caller size the
        /// destination exactly before decoding when the frame does not declare its content size.
        /// </summary>
        public static long MeasureDecodedLength(ReadOnlySpan<byte> source)
        {
            ref byte src = ref MemoryMarshal.GetReference(source);
            int inputEnd = source.Length;
            int ip = 0;
            long total = 0;
            while (ip < inputEnd)
            {
                // As in Decode: a short sequence far from the end needs no checks (a block's last sequence, the only
                // one without a match, always takes the checked path since it ends exactly at the input's end).
                if (inputEnd - ip >= FastPathMargin)
                {
                    int fastToken = Unsafe.Add(ref src, ip);
                    if (fastToken < 0xF0 && (fastToken & 15) != 15)
                    {
                        int fastLiterals = fastToken >> 4;
                        ip += 1 + fastLiterals + 2;
                        total += fastLiterals + (fastToken & 15) + MinMatch;
                        continue;
                    }
                }

                int token = Unsafe.Add(ref src, ip++);
                int literalLength = token >> 4;
                if (literalLength == 15 && ReadLengthExtension(ref src, ref ip, inputEnd, ref literalLength) != Lz4BlockError.None)
                {
                    return -1;
                }

                if (literalLength > inputEnd - ip)
                {
                    return -1;
                }

                ip += literalLength;
                total += literalLength;
                if (ip == inputEnd)
                {
                    return total;
                }

                if (inputEnd - ip < 2)
                {
                    return -1;
                }

                ip += 2;
                int matchLength = token & 15;
                if (matchLength == 15 && ReadLengthExtension(ref src, ref ip, inputEnd, ref matchLength) != Lz4BlockError.None)
                {
                    return -1;
                }

                total += matchLength + MinMatch;
            }

            return -1;
        }

        /// <summary>A human-readable description of <paramref name="error"/>, for exception messages.</summary>
        public static string Describe(Lz4BlockError error) => error switch
        {
            Lz4BlockError.EndsBeforeToken => "the block ends where a sequence token is expected",
            Lz4BlockError.LengthCutOff => "a length extension is cut off by the end of the block",
            Lz4BlockError.LengthTooLarge => "a length extension is impossibly large",
            Lz4BlockError.LiteralsPastInput => "a literal run extends past the end of the block",
            Lz4BlockError.OffsetCutOff => "a match offset is cut off by the end of the block",
            Lz4BlockError.ZeroOffset => "a match has offset 0",
            Lz4BlockError.OffsetBeforeWindow => "a match reaches back before the start of the data it may reference",
            Lz4BlockError.OutputOverflow => "the block decodes to more bytes than the frame allows",
            _ => "no error",
        };

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static Lz4BlockError ReadLengthExtension(ref byte src, ref int ip, int inputEnd, ref int length)
        {
            int value;
            do
            {
                if (ip >= inputEnd)
                {
                    return Lz4BlockError.LengthCutOff;
                }

                value = Unsafe.Add(ref src, ip++);
                length += value;
                if (length > MaxSequenceLength)
                {
                    return Lz4BlockError.LengthTooLarge;
                }
            }
            while (value == 255);

            return Lz4BlockError.None;
        }

        /// <summary>Copies a match that may overlap its own output (offset smaller than length).</summary>
        private static void CopyMatch(Span<byte> buffer, int op, int match, int length)
        {
            int offset = op - match;
            if (offset >= length)
            {
                buffer.Slice(match, length).CopyTo(buffer.Slice(op, length));
                return;
            }

            if (offset == 1)
            {
                buffer.Slice(op, length).Fill(buffer[match]);
                return;
            }

            // The output from `match` on repeats with period `offset`, so each copy may take everything written so
            // far: the copied span doubles every step and each step is a plain non-overlapping memmove.
            int end = op + length;
            while (op < end)
            {
                int chunk = Math.Min(op - match, end - op);
                buffer.Slice(match, chunk).CopyTo(buffer.Slice(op, chunk));
                op += chunk;
            }
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static void Copy8(ref byte destination, ref byte source) =>
            Unsafe.WriteUnaligned(ref destination, Unsafe.ReadUnaligned<ulong>(ref source));

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static void Copy16(ref byte destination, ref byte source)
        {
            Unsafe.WriteUnaligned(ref destination, Unsafe.ReadUnaligned<ulong>(ref source));
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, 8), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, 8)));
        }

        private static int Fail(Lz4BlockError kind, int position, out Lz4BlockError error, out int errorPosition)
        {
            error = kind;
            errorPosition = position;
            return -1;
        }
    }
}
