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

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// Measures what an LZ4 block decodes to by walking its sequence tokens, without decoding it. This is not a codec
    /// (blocks are decoded by K4os' LZ4Codec): it reads lengths only, never offsets or data, and is used to size an
    /// output exactly when the frame headers alone cannot prove a size (see <see cref="Lz4FrameDecoder"/>).
    /// </summary>
    internal static class Lz4BlockLength
    {
        private const int MinMatch = 4;

        // A sequence's length fields cannot describe more than the largest block (4 MiB); anything larger is corrupt,
        // and stopping there keeps the sums far from overflow.
        private const int MaxSequenceLength = 4 * 1024 * 1024;

        // A short sequence (no length extensions) at least this far from the block's end cannot run past it.
        private const int FastPathMargin = 20;

        /// <summary>The decoded length of <paramref name="block"/>, or -1 when its token structure is malformed.</summary>
        public static long Measure(ReadOnlySpan<byte> block)
        {
            int end = block.Length;
            int ip = 0;
            long total = 0;
            while (ip < end)
            {
                int token = block[ip];
                if (end - ip >= FastPathMargin && token < 0xF0 && (token & 15) != 15)
                {
                    // 1 token byte, up to 14 literals, a 2-byte offset: all inside the block, so no checks.
                    int literals = token >> 4;
                    ip += 1 + literals + 2;
                    total += literals + (token & 15) + MinMatch;
                    continue;
                }

                ip++;
                int literalLength = token >> 4;
                if (literalLength == 15 && !ReadLengthExtension(block, ref ip, ref literalLength))
                {
                    return -1;
                }

                if (literalLength > end - ip)
                {
                    return -1;
                }

                ip += literalLength;
                total += literalLength;
                if (ip == end)
                {
                    return total; // the last sequence: literals only
                }

                if (end - ip < 2)
                {
                    return -1;
                }

                ip += 2;
                int matchLength = token & 15;
                if (matchLength == 15 && !ReadLengthExtension(block, ref ip, ref matchLength))
                {
                    return -1;
                }

                total += matchLength + MinMatch;
            }

            return -1; // a block ends with a literal-only sequence; this one ended after a match (or was empty)
        }

        private static bool ReadLengthExtension(ReadOnlySpan<byte> block, ref int ip, ref int length)
        {
            int value;
            do
            {
                if (ip >= block.Length)
                {
                    return false;
                }

                value = block[ip++];
                length += value;
                if (length > MaxSequenceLength)
                {
                    return false;
                }
            }
            while (value == 255);

            return true;
        }
    }
}
