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
    /// this project is built with does not serve K4os, so the block codec is part of the overlay. Short literal
    /// runs and short matches are copied 16 bytes at a time when both buffers have 16 bytes of room; the bytes
    /// written past the sequence are overwritten by the next one or lie beyond the final length.
    /// </remarks>
    internal static class Lz4BlockDecoder
    {
        private const int MinMatch = 4;
        private const int WildCopy = 16;

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
                if (offset >= 8 && matchLength <= WildCopy && outputEnd - op >= WildCopy)
                {
                    // Two sequential 8-byte copies: with offset >= 8 the second reads only bytes the first has finished.
                    Copy8(ref Unsafe.Add(ref dst, op), ref Unsafe.Add(ref dst, match));
                    Copy8(ref Unsafe.Add(ref dst, op + 8), ref Unsafe.Add(ref dst, match + 8));
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
