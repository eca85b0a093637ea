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
using System.Threading.Tasks;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using K4os.Compression.LZ4.Streams;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// CloudFetch files decoded as they are read (<see cref="ScopedLz4Decompressor.DecodeAsRead"/>, over
    /// <see cref="Lz4StreamingDecoder"/>), on frames written by K4os: every frame kind byte-exact at small and whole-file
    /// read sizes, a corrupt block failing only the read that reaches it, and nothing left in use afterwards. With
    /// decode-ahead (the default), the block after the one being read is decoded before the reader asks for it, at most
    /// one block ahead, both blocks charged to the database's budget, and a corrupt block decoded ahead still fails only
    /// the read that reaches it.
    /// </summary>
    public class Lz4StreamingDecoderTest
    {
        private const int WholeFile = 16 * MiB;

        /// <summary>Every frame kind the decoder accepts, as (original, LZ4 file), built once.</summary>
        private static readonly Dictionary<string, Lazy<(byte[] Data, byte[] Compressed)>> s_frames = new Dictionary<string, Lazy<(byte[], byte[])>>
        {
            ["independent-4m"] = Frame(5 * MiB + 12345, IndependentBlocks4MiB()),
            ["independent-4m-content-size"] = Frame(5 * MiB + 12345, IndependentBlocks4MiB(), withContentSize: true),
            ["independent-4m-checksums"] = Frame(5 * MiB + 1, new LZ4EncoderSettings { BlockSize = 4 * MiB, ChainBlocks = false, ContentChecksum = true, BlockChecksum = true }),
            ["linked-64k"] = Frame(MiB + 12345, Linked64K()),
            ["linked-64k-content-checksum"] = Frame(700 * KiB, new LZ4EncoderSettings { BlockSize = 64 * KiB, ChainBlocks = true, ContentChecksum = true }),
            ["independent-256k-stored-blocks"] = new Lazy<(byte[], byte[])>(WithStoredBlocks),
            ["concatenated-with-skippable"] = new Lazy<(byte[], byte[])>(ConcatenatedWithSkippable),
        };

        public static TheoryData<string, int> FrameKindsAndReadSizes()
        {
            TheoryData<string, int> cases = new TheoryData<string, int>();
            foreach (string kind in s_frames.Keys)
            {
                // Arrow's small reads (8-byte message prefixes), an odd size that straddles blocks, the whole file at once.
                foreach (int readSize in new[] { 8, 100_003, WholeFile })
                {
                    cases.Add(kind, readSize);
                }
            }

            return cases;
        }

        [Theory]
        [MemberData(nameof(FrameKindsAndReadSizes))]
        public void DecodeAsRead_EveryFrameKind_DecodesByteExactAndLeavesNothingInUse(string kind, int readSize)
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = s_frames[kind].Value;

            // Act
            byte[] decoded;
            using (Stream stream = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, compressed), "chunk 0"))
            {
                decoded = ReadAll(stream, readSize);
            }

            // Assert
            Assert.Equal(data.Length, decoded.Length);
            Assert.True(data.AsSpan().SequenceEqual(decoded), $"{kind}: the decoded bytes differ from the original");
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.Budget.InUse);
        }

        [Fact]
        public void DecodeAsRead_BeforeTheFirstRead_DecodesNothingAndDisposingGivesTheFileBack()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (_, byte[] compressed) = s_frames["independent-4m"].Value;
            PooledBuffer download = Download(scope.BufferPool, compressed);
            long downloadArray = download.Segment.Array!.Length;

            // Act
            Stream stream = scope.Lz4.DecodeAsRead(download);

            // Assert: a queued file costs its compressed bytes only, and nothing decodes ahead before the first read
            Lz4DecodingStream decoding = Assert.IsType<Lz4DecodingStream>(stream);
            Assert.True(decoding.AheadWorker.IsCompleted);
            Assert.Equal(0, decoding.Decoder.DecodedBytes);
            Assert.Equal(downloadArray, scope.BufferPool.InUseBytes);
            stream.Dispose();
            stream.Dispose();
            Assert.False(stream.CanRead);
            Assert.Throws<ObjectDisposedException>(() => stream.ReadByte());
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public async Task DecodeAsRead_AfterTheFirstRead_DecodesTheNextBlockBeforeTheReaderAsksForIt()
        {
            // Arrange: three 4 MiB blocks
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(9 * MiB, seed: 21);
            using Stream stream = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, Lz4Frame(data, IndependentBlocks4MiB())), "chunk 4");
            Lz4StreamingDecoder decoder = ((Lz4DecodingStream)stream).Decoder;
            byte[] prefix = new byte[8];

            // Act: the reader takes 8 bytes of the first block and asks for nothing more
            int read = ReadFully(stream, prefix, prefix.Length);
            await UntilAsync(() => decoder.DecodedBytes == 8 * MiB, Liveness, "the block after the one being read was not decoded ahead");

            // Assert: the second block is decoded, not delivered; the third waits; both blocks are charged to the budget
            Assert.Equal(prefix.Length, read);
            Assert.Equal(prefix.Length, stream.Position);
            Assert.Equal(2 * 4 * MiB, scope.Budget.InUse);
            byte[] rest = ReadAll(stream, 100_003);
            Assert.True(data.AsSpan(0, prefix.Length).SequenceEqual(prefix));
            Assert.True(data.AsSpan(prefix.Length).SequenceEqual(rest), "the bytes after the prefix differ from the original");
            Assert.Equal(0, scope.Budget.InUse);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Theory]
        [InlineData(true, 2)]
        [InlineData(false, 1)]
        public async Task DecodeAsRead_WhateverTheReadsAndTheWorkerDo_HoldsAtMostTwoBlocksChargedToTheBudget(bool decodeAhead, int blocks)
        {
            // Arrange: five 4 MiB blocks read as Arrow reads them (8-byte prefixes, bodies); after each read the worker
            // has finished, so the block after the one being read is always decoded ahead: the most a reader holds.
            using DatabricksMemoryLease lease = CreateScope((DatabricksMemoryOptions.DecodeAheadKey, decodeAhead ? "true" : "false"));
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(17 * MiB, seed: 22);
            Lz4DecodingStream stream = (Lz4DecodingStream)scope.Lz4.DecodeAsRead(Download(scope.BufferPool, Lz4Frame(data, IndependentBlocks4MiB())));
            byte[] decoded = new byte[data.Length];
            long mostCharged = 0;

            // Act
            int length = 0;
            for (int turn = 0; length < decoded.Length; turn++)
            {
                int read = stream.Read(decoded, length, Math.Min(turn % 2 == 0 ? 8 : 3 * MiB, decoded.Length - length));
                Assert.True(read > 0, "the stream ended early");
                length += read;
                await WithinAsync(stream.AheadWorker, Liveness, "the block decoded ahead");
                mostCharged = Math.Max(mostCharged, scope.Budget.InUse);
            }

            stream.Dispose();

            // Assert
            Assert.True(data.AsSpan().SequenceEqual(decoded), "the decoded bytes differ from the original");
            Assert.Equal(blocks * 4 * MiB, mostCharged);
            Assert.Equal(blocks * 4 * MiB, stream.Decoder.PeakWorkingMemoryBytes);
            Assert.Equal(0, scope.Budget.InUse);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public async Task DecodeAsRead_CorruptBlockDecodedAhead_FailsOnlyTheReadThatReachesIt()
        {
            // Arrange: three 4 MiB blocks, the third one's size field over the frame's 4 MiB maximum
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(9 * MiB, seed: 23);
            byte[] corrupt = WithCorruptThirdBlock(data, out int thirdBlock);
            using Stream stream = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, corrupt), "chunk 7");
            Lz4StreamingDecoder decoder = ((Lz4DecodingStream)stream).Decoder;
            byte[] head = new byte[(4 * MiB) + 8];
            byte[] tail = new byte[(4 * MiB) - 8];

            // Act: the reader is 8 bytes into the second block when the third is decoded ahead and found corrupt
            int headRead = ReadFully(stream, head, head.Length);
            await UntilAsync(() => decoder.InputReleased, Liveness, "the corrupt block decoded ahead did not end the decode");
            int tailRead = ReadFully(stream, tail, tail.Length);

            // Assert: every byte before the corrupt block was delivered, then the read that reached it failed
            Assert.Equal((head.Length, tail.Length), (headRead, tailRead));
            Assert.True(data.AsSpan(0, head.Length).SequenceEqual(head), "bytes of the first block differ");
            Assert.True(data.AsSpan(head.Length, tail.Length).SequenceEqual(tail), "bytes of the second block differ");
            AssertEveryNextReadFailsAtChunk7Byte(thirdBlock, stream, scope);
        }

        [Fact]
        public async Task DecodeAsRead_DisposedWhileTheNextBlockDecodesAhead_GivesEverythingBackAndWritesNoMore()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(9 * MiB, seed: 24);
            Lz4DecodingStream stream = (Lz4DecodingStream)scope.Lz4.DecodeAsRead(Download(scope.BufferPool, Lz4Frame(data, IndependentBlocks4MiB())));
            ReadFully(stream, new byte[8], 8);

            // Act: the block ahead is queued or being decoded
            stream.Dispose();
            long inUseAtDispose = scope.BufferPool.InUseBytes;
            long chargedAtDispose = scope.Budget.InUse;
            await WithinAsync(stream.AheadWorker, Liveness, "the decode-ahead worker");

            // Assert: Dispose waited for a block being decoded; nothing was rented or charged after it
            Assert.Equal(0, inUseAtDispose);
            Assert.Equal(0, chargedAtDispose);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.Budget.InUse);
            Assert.Throws<ObjectDisposedException>(() => stream.ReadByte());
        }

        [Fact]
        public void DecodeAsRead_CorruptThirdBlock_FailsTheReadThatReachesItAndEarlierBytesStayRight()
        {
            // Arrange: three 4 MiB blocks; the third block's size field now exceeds the frame's 4 MiB maximum
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(9 * MiB, seed: 11);
            byte[] corrupt = WithCorruptThirdBlock(data, out int thirdBlock);
            using Stream stream = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, corrupt), "chunk 7");
            byte[] firstTwoBlocks = new byte[8 * MiB];

            // Act
            int read = ReadFully(stream, firstTwoBlocks, firstTwoBlocks.Length);

            // Assert
            Assert.Equal(firstTwoBlocks.Length, read);
            Assert.True(data.AsSpan(0, firstTwoBlocks.Length).SequenceEqual(firstTwoBlocks), "bytes before the corrupt block differ");
            AssertEveryNextReadFailsAtChunk7Byte(thirdBlock, stream, scope);
        }

        /// <summary>
        /// The read that reaches the corrupt block, and every read after it, fails with the same error naming the input
        /// and the block's offset; every array and every charged byte is back at the failure, before the stream is
        /// disposed.
        /// </summary>
        private static void AssertEveryNextReadFailsAtChunk7Byte(int offset, Stream stream, DatabricksMemoryScope scope)
        {
            Lz4FormatException error = Assert.Throws<Lz4FormatException>(() => stream.Read(new byte[1], 0, 1));
            Lz4FormatException again = Assert.Throws<Lz4FormatException>(() => stream.Read(new byte[1], 0, 1));
            Assert.StartsWith($"Invalid LZ4 data in chunk 7 at byte {offset}: a block of ", error.Message);
            Assert.Equal("chunk 7", error.InputName);
            Assert.Same(error, again);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.Budget.InUse);
        }

        [Fact]
        public void DecodeAsRead_ContentChecksumMismatch_FailsBeforeAnyByteOfTheFramesLastBlock()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(5 * MiB, seed: 12);
            byte[] corrupt = Lz4Frame(data, new LZ4EncoderSettings { BlockSize = 4 * MiB, ChainBlocks = false, ContentChecksum = true });
            corrupt[corrupt.Length - 2] ^= 0x5A; // the content checksum, after the end mark
            using Stream stream = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, corrupt));
            byte[] firstBlock = new byte[4 * MiB];

            // Act
            int read = ReadFully(stream, firstBlock, firstBlock.Length);
            Lz4FormatException error = Assert.Throws<Lz4FormatException>(() => stream.Read(new byte[1], 0, 1));

            // Assert
            Assert.Equal(firstBlock.Length, read);
            Assert.Contains("content checksum mismatch", error.Message);
            Assert.True(data.AsSpan(0, firstBlock.Length).SequenceEqual(firstBlock));
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public void DecodeAsRead_ArrowBatchesReadBeforeACorruptBlock_StayValid()
        {
            // Arrange: what the CloudFetch reader does, Apache.Arrow's stream reader over the decoding stream with the
            // scope's batch allocator; a file of 12 batches in 64 KiB blocks, its last block damaged.
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] compressed = Lz4Frame(DbxmemArrowData.IpcStream(batches: 12, rows: 5_000), new LZ4EncoderSettings { BlockSize = 64 * KiB, ChainBlocks = false, BlockChecksum = true });
            List<int> blocks = Blocks(compressed, blockChecksums: true).BlockStarts;
            compressed[blocks[blocks.Count - 1] + 10] ^= 0xFF; // caught by the block's checksum
            List<RecordBatch> kept = new List<RecordBatch>();
            Lz4FormatException? error = null;

            // Act
            using (ArrowStreamReader reader = new ArrowStreamReader(scope.Lz4.DecodeAsRead(Download(scope.BufferPool, compressed), "chunk 2"), scope.BatchAllocator))
            {
                try
                {
                    RecordBatch? batch;
                    while ((batch = reader.ReadNextRecordBatch()) != null)
                    {
                        kept.Add(batch);
                    }
                }
                catch (Lz4FormatException ex)
                {
                    error = ex;
                }
            }

            // Assert
            Assert.NotNull(error);
            Assert.Equal("chunk 2", error!.InputName);
            Assert.InRange(kept.Count, 1, 11);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            for (int i = 0; i < kept.Count; i++)
            {
                DbxmemArrowData.AssertValues(kept[i], i, 5_000); // after the failure and the stream's disposal
                kept[i].Dispose();
            }

            // The body of the batch whose read met the corrupt block was allocated by Apache.Arrow's reader, which drops
            // it without disposing it when the read throws: the pool counts it in use until the GC collects it (its
            // watch then moves it to "collected"). Whether a collection came before this line varied (it did not in a
            // run under heavy load), so the test makes one.
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
        }

        [Fact]
        public void DecodeAsRead_TruncatedEmptyOrNotLz4_FailsWithLz4FormatExceptionAndGivesEverythingBack()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (_, byte[] compressed) = s_frames["independent-4m"].Value;
            byte[] truncated = compressed.AsSpan(0, compressed.Length - 4).ToArray(); // cut before the end mark

            // Act
            Lz4FormatException cut = Assert.Throws<Lz4FormatException>(() => ReadAll(scope.Lz4.DecodeAsRead(Download(scope.BufferPool, truncated)), 4093));
            Lz4FormatException empty = Assert.Throws<Lz4FormatException>(() => ReadAll(scope.Lz4.DecodeAsRead(Download(scope.BufferPool, System.Array.Empty<byte>())), 4093));
            Lz4FormatException garbage = Assert.Throws<Lz4FormatException>(() => ReadAll(scope.Lz4.DecodeAsRead(Download(scope.BufferPool, new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 })), 4093));

            // Assert
            Assert.Contains("the input ends inside a frame", cut.Message);
            Assert.Contains("empty", empty.Message);
            Assert.Contains("bad magic number", garbage.Message);
            Assert.Equal(0, scope.BufferPool.InUseBytes); // the failed streams were never disposed: the failure gave the arrays back
        }

        [Fact]
        public void DecodeAsRead_DatabaseReleasedWhileAFileWaits_StillDecodesAndLeavesNothingBehind()
        {
            // Arrange: a host may dispose the database while a reader still holds queued files
            DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = s_frames["linked-64k"].Value;
            using Stream stream = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, compressed));

            // Act
            lease.Dispose();
            byte[] decoded = ReadAll(stream, 81920);

            // Assert
            Assert.True(scope.IsReleased);
            Assert.Equal(data, decoded);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
        }

        private static Lazy<(byte[], byte[])> Frame(int length, LZ4EncoderSettings settings, bool withContentSize = false) =>
            new Lazy<(byte[], byte[])>(() =>
            {
                byte[] data = Compressible(length, seed: length);
                byte[] frame = Lz4Frame(data, settings);
                return (data, withContentSize ? WithContentSize(frame, data.Length) : frame);
            });

        /// <summary>
        /// <paramref name="data"/> as a frame of 4 MiB blocks whose third block's size field (at <paramref name="thirdBlock"/>)
        /// exceeds the frame's 4 MiB maximum.
        /// </summary>
        private static byte[] WithCorruptThirdBlock(byte[] data, out int thirdBlock)
        {
            byte[] corrupt = Lz4Frame(data, IndependentBlocks4MiB());
            thirdBlock = Blocks(corrupt).BlockStarts[2];
            corrupt[thirdBlock] = 0xFF;
            corrupt[thirdBlock + 1] = 0xFF;
            corrupt[thirdBlock + 2] = 0xFF;
            return corrupt;
        }

        /// <summary>256 KiB blocks around a 300 KiB incompressible stretch: K4os stores the block that holds only noise.</summary>
        private static (byte[], byte[]) WithStoredBlocks()
        {
            byte[] data = Compressible(900 * KiB, seed: 4);
            Incompressible(300 * KiB, seed: 5).CopyTo(data, 256 * KiB); // the second block is all noise
            byte[] frame = WithContentSize(Lz4Frame(data, new LZ4EncoderSettings { BlockSize = 256 * KiB, ChainBlocks = false, BlockChecksum = true }), data.Length);
            Assert.True(Blocks(frame, blockChecksums: true, contentSize: true).HasStoredBlock, "the frame has no stored block to test");
            return (data, frame);
        }

        /// <summary>Skippable frames around two frames of different kinds, as a file of several frames.</summary>
        private static (byte[], byte[]) ConcatenatedWithSkippable()
        {
            byte[] first = Compressible(300 * KiB, seed: 2);
            byte[] second = Compressible(200 * KiB, seed: 3);
            byte[] file = Concatenate(
                SkippableFrame(3),
                WithContentSize(Lz4Frame(first, IndependentBlocks4MiB()), first.Length),
                SkippableFrame(0),
                Lz4Frame(second, Linked64K()),
                SkippableFrame(5));
            return (Concatenate(first, second), file);
        }
    }
}
