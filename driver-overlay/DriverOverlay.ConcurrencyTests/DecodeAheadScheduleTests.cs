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

using Microsoft.Coyote.Random;
using Microsoft.Coyote.Specifications;
using Xunit.Abstractions;
using static DriverOverlay.ConcurrencyTests.DecodeAheadInvariants;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// A CloudFetch file decoded as it is read with decode-ahead on, under every interleaving Coyote finds of the
    /// reader's reads (sizes it chooses: Arrow's 8-byte prefixes, reads within a block, reads of more than a block that
    /// may decode in place), the worker that decodes the next block, a dispose from another thread and a corrupt block.
    /// The invariants: <see cref="DecodeAheadInvariants"/>. Field loads and stores are scheduling points too, so the
    /// reader copying out the block being delivered interleaves with the worker's decode at every step of it.
    /// </summary>
    public class DecodeAheadScheduleTests
    {
        private const string InputName = "chunk 5";

        // Four blocks: three full ones and a short last one.
        private static readonly byte[] s_data = Lz4Frames.Data((3 * Lz4Frames.BlockSize) + 10_000);

        private readonly ITestOutputHelper _output;

        public DecodeAheadScheduleTests(ITestOutputHelper output)
        {
            _output = output;
        }

        [Fact]
        public void AReaderAndTheWorker_DeliverTheFileInOrderWithinTwoBlocksAndGiveEverythingBackAtItsEnd()
        {
            RunOnAFreshStream(Lz4Frames.Frame(s_data), async (pool, budget, stream, choose) =>
            {
                byte[] buffer = new byte[ReadSizes[^1]];
                long offset = 0;
                int read;
                while ((read = stream.Read(buffer, 0, NextReadSize(choose, offset))) > 0)
                {
                    NextBytes(s_data, offset, buffer, read);
                    offset += read;
                    WithinTwoBlocks(stream.Decoder, budget, Lz4Frames.BlockSize);
                    await Task.Yield(); // the application's work on what it read
                }

                Specification.Assert(offset == s_data.Length, "the stream ended after {0} of {1} bytes", offset, s_data.Length);
                AllGivenBack(pool, budget, "at the end of the file, before disposal");
                stream.Dispose();
                await stream.AheadWorker;
                AllGivenBack(pool, budget, "after disposal");
            });
        }

        [Fact]
        public void ADisposeFromAnotherThread_DuringReadsAndTheDecodeAhead_NeverWritesAReturnedArrayNorLosesOne()
        {
            const byte NextRenters = 0x5A;
            byte[] file = Lz4Frames.Frame(s_data);
            RunOnAFreshStream(file, async (pool, budget, stream, choose) =>
            {
                int readsBeforeDispose = choose.NextInteger(3); // 0: at once; else once the worker may be under way
                TaskCompletionSource<bool> readEnough = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                Task reader = Task.Run(async () =>
                {
                    byte[] buffer = new byte[ReadSizes[^1]];
                    long offset = 0;
                    int reads = 0;
                    try
                    {
                        int read;
                        while ((read = stream.Read(buffer, 0, NextReadSize(choose, offset))) > 0)
                        {
                            NextBytes(s_data, offset, buffer, read);
                            offset += read;
                            WithinTwoBlocks(stream.Decoder, budget, Lz4Frames.BlockSize);
                            if (++reads == readsBeforeDispose)
                            {
                                readEnough.TrySetResult(true);
                            }

                            await Task.Yield();
                        }
                    }
                    catch (ObjectDisposedException)
                    {
                        // disposed before or during this read: what was read before is checked above
                    }
                    finally
                    {
                        readEnough.TrySetResult(true);
                    }
                });

                // The application disposes the reader from another thread; the pool hands the arrays straight to their
                // next renter, which fills them: the download and the two block buffers.
                List<PooledArray>? next = null;
                long decodedAtDispose = -1;
                Task disposer = Task.Run(async () =>
                {
                    if (readsBeforeDispose > 0)
                    {
                        await readEnough.Task;
                    }

                    stream.Dispose();
                    decodedAtDispose = stream.Decoder.DecodedBytes;
                    Specification.Assert(budget.InUse == 0, "{0} bytes still charged when Dispose returned", budget.InUse);
                    next = NextRenter(pool, new[] { file.Length, Lz4Frames.BlockSize, Lz4Frames.BlockSize }, NextRenters);
                });

                await Task.WhenAll(new[] { reader, disposer });
                await stream.AheadWorker;
                Specification.Assert(stream.Decoder.DecodedBytes == decodedAtDispose, "a block was decoded after Dispose returned");
                UntouchedBy(next!, NextRenters, "the stream or its worker");
                AllGivenBack(pool, budget, "after disposal");
            });
        }

        [Theory]
        [InlineData("third block's size")]
        [InlineData("content checksum")]
        public void ACorruptBlock_DecodedAheadOrByTheReader_FailsTheReadThatReachesItAfterEveryEarlierByte(string corruption)
        {
            // A size field over the frame's block maximum fails at the third block, a content checksum mismatch at the
            // last one (before any byte of it is delivered).
            bool checksum = corruption == "content checksum";
            byte[] file = Lz4Frames.Frame(s_data, contentChecksum: checksum);
            int goodBytes;
            if (checksum)
            {
                file[^1] ^= 0x5A;
                goodBytes = 3 * Lz4Frames.BlockSize;
            }
            else
            {
                int third = Lz4Frames.BlockStarts(file)[2];
                file[third + 2] = 0xFF;
                goodBytes = 2 * Lz4Frames.BlockSize;
            }

            RunOnAFreshStream(file, async (pool, budget, stream, choose) =>
            {
                byte[] buffer = new byte[ReadSizes[^1]];
                long offset = 0;
                Lz4FormatException? failure = null;
                while (failure == null)
                {
                    int size = NextReadSize(choose, offset);
                    try
                    {
                        int read = stream.Read(buffer, 0, size);
                        Specification.Assert(read == size, "a read of {0} bytes at {1} returned {2} before the corrupt block", size, offset, read);
                        NextBytes(s_data, offset, buffer, read);
                        offset += read;
                        WithinTwoBlocks(stream.Decoder, budget, Lz4Frames.BlockSize);
                        await Task.Yield();
                    }
                    catch (Lz4FormatException error)
                    {
                        Specification.Assert(offset + size > goodBytes, "a read of {0} bytes at {1} failed before reaching the corrupt block at {2}", size, offset, goodBytes);
                        FailsNaming(error, InputName, offset, goodBytes);
                        failure = error;
                    }
                }

                AllGivenBack(pool, budget, "at the failure, before disposal");
                try
                {
                    int after = stream.Read(buffer, 0, 1);
                    Specification.Assert(false, "a read after the failure returned {0} bytes", after);
                }
                catch (Lz4FormatException again)
                {
                    Specification.Assert(ReferenceEquals(again, failure), "a read after the failure threw another error: {0}", again.Message);
                }

                stream.Dispose();
                await stream.AheadWorker;
                AllGivenBack(pool, budget, "after disposal");
            });
        }

        /// <summary>What a reader asks for: Arrow's 8-byte prefix first, then prefixes, reads within a block, and reads of more than a block.</summary>
        private static readonly int[] ReadSizes = { 8, 20_000, Lz4Frames.BlockSize + 4_464 };

        private static int NextReadSize(Generator choose, long offset) => offset == 0 ? ReadSizes[0] : ReadSizes[choose.NextInteger(ReadSizes.Length)];

        /// <summary>
        /// Runs <paramref name="schedule"/> under Coyote, in every schedule on a fresh budget and a fresh stream over
        /// <paramref name="file"/> (decode-ahead on) from the one pool of the database the schedules share.
        /// </summary>
        private void RunOnAFreshStream(byte[] file, Func<Lz4BufferPool, MemoryBudget, Lz4DecodingStream, Generator, Task> schedule)
        {
            using PoolOfTheDatabase database = new PoolOfTheDatabase();
            Lz4BufferPool pool = database.Pool;
            SystematicTest.Run(async () =>
            {
                MemoryBudget budget = new MemoryBudget(48 * 1024 * 1024);
                Lz4StreamingDecoder decoder = new Lz4StreamingDecoder(Lz4Frames.Download(pool, file), pool, InputName, budget);
                await schedule(pool, budget, new Lz4DecodingStream(decoder, onDisposed: null, decodeAhead: true), Generator.Create());
            }, _output, memoryAccessRaces: true);
        }

        /// <summary>
        /// The pool every schedule of a test uses, as a database's pool outlives its queries: made before the schedules,
        /// because a pool that keeps free arrays starts its trimmer, which reads the clock (Coyote controls no clock), and
        /// it must keep them, so that an array a stream gave back goes to its next renter. Released after the schedules.
        /// </summary>
        private sealed class PoolOfTheDatabase : IDisposable
        {
            public Lz4BufferPool Pool { get; } = new Lz4BufferPool(1024 * 1024, 4 * 1024 * 1024, new PoolMeter("decode-ahead-schedules", DatabricksMemoryMetricNames.Lz4BuffersPool));

            public void Dispose() => Pool.Release();
        }
    }
}
