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

using System.Buffers.Binary;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// Small LZ4 frames for the schedule tests, written with K4os' block codec: independent 64 KiB blocks (the smallest
    /// block maximum, so that a file of a few blocks costs little per schedule), optionally a content checksum.
    /// </summary>
    internal static class Lz4Frames
    {
        public const int BlockSize = 64 * 1024;

        /// <summary>Compressible bytes (short runs over a counter), the same for the same length.</summary>
        public static byte[] Data(int length)
        {
            byte[] data = new byte[length];
            for (int i = 0; i < length; i++)
            {
                data[i] = (byte)((i / 7) + (i % 5 == 0 ? i / 4096 : 0));
            }

            return data;
        }

        public static byte[] Frame(byte[] data, bool contentChecksum = false)
        {
            List<byte> frame = new List<byte>();
            frame.AddRange(BitConverter.GetBytes(Lz4FrameDecoder.FrameMagic));
            byte[] descriptor = { (byte)(0x60 | (contentChecksum ? 0x04 : 0)), 0x40 }; // version 1, independent; 64 KiB blocks
            frame.AddRange(descriptor);
            frame.Add((byte)(XXH32.DigestOf(descriptor) >> 8));
            byte[] encoded = new byte[LZ4Codec.MaximumOutputSize(BlockSize)];
            for (int start = 0; start < data.Length; start += BlockSize)
            {
                int length = Math.Min(BlockSize, data.Length - start);
                int size = LZ4Codec.Encode(data.AsSpan(start, length), encoded);
                if (size <= 0 || size >= length)
                {
                    throw new InvalidOperationException("the test data did not compress: the frame would need a stored block");
                }

                frame.AddRange(BitConverter.GetBytes(size));
                frame.AddRange(encoded.AsSpan(0, size).ToArray());
            }

            frame.AddRange(new byte[4]); // end mark
            if (contentChecksum)
            {
                frame.AddRange(BitConverter.GetBytes(XXH32.DigestOf(data)));
            }

            return frame.ToArray();
        }

        /// <summary>Where each block's size field starts (7-byte header: no content size).</summary>
        public static List<int> BlockStarts(byte[] frame)
        {
            List<int> starts = new List<int>();
            int position = 7;
            int size;
            while ((size = BinaryPrimitives.ReadInt32LittleEndian(frame.AsSpan(position))) != 0)
            {
                starts.Add(position);
                position += 4 + (size & 0x7FFFFFFF);
            }

            return starts;
        }

        /// <summary>The file as a download leaves it: in an array rented from <paramref name="pool"/>.</summary>
        public static PooledBuffer Download(Lz4BufferPool pool, byte[] file)
        {
            PooledArray rental = pool.Rent(file.Length);
            file.CopyTo(rental.Array, 0);
            return new PooledBuffer(rental, file.Length);
        }
    }
}
