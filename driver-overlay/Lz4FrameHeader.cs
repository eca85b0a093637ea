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
using K4os.Hash.xxHash;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>A parsed and validated LZ4 frame descriptor (lz4_Frame_format.md, version 1).</summary>
    internal readonly struct Lz4FrameHeader
    {
        private Lz4FrameHeader(int length, int blockMaxSize, bool independentBlocks, bool blockChecksum, bool contentChecksum, ulong? declaredContentSize)
        {
            Length = length;
            BlockMaxSize = blockMaxSize;
            IndependentBlocks = independentBlocks;
            BlockChecksum = blockChecksum;
            ContentChecksum = contentChecksum;
            DeclaredContentSize = declaredContentSize;
            ContentSize = declaredContentSize.HasValue ? (long)Math.Min(declaredContentSize.Value, long.MaxValue) : null;
        }

        /// <summary>Header length in bytes, magic number included.</summary>
        public int Length { get; }

        public int BlockMaxSize { get; }

        public bool IndependentBlocks { get; }

        public bool BlockChecksum { get; }

        public bool ContentChecksum { get; }

        /// <summary>The declared content size, capped at long.MaxValue for arithmetic (any size that large is refused anyway).</summary>
        public long? ContentSize { get; }

        /// <summary>The content size field as written, for messages.</summary>
        public ulong? DeclaredContentSize { get; }

        /// <summary>Reads the header of the frame whose magic number starts at <paramref name="frameStart"/>.</summary>
        public static Lz4FrameHeader Read(ReadOnlySpan<byte> source, int frameStart)
        {
            int descriptor = frameStart + 4;
            if (source.Length - descriptor < 3)
            {
                throw new Lz4FormatException("the frame header is cut off", frameStart);
            }

            byte flags = source[descriptor];
            byte blockDescriptor = source[descriptor + 1];
            if ((flags >> 6) != 1)
            {
                throw new Lz4FormatException($"unsupported frame version {flags >> 6} (only version 1 exists)", descriptor);
            }

            if ((flags & 0x02) != 0)
            {
                throw new Lz4FormatException("a reserved bit of the frame flags is set", descriptor);
            }

            if ((flags & 0x01) != 0)
            {
                throw new Lz4FormatException("the frame needs a dictionary, which Databricks never uses and this decoder does not support", descriptor);
            }

            if ((blockDescriptor & 0x8F) != 0)
            {
                throw new Lz4FormatException("a reserved bit of the block descriptor is set", descriptor + 1);
            }

            int blockSizeId = (blockDescriptor >> 4) & 0x07;
            if (blockSizeId < 4)
            {
                throw new Lz4FormatException($"invalid block maximum size code {blockSizeId} (valid codes are 4 to 7)", descriptor + 1);
            }

            bool hasContentSize = (flags & 0x08) != 0;
            int descriptorLength = 2 + (hasContentSize ? 8 : 0);
            if (source.Length - descriptor < descriptorLength + 1)
            {
                throw new Lz4FormatException("the frame header is cut off", frameStart);
            }

            ulong? contentSize = hasContentSize ? BinaryPrimitives.ReadUInt64LittleEndian(source.Slice(descriptor + 2)) : (ulong?)null;

            byte expectedChecksum = source[descriptor + descriptorLength];
            byte actualChecksum = (byte)(XXH32.DigestOf(source.Slice(descriptor, descriptorLength)) >> 8);
            if (expectedChecksum != actualChecksum)
            {
                throw new Lz4FormatException(
                    $"frame header checksum mismatch (expected 0x{expectedChecksum:X2}, computed 0x{actualChecksum:X2})",
                    descriptor + descriptorLength);
            }

            return new Lz4FrameHeader(
                length: 4 + descriptorLength + 1,
                blockMaxSize: 1 << (8 + (2 * blockSizeId)),
                independentBlocks: (flags & 0x20) != 0,
                blockChecksum: (flags & 0x10) != 0,
                contentChecksum: (flags & 0x04) != 0,
                declaredContentSize: contentSize);
        }
    }
}
