/*
* Copyright (c) 2025 ADBC Drivers Contributors
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Threading;
using System.Threading.Tasks;
using K4os.Compression.LZ4.Streams;
using K4os.Hash.xxHash;
using Xunit;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// Deterministic bytes and LZ4 frames made by K4os (the encoder the test project already references), shared by the
    /// series' tests: every expected value follows from a seed, never from the code under test. Nothing here needs the
    /// memory scope (<see cref="DbxmemScopeData"/> has what does), so the tests of the fixes that come before it can use it.
    /// </summary>
    internal static class DbxmemTestData
    {
        public const int KiB = 1024;
        public const int MiB = 1024 * 1024;

        /// <summary>
        /// A bound for waits that must end: far above anything the awaited work needs, so it never fails on a slow
        /// machine, and only a hang (the behaviour under test missing) reaches it.
        /// </summary>
        public static readonly TimeSpan Liveness = TimeSpan.FromSeconds(30);

        /// <summary>What Databricks writes: 4 MiB independent blocks, no checksum, no content size.</summary>
        public static LZ4EncoderSettings IndependentBlocks4MiB() => new LZ4EncoderSettings { BlockSize = 4 * MiB, ChainBlocks = false };

        /// <summary>64 KiB linked blocks: each block may copy from the previous 64 KiB of output.</summary>
        public static LZ4EncoderSettings Linked64K() => new LZ4EncoderSettings { BlockSize = 64 * KiB, ChainBlocks = true };

        /// <summary>
        /// Column-like bytes that compress roughly 2-4x: runs, repeats of earlier bytes at varied distances, ascending
        /// integers and some noise, so blocks hold both matches and literals.
        /// </summary>
        public static byte[] Compressible(int length, int seed)
        {
            Random random = new Random(seed);
            byte[] data = new byte[length];
            int position = 0;
            int counter = random.Next();
            while (position < length)
            {
                int run = Math.Min(random.Next(8, 200), length - position);
                switch (random.Next(4))
                {
                    case 0:
                        data.AsSpan(position, run).Fill((byte)random.Next(4));
                        break;
                    case 1 when position > 4096:
                        int from = position - random.Next(run, 4096);
                        for (int i = 0; i < run; i++)
                        {
                            data[position + i] = data[from + i];
                        }

                        break;
                    case 2:
                        for (int i = 0; i < run; i++)
                        {
                            data[position + i] = (byte)((counter + (i / 4)) >> (8 * (i % 4)));
                        }

                        counter += run / 4;
                        break;
                    default:
                        run = Math.Min(run, 24);
                        byte[] noise = new byte[run];
                        random.NextBytes(noise);
                        noise.CopyTo(data, position);
                        break;
                }

                position += run;
            }

            return data;
        }

        /// <summary>Bytes LZ4 cannot shrink: K4os stores such blocks uncompressed.</summary>
        public static byte[] Incompressible(int length, int seed)
        {
            byte[] data = new byte[length];
            new Random(seed).NextBytes(data);
            return data;
        }

        /// <summary><paramref name="data"/> as one LZ4 frame, written by K4os' frame encoder.</summary>
        public static byte[] Lz4Frame(byte[] data, LZ4EncoderSettings settings)
        {
            using (MemoryStream output = new MemoryStream())
            {
                using (LZ4EncoderStream encoder = LZ4Stream.Encode(output, settings, leaveOpen: true))
                {
                    encoder.Write(data, 0, data.Length);
                }

                return output.ToArray();
            }
        }

        /// <summary>
        /// <paramref name="frame"/> (one frame from <see cref="Lz4Frame"/>) with its content size in the header: K4os' frame
        /// writers do not write one, so the descriptor is rewritten as the LZ4 frame format specifies (FLG bit 3, eight
        /// little-endian bytes after BD, the header checksum recomputed as the second byte of XXH32 over the descriptor).
        /// </summary>
        public static byte[] WithContentSize(byte[] frame, long contentSize)
        {
            byte[] result = new byte[frame.Length + 8];
            Buffer.BlockCopy(frame, 0, result, 0, 6); // magic, FLG, BD
            result[4] |= 0x08;
            BitConverter.GetBytes(contentSize).CopyTo(result, 6);
            result[14] = (byte)(XXH32.DigestOf(result.AsSpan(4, 10)) >> 8);
            Buffer.BlockCopy(frame, 7, result, 15, frame.Length - 7); // the blocks, after the old header checksum
            return result;
        }

        /// <summary>A skippable frame (magic 0x184D2A50) with <paramref name="payload"/> bytes a decoder must step over.</summary>
        public static byte[] SkippableFrame(int payload)
        {
            byte[] frame = new byte[8 + payload];
            BitConverter.GetBytes(0x184D2A50).CopyTo(frame, 0);
            BitConverter.GetBytes(payload).CopyTo(frame, 4);
            for (int i = 0; i < payload; i++)
            {
                frame[8 + i] = (byte)(0xA0 + i);
            }

            return frame;
        }

        /// <summary>Frames (or any bytes) back to back, as in a CloudFetch file made of several frames.</summary>
        public static byte[] Concatenate(params byte[][] parts)
        {
            List<byte> all = new List<byte>();
            foreach (byte[] part in parts)
            {
                all.AddRange(part);
            }

            return all.ToArray();
        }

        /// <summary>
        /// Where each block's 4-byte size field starts in a single frame written by K4os (a 7-byte header, 15 with a
        /// content size; no dictionary id), and whether any block is stored uncompressed (the size field's high bit).
        /// </summary>
        public static (List<int> BlockStarts, bool HasStoredBlock) Blocks(byte[] frame, bool blockChecksums = false, bool contentSize = false)
        {
            List<int> starts = new List<int>();
            bool stored = false;
            int position = contentSize ? 15 : 7;
            int size;
            while ((size = BitConverter.ToInt32(frame, position)) != 0)
            {
                starts.Add(position);
                stored |= (size & unchecked((int)0x80000000)) != 0;
                position += 4 + (size & 0x7FFFFFFF) + (blockChecksums ? 4 : 0);
            }

            return (starts, stored);
        }

        /// <summary>
        /// A frame cut just before its end mark: every block decodes (so the destination is fully used), then the input
        /// ends inside the frame.
        /// </summary>
        public static byte[] Truncated(byte[] frame)
        {
            byte[] truncated = new byte[frame.Length - 4];
            Buffer.BlockCopy(frame, 0, truncated, 0, truncated.Length);
            return truncated;
        }

        /// <summary>
        /// Runs <paramref name="work"/> on a thread of its own and waits for it to end. Mono scans thread stacks
        /// conservatively: a slot of a frame that has returned, or a register, may still point at an object the test
        /// dropped and keep it alive through <see cref="FullCollect"/>; a thread that has ended leaves no stack. For tests
        /// that expect what the work allocated to be collectable afterwards (on .NET it changes nothing).
        /// </summary>
        public static void OnOwnThread(Action work)
        {
            Exception? failure = null;
            Thread thread = new Thread(() =>
            {
                try
                {
                    work();
                }
                catch (Exception ex)
                {
                    failure = ex;
                }
            });
            thread.Start();
            thread.Join();
            if (failure != null)
            {
                ExceptionDispatchInfo.Capture(failure).Throw();
            }
        }

        /// <summary>Full blocking, compacting collections, so that weak references to garbage are cleared.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void FullCollect()
        {
            for (int i = 0; i < 3; i++)
            {
                GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
                GC.WaitForPendingFinalizers();
            }
        }

        /// <summary>Every byte of <paramref name="stream"/>, read <paramref name="readSize"/> bytes at a time.</summary>
        public static byte[] ReadAll(Stream stream, int readSize)
        {
            using (MemoryStream output = new MemoryStream())
            {
                byte[] buffer = new byte[readSize];
                int read;
                while ((read = stream.Read(buffer, 0, buffer.Length)) > 0)
                {
                    output.Write(buffer, 0, read);
                }

                return output.ToArray();
            }
        }

        /// <summary>Reads exactly <paramref name="count"/> bytes (fewer only if the stream ends).</summary>
        public static int ReadFully(Stream stream, byte[] buffer, int count)
        {
            int total = 0;
            int read;
            while (total < count && (read = stream.Read(buffer, total, count - total)) > 0)
            {
                total += read;
            }

            return total;
        }

        /// <summary>Awaits <paramref name="task"/>, failing the test if it has not ended within <paramref name="bound"/>.</summary>
        public static async Task WithinAsync(Task task, TimeSpan bound, string what)
        {
            Task first = await Task.WhenAny(task, Task.Delay(bound)).ConfigureAwait(false);
            Assert.True(first == task, $"{what} did not end within {bound.TotalSeconds} s");
            await task.ConfigureAwait(false);
        }

        /// <inheritdoc cref="WithinAsync(Task, TimeSpan, string)"/>
        public static async Task<T> WithinAsync<T>(Task<T> task, TimeSpan bound, string what)
        {
            await WithinAsync((Task)task, bound, what).ConfigureAwait(false);
            return await task.ConfigureAwait(false);
        }

        /// <summary>
        /// Waits, checking every 10 ms, until <paramref name="condition"/> holds; fails the test at <paramref name="bound"/>.
        /// For state that changes on another thread with no task to await (a buffer given back by a download that ends).
        /// </summary>
        public static async Task UntilAsync(Func<bool> condition, TimeSpan bound, string what)
        {
            DateTime deadline = DateTime.UtcNow + bound;
            while (!condition())
            {
                Assert.True(DateTime.UtcNow < deadline, $"{what}: not so within {bound.TotalSeconds} s");
                await Task.Delay(10).ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// A response body's stream as the tests' HTTP contents hand it out: read-only, forward-only and of no known length,
    /// as a network stream is. A subclass says only how it reads.
    /// </summary>
    internal abstract class ResponseBodyStream : Stream
    {
        public override bool CanRead => true;

        public override bool CanSeek => false;

        public override bool CanWrite => false;

        public override long Length => throw new NotSupportedException();

        public override long Position
        {
            get => throw new NotSupportedException();
            set => throw new NotSupportedException();
        }

        public override void Flush()
        {
        }

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
    }
}
