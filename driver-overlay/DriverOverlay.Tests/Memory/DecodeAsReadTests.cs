using Lz4Reference;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// CloudFetch files decoded as they are read (<see cref="ScopedLz4Decompressor.DecodeAsRead"/>): every frame kind
    /// byte-exact at any read size, a reader's memory bounded by the compressed file plus one block, the compressed file
    /// given back as its last block is decoded, errors at the read that reaches them with every array back, and every
    /// order of read and dispose.
    /// </summary>
    public class DecodeAsReadTests
    {
        public static TheoryData<string, int, DecodeAhead> FrameKindsAndReadSizes()
        {
            var cases = new TheoryData<string, int, DecodeAhead>();
            foreach (string kind in Frames.Keys)
            {
                // Arrow's reads (8-byte prefixes, then a body), a block at a time, and whole-file reads (every block in place).
                foreach (int readSize in new[] { 8, 100_003, 64 * MiB })
                {
                    foreach (DecodeAhead mode in Enum.GetValues<DecodeAhead>())
                    {
                        cases.Add(kind, readSize, mode);
                    }
                }
            }

            return cases;
        }

        /// <summary>Every frame kind the overlay accepts, as (original, LZ4 file).</summary>
        private static readonly Dictionary<string, Func<(byte[], byte[])>> Frames = new Dictionary<string, Func<(byte[], byte[])>>
        {
            ["databricks-4m"] = () => Sample(9 * MiB + 12345, NoContentSizeFrames),
            ["databricks-4m-content-size"] = () => Sample(9 * MiB + 12345, ContentSizeFrames),
            ["databricks-4m-checksums"] = () => Sample(5 * MiB + 1, FrameOptions.Databricks with { ContentChecksum = true, BlockChecksum = true }),
            ["linked-64k"] = () => Sample(MiB + 12345, Linked64KFrames),
            ["linked-64k-content-checksum"] = () => Sample(700 * KiB, Linked64KFrames with { ContentChecksum = true }),
            ["independent-256k-stored-stretch"] = () => WithStoredStretch(),
            ["concatenated-with-skippable"] = () => Concatenated(),
            ["520x64k-under-4m-header"] = () => ManySmallBlocksUnderA4MiBHeader(),
        };

        [SkippableTheory]
        [MemberData(nameof(FrameKindsAndReadSizes))]
        public void EveryFrameKindDecodesByteExactAtAnyReadSize(string kind, int readSize, DecodeAhead mode)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using var metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = Lz4Decoding.CreateScope(mode);
            (byte[] data, byte[] compressed) = Frames[kind]();

            byte[] decoded = Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, compressed, readSize, settle: mode == DecodeAhead.Settled);

            Assert.True(data.AsSpan().SequenceEqual(decoded), $"{kind}: decoded bytes differ from the original");
            Assert.True(NativeLz4.DecompressFrame(compressed).AsSpan().SequenceEqual(decoded), "liblz4 disagrees");
            Assert.Equal(data.Length, metrics.Sum(lease.Scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            AssertNothingInUse(metrics, lease.Scope);
        }

        [SkippableFact]
        public void ReadsOfAWholeBlockOrMoreDecodeStraightIntoTheReadersBuffer()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using var metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            (byte[] data, byte[] compressed) = Sample(9 * MiB + 12345, NoContentSizeFrames);

            Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, compressed, readSize: 16 * MiB);
            long inPlaceWhole = metrics.Sum(lease.Scope.Id, DatabricksMemoryMetricNames.Lz4DecodedInPlace);
            Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, compressed, readSize: 64 * KiB);
            long inPlaceSmall = metrics.Sum(lease.Scope.Id, DatabricksMemoryMetricNames.Lz4DecodedInPlace) - inPlaceWhole;

            // One read of the whole file: each of the three blocks fits what is left of it (the last one is short).
            Assert.Equal(data.Length, inPlaceWhole);
            Assert.Equal(0, inPlaceSmall);
        }

        [SkippableTheory]
        [InlineData(DecodeAhead.Off, 1)]
        [InlineData(DecodeAhead.Settled, 2)]
        public void AReaderHoldsTheCompressedFileAndAtMostTwoBlocksNeverTheDecodedFile(DecodeAhead mode, int blocks)
        {
            // Settled: the block after the one being read is always decoded ahead, the most a reader ever holds.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using DatabricksMemoryLease lease = Lz4Decoding.CreateScope(mode);
            Lz4BufferPool pool = lease.Scope.BufferPool;
            (byte[] data, byte[] compressed) = Sample(20 * MiB, NoContentSizeFrames);
            using Stream stream = lease.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(pool, compressed));
            long download = pool.InUseBytes;
            byte[] buffer = new byte[8];
            long peak = 0;
            long peakCharged = 0;
            long read = 0;
            bool releasedBeforeTheEnd = false;
            var decoder = ((Lz4DecodingStream)stream).Decoder;
            int n;
            while ((n = stream.Read(buffer, 0, buffer.Length)) > 0)
            {
                Settle(stream);
                Assert.True(data.AsSpan((int)read, n).SequenceEqual(buffer.AsSpan(0, n)), $"wrong bytes at {read}");
                read += n;
                peak = Math.Max(peak, pool.InUseBytes);
                peakCharged = Math.Max(peakCharged, lease.Scope.Budget.InUse);
                releasedBeforeTheEnd |= decoder.InputReleased && read < data.Length;
            }

            Assert.Equal(data.Length, read);
            Assert.Equal(BucketOf(compressed.Length) + (blocks * BucketOf(4 * MiB)), peak); // compressed file + the 4 MiB blocks
            Assert.Equal(blocks * BucketOf(4 * MiB), peakCharged); // the blocks are decode working memory, charged to the budget
            Assert.Equal(blocks * BucketOf(4 * MiB), decoder.PeakWorkingMemoryBytes); // never more, between the samples either
            Assert.Equal(BucketOf(compressed.Length), download);
            Assert.True(releasedBeforeTheEnd, "the compressed file stayed rented until the last byte was read");
            Assert.Equal(0, pool.InUseBytes);
            Assert.Equal(0, lease.Scope.Budget.InUse);
        }

        [SkippableFact]
        public void NothingIsDecodedBeforeTheFirstReadAndDisposingFirstGivesTheDownloadBack()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using var metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            (_, byte[] compressed) = Sample(5 * MiB, NoContentSizeFrames);
            Stream stream = lease.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(lease.Scope.BufferPool, compressed));

            Assert.Equal(BucketOf(compressed.Length), lease.Scope.BufferPool.InUseBytes); // queued, the file costs its compressed bytes
            stream.Dispose();
            stream.Dispose();

            Assert.False(stream.CanRead);
            Assert.Throws<ObjectDisposedException>(() => stream.ReadByte());
            Assert.Equal(0, metrics.Sum(lease.Scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            AssertNothingInUse(metrics, lease.Scope);
        }

        [SkippableFact]
        public void ACorruptBlockFailsTheReadThatReachesItNamingTheFileAndEarlierBytesStayRight()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using var metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            (byte[] data, byte[] compressed) = Sample(9 * MiB, NoContentSizeFrames);
            byte[] corrupt = (byte[])compressed.Clone();
            int thirdBlock = ThirdBlockStart(corrupt);
            corrupt[thirdBlock] = 0xFF; // its size field now exceeds the 4 MiB maximum
            corrupt[thirdBlock + 1] = 0xFF;
            corrupt[thirdBlock + 2] = 0xFF;
            using Stream stream = lease.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(lease.Scope.BufferPool, corrupt), "chunk 7");
            byte[] firstTwoBlocks = new byte[8 * MiB];

            Assert.Equal(firstTwoBlocks.Length, stream.ReadAtLeast(firstTwoBlocks, firstTwoBlocks.Length));
            var error = Assert.Throws<Lz4FormatException>(() => stream.Read(new byte[1], 0, 1));
            var again = Assert.Throws<Lz4FormatException>(() => stream.Read(new byte[1], 0, 1));
            Task<int> asyncRead = stream.ReadAsync(new byte[1], 0, 1);

            Assert.True(data.AsSpan(0, firstTwoBlocks.Length).SequenceEqual(firstTwoBlocks), "bytes before the corrupt block differ");
            Assert.StartsWith($"Invalid LZ4 data in chunk 7 at byte {thirdBlock}: a block of ", error.Message);
            Assert.Equal("chunk 7", error.InputName);
            Assert.Same(error, again);
            Assert.True(asyncRead.IsFaulted, "an async read of a corrupt file must fail in its task");
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes); // every array back at the failure, before the stream is disposed
            stream.Dispose();
            Assert.Equal(1, metrics.Sum(lease.Scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks, reason: DatabricksMemoryMetricNames.ErrorReason));
        }

        [SkippableFact]
        public void AContentChecksumMismatchFailsBeforeAnyByteOfTheFramesLastBlockIsDelivered()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using DatabricksMemoryLease lease = CreateScope();
            (byte[] data, byte[] compressed) = Sample(5 * MiB, FrameOptions.Databricks with { ContentChecksum = true });
            byte[] corrupt = (byte[])compressed.Clone();
            corrupt[^2] ^= 0x5A; // the content checksum

            using Stream stream = lease.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(lease.Scope.BufferPool, corrupt));
            byte[] firstBlock = new byte[4 * MiB];
            Assert.Equal(firstBlock.Length, stream.ReadAtLeast(firstBlock, firstBlock.Length));
            var error = Assert.Throws<Lz4FormatException>(() => stream.Read(new byte[1], 0, 1));

            Assert.Contains("content checksum mismatch", error.Message);
            Assert.True(data.AsSpan(0, firstBlock.Length).SequenceEqual(firstBlock));
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [SkippableFact]
        public void ATruncatedFileFailsAtItsEndAndAnEmptyOneAtOnce()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using DatabricksMemoryLease lease = CreateScope();
            (byte[] data, byte[] compressed) = Sample(5 * MiB, NoContentSizeFrames);

            var truncated = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, Truncated(compressed), readSize: 4093));
            var empty = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, System.Array.Empty<byte>()));
            var garbage = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 }));

            Assert.Contains("the input ends inside a frame", truncated.Message);
            Assert.Contains("empty", empty.Message);
            Assert.Contains("bad magic number", garbage.Message);
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [SkippableFact]
        public void EmptyContentDecodesToAnEmptyStream()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using DatabricksMemoryLease lease = CreateScope();
            foreach (FrameOptions options in new[] { ContentSizeFrames, NoContentSizeFrames })
            {
                byte[] frame = NativeLz4.CompressFrame(System.Array.Empty<byte>(), options);
                Assert.Empty(Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, frame));
                Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
            }
        }

        [SkippableFact]
        public async Task AsyncReadsDecodeAndTheStreamIsForwardOnlyAndReadOnly()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using DatabricksMemoryLease lease = CreateScope();
            (byte[] data, byte[] compressed) = Sample(100 * KiB, Linked64KFrames);
            using Stream stream = lease.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(lease.Scope.BufferPool, compressed));
            byte[] read = new byte[data.Length];
            int total = 0;
            while (total < read.Length)
            {
                int n = await stream.ReadAsync(read.AsMemory(total));
                Assert.True(n > 0, "the stream ended early");
                total += n;
                Assert.Equal(total, stream.Position);
            }

            Assert.Equal(data, read);
            Assert.False(stream.CanSeek);
            Assert.False(stream.CanWrite);
            Assert.Throws<NotSupportedException>(() => stream.Length);
            Assert.Throws<NotSupportedException>(() => stream.Seek(0, SeekOrigin.Begin));
            Assert.Throws<NotSupportedException>(() => stream.Write(read, 0, 1));
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => stream.ReadAsync(read, 0, 1, new CancellationToken(canceled: true)));
        }

        [SkippableFact]
        public void ReadingAfterTheScopeIsReleasedStillDecodesAndLeavesNothingBehind()
        {
            // A host may dispose the database while a reader still holds queued files: they read correctly, and their
            // arrays come back as plain garbage rather than into a released pool.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(5 * MiB, NoContentSizeFrames);
            using Stream stream = scope.Lz4.DecodeAsRead(Lz4Decoding.Download(scope.BufferPool, compressed));

            lease.Dispose();
            byte[] read = Lz4Decoding.ReadAll(stream, 81920);

            Assert.Equal(data, read);
            Assert.True(scope.BufferPool.IsReleased);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
        }

        [SkippableFact]
        public async Task DisposeRacingWithReadsNeverCorruptsOrLeaks()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            (byte[] data, byte[] compressed) = Sample(100 * KiB, Linked64KFrames);

            for (int round = 0; round < 50; round++)
            {
                Stream stream = scope.Lz4.DecodeAsRead(Lz4Decoding.Download(scope.BufferPool, compressed));
                using var start = new Barrier(2);
                var reader = Task.Run(() =>
                {
                    start.SignalAndWait();
                    byte[] chunk = new byte[1000];
                    int offset = 0;
                    try
                    {
                        int n;
                        while ((n = stream.Read(chunk, 0, chunk.Length)) > 0)
                        {
                            // Whatever was read before the dispose must be the original bytes.
                            Assert.True(data.AsSpan(offset, n).SequenceEqual(chunk.AsSpan(0, n)), $"round {round}: wrong bytes at {offset}");
                            offset += n;
                        }
                    }
                    catch (ObjectDisposedException)
                    {
                    }
                });

                start.SignalAndWait();
                stream.Dispose();
                await reader;
            }

            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        /// <summary>Where the third block's size field starts in a single 4 MiB-block frame without checksums or content size.</summary>
        private static int ThirdBlockStart(byte[] frame)
        {
            int position = 7;
            for (int block = 0; block < 2; block++)
            {
                position += 4 + (BitConverter.ToInt32(frame, position) & 0x7FFFFFFF);
            }

            return position;
        }

        private static (byte[], byte[]) WithStoredStretch()
        {
            var options = new FrameOptions { BlockSize = BlockMaxSize.Max256KB, BlockChecksum = true, ContentSize = true };
            byte[] data = Compressible(900 * KiB, seed: 4);
            TestData.Random(300 * KiB, seed: 5).CopyTo(data, 200 * KiB); // incompressible: liblz4 stores these blocks
            return (data, NativeLz4.CompressFrame(data, options));
        }

        private static (byte[], byte[]) Concatenated()
        {
            (byte[] first, byte[] firstFrame) = Sample(300 * KiB, ContentSizeFrames, seed: 2);
            (byte[] second, byte[] secondFrame) = Sample(200 * KiB, Linked64KFrames, seed: 3);
            byte[] skippable = { 0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3 };
            return (Concatenate(first, second), Concatenate(skippable, firstFrame, skippable, secondFrame, skippable));
        }

        /// <summary>520 independent 64 KiB blocks under a header that declares 4 MiB blocks (an encoder that flushes often).</summary>
        private static (byte[], byte[]) ManySmallBlocksUnderA4MiBHeader()
        {
            byte[] data = TestData.Repetitive(520 * 64 * KiB, seed: 7);
            byte[] frame = NativeLz4.CompressFrame(data, new FrameOptions { BlockSize = BlockMaxSize.Max64KB });
            frame[5] = 0x70;
            frame[6] = (byte)(K4os.Hash.xxHash.XXH32.DigestOf(frame.AsSpan(4, 2)) >> 8);
            return (data, frame);
        }
    }
}
