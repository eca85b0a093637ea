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
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// XXH32 (seed 0 unless given), the checksum of the LZ4 frame format: header, block and content checksums.
    /// </summary>
    /// <remarks>
    /// Written here because System.IO.Hashing is not available to the driver's targets without a new package, and
    /// K4os' copy is internal to its streams assembly.
    /// </remarks>
    internal static class Xxh32
    {
        private const uint Prime1 = 2654435761U;
        private const uint Prime2 = 2246822519U;
        private const uint Prime3 = 3266489917U;
        private const uint Prime4 = 668265263U;
        private const uint Prime5 = 374761393U;

        public static uint Hash(ReadOnlySpan<byte> data, uint seed = 0)
        {
            ref byte start = ref MemoryMarshal.GetReference(data);
            int length = data.Length;
            int position = 0;
            uint hash;

            if (length >= 16)
            {
                uint v1 = seed + Prime1 + Prime2;
                uint v2 = seed + Prime2;
                uint v3 = seed;
                uint v4 = seed - Prime1;
                int limit = length - 16;
                do
                {
                    v1 = Round(v1, ReadUInt32(ref start, position));
                    v2 = Round(v2, ReadUInt32(ref start, position + 4));
                    v3 = Round(v3, ReadUInt32(ref start, position + 8));
                    v4 = Round(v4, ReadUInt32(ref start, position + 12));
                    position += 16;
                }
                while (position <= limit);

                hash = RotateLeft(v1, 1) + RotateLeft(v2, 7) + RotateLeft(v3, 12) + RotateLeft(v4, 18);
            }
            else
            {
                hash = seed + Prime5;
            }

            hash += (uint)length;

            while (position + 4 <= length)
            {
                hash += ReadUInt32(ref start, position) * Prime3;
                hash = RotateLeft(hash, 17) * Prime4;
                position += 4;
            }

            while (position < length)
            {
                hash += Unsafe.Add(ref start, position) * Prime5;
                hash = RotateLeft(hash, 11) * Prime1;
                position++;
            }

            hash ^= hash >> 15;
            hash *= Prime2;
            hash ^= hash >> 13;
            hash *= Prime3;
            hash ^= hash >> 16;
            return hash;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint Round(uint accumulator, uint lane) =>
            RotateLeft(accumulator + (lane * Prime2), 13) * Prime1;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint RotateLeft(uint value, int bits) => (value << bits) | (value >> (32 - bits));

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static uint ReadUInt32(ref byte start, int position)
        {
            uint value = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref start, position));
            return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
        }
    }
}
