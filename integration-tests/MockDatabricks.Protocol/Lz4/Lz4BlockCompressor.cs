using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace MockDatabricks.Protocol.Lz4
{
    /// <summary>
    /// A greedy LZ4 block compressor (the "fast" strategy of the reference implementation: one hash table of
    /// 4-byte sequences, no chains). It honours the block format's end rules: the last 5 bytes are literals and
    /// no match starts within the last 12 bytes. Matches may reach back into earlier data of the same buffer
    /// down to <c>lowLimit</c>, which is how linked frame blocks use the previous 64 KB as history.
    /// </summary>
    public static unsafe class Lz4BlockCompressor
    {
        public const int HashTableSize = 1 << HashLog;
        private const int HashLog = 16;
        private const int MinMatch = 4;
        private const int LastLiterals = 5;
        private const int MatchFindLimit = 12;
        private const int MaxDistance = 65535;
        private const int SkipTrigger = 6;

        /// <summary>Worst-case compressed size of <paramref name="inputLength"/> bytes (LZ4_compressBound).</summary>
        public static int MaxCompressedLength(int inputLength) => inputLength + (inputLength / 255) + 16;

        /// <summary>A hash table ready for a new frame (positions are absolute in the caller's buffer; -1 = empty).</summary>
        public static int[] CreateHashTable()
        {
            var table = new int[HashTableSize];
            Array.Fill(table, -1);
            return table;
        }

        /// <summary>
        /// Compresses <c>source[blockStart..blockEnd)</c> into <paramref name="destination"/> (at least
        /// <see cref="MaxCompressedLength"/> of the block) and returns the compressed length. Matches may start at
        /// any position &gt;= <paramref name="lowLimit"/> within 65535 bytes.
        /// </summary>
        public static int Compress(ReadOnlySpan<byte> source, int blockStart, int blockEnd, int lowLimit, Span<byte> destination, int[] hashTable)
        {
            if (blockStart < 0 || blockEnd > source.Length || blockStart > blockEnd || lowLimit < 0 || lowLimit > blockStart)
            {
                throw new ArgumentOutOfRangeException(nameof(blockStart));
            }

            if (destination.Length < MaxCompressedLength(blockEnd - blockStart))
            {
                throw new ArgumentException("Destination smaller than the worst-case compressed size.", nameof(destination));
            }

            if (hashTable.Length != HashTableSize)
            {
                throw new ArgumentException("Hash table has the wrong size.", nameof(hashTable));
            }

            fixed (byte* src = source)
            fixed (byte* dst = destination)
            fixed (int* table = hashTable)
            {
                return CompressCore(src, blockStart, blockEnd, lowLimit, dst, table);
            }
        }

        private static int CompressCore(byte* src, int blockStart, int blockEnd, int lowLimit, byte* dst, int* table)
        {
            byte* op = dst;
            int anchor = blockStart;
            if (blockEnd - blockStart >= MatchFindLimit + 1)
            {
                int matchStartLimit = blockEnd - MatchFindLimit;
                int matchEndLimit = blockEnd - LastLiterals;
                int ip = blockStart;
                table[Hash(Read32(src + ip))] = ip;
                ip++;

                while (ip < matchStartLimit)
                {
                    // Find a match, skipping faster through data that does not compress.
                    int reference;
                    int searchCount = 1 << SkipTrigger;
                    int step = 1;
                    while (true)
                    {
                        uint sequence = Read32(src + ip);
                        uint hash = Hash(sequence);
                        reference = table[hash];
                        table[hash] = ip;
                        if (reference >= lowLimit && ip - reference <= MaxDistance && Read32(src + reference) == sequence)
                        {
                            break;
                        }

                        ip += step;
                        step = searchCount++ >> SkipTrigger;
                        if (ip >= matchStartLimit)
                        {
                            goto LastLiteralsLabel;
                        }
                    }

                    // Extend the match backwards over literals already pending.
                    while (ip > anchor && reference > lowLimit && src[ip - 1] == src[reference - 1])
                    {
                        ip--;
                        reference--;
                    }

                    int literalLength = ip - anchor;
                    byte* token = op++;
                    byte tokenValue;
                    if (literalLength >= 15)
                    {
                        tokenValue = 15 << 4;
                        op = WriteLength(op, literalLength - 15);
                    }
                    else
                    {
                        tokenValue = (byte)(literalLength << 4);
                    }

                    Buffer.MemoryCopy(src + anchor, op, literalLength, literalLength);
                    op += literalLength;

                    BinaryPrimitives.WriteUInt16LittleEndian(new Span<byte>(op, 2), (ushort)(ip - reference));
                    op += 2;

                    int matchLength = MinMatch + CountMatch(src, ip + MinMatch, reference + MinMatch, matchEndLimit);
                    ip += matchLength;
                    int extra = matchLength - MinMatch;
                    if (extra >= 15)
                    {
                        tokenValue |= 15;
                        op = WriteLength(op, extra - 15);
                    }
                    else
                    {
                        tokenValue |= (byte)extra;
                    }

                    *token = tokenValue;
                    anchor = ip;
                    if (ip >= matchStartLimit)
                    {
                        break;
                    }

                    // Remember a position inside the match for better ratios on repetitive data.
                    table[Hash(Read32(src + ip - 2))] = ip - 2;
                }
            }

        LastLiteralsLabel:
            int lastLength = blockEnd - anchor;
            if (lastLength >= 15)
            {
                *op++ = 15 << 4;
                op = WriteLength(op, lastLength - 15);
            }
            else
            {
                *op++ = (byte)(lastLength << 4);
            }

            Buffer.MemoryCopy(src + anchor, op, lastLength, lastLength);
            op += lastLength;
            return (int)(op - dst);
        }

        private static byte* WriteLength(byte* op, int length)
        {
            while (length >= 255)
            {
                *op++ = 255;
                length -= 255;
            }

            *op++ = (byte)length;
            return op;
        }

        private static int CountMatch(byte* src, int position, int reference, int limit)
        {
            int start = position;
            while (position + 8 <= limit)
            {
                ulong difference = Unsafe.ReadUnaligned<ulong>(src + position) ^ Unsafe.ReadUnaligned<ulong>(src + reference);
                if (difference != 0)
                {
                    return position - start + (BitOperations.TrailingZeroCount(difference) >> 3);
                }

                position += 8;
                reference += 8;
            }

            while (position < limit && src[position] == src[reference])
            {
                position++;
                reference++;
            }

            return position - start;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint Read32(byte* p) => Unsafe.ReadUnaligned<uint>(p);

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint Hash(uint sequence) => unchecked(sequence * 2654435761U) >> (32 - HashLog);
    }
}
