using System.Buffers.Binary;
using Lz4Reference;

namespace DriverOverlay.Tests
{
    /// <summary>
    /// Malformed input gives an <see cref="Lz4FormatException"/> that says what and where: never another exception
    /// type, a hang, wrong bytes presented as success, or an allocation beyond what the input allows.
    /// </summary>
    public class Lz4FrameDecoderMalformedInputTests
    {
        private static byte[] SmallFrame(bool checksums) => NativeLz4.CompressFrame(
            TestData.Mixed(150_000, seed: 4),
            new FrameOptions { BlockSize = BlockMaxSize.Max64KB, ContentChecksum = checksums, BlockChecksum = checksums, ContentSize = true });

        [SkippableFact]
        public void TruncationAtEveryOffsetIsReported()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = NativeLz4.CompressFrame(
                TestData.Mixed(9_000, seed: 4),
                new FrameOptions { BlockSize = BlockMaxSize.Max64KB, ContentChecksum = true });
            Assert.Equal(9_000, Lz4Decoding.Decode(frame).Length);

            for (int length = 0; length < frame.Length; length++)
            {
                byte[] truncated = frame.AsSpan(0, length).ToArray();

                var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(truncated));

                Assert.InRange(error.Offset, 0, length);
                Assert.Equal(-1, Lz4FrameBounds.DecodedLengthBound(truncated));
                Assert.StartsWith($"Invalid LZ4 data at byte {error.Offset}: ", error.Message);
            }
        }

        [Theory]
        [InlineData(new byte[] { 0x04, 0x22, 0x4D })]
        [InlineData(new byte[] { 0x04 })]
        public void AnInputTooShortForAFrameSaysSoWithItsLength(byte[] input)
        {
            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(input));
            Assert.Equal($"Invalid LZ4 data at byte 0: the input is {input.Length} byte(s), too short for an LZ4 frame (at least 7)", error.Message);
        }

        [Fact]
        public void AContentSizeBeyondLongIsReportedAsWritten()
        {
            // FLG 0x68: version 1, independent blocks, content size; BD 0x70: 4 MB blocks; size 2^64-1; one stored byte.
            var frame = new List<byte>(BitConverter.GetBytes(Lz4FrameDecoder.FrameMagic));
            byte[] descriptor = new byte[10];
            descriptor[0] = 0x68;
            descriptor[1] = 0x70;
            BinaryPrimitives.WriteUInt64LittleEndian(descriptor.AsSpan(2), ulong.MaxValue);
            frame.AddRange(descriptor);
            frame.Add((byte)(K4os.Hash.xxHash.XXH32.DigestOf(descriptor) >> 8));
            frame.AddRange(BitConverter.GetBytes(0x80000001u));
            frame.Add(0x2A);
            frame.AddRange(new byte[4]);

            var error = Assert.Throws<Lz4FormatException>(() => Lz4FrameDecoder.Decode(frame.ToArray(), new byte[64], out _).ToString());
            Assert.Contains("declares 18446744073709551615 bytes of content", error.Message);
        }

        [SkippableFact]
        public void EverySingleByteFlipIsDetectedWhenTheFrameCarriesChecksums()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = SmallFrame(checksums: true);
            var random = new Random(1);
            for (int position = 0; position < frame.Length; position += 1 + random.Next(40))
            {
                byte[] corrupt = (byte[])frame.Clone();
                corrupt[position] ^= (byte)(1 << random.Next(8));

                var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(corrupt));

                Assert.InRange(error.Offset, 0, corrupt.Length);
            }
        }

        [SkippableFact]
        public void ByteFlipsWithoutChecksumsNeverCrashOrOverrunTheDeclaredSize()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = SmallFrame(checksums: false);
            var random = new Random(2);
            for (int round = 0; round < 2000; round++)
            {
                byte[] corrupt = (byte[])frame.Clone();
                corrupt[random.Next(corrupt.Length)] ^= (byte)random.Next(1, 256);

                try
                {
                    // Without checksums LZ4 cannot notice every change, but a success must still honour the
                    // declared content size exactly.
                    Assert.Equal(150_000, Lz4Decoding.Decode(corrupt).Length);
                }
                catch (Lz4FormatException error)
                {
                    Assert.InRange(error.Offset, 0, corrupt.Length);
                }
            }
        }

        public static IEnumerable<object[]> HeaderCorruptions() => new[]
        {
            new object[] { "bad magic", new Action<byte[]>(f => f[0] = 0x05), "bad magic number 0x184D2205", 0 },
            new object[] { "version 0", new Action<byte[]>(f => f[4] &= 0x3F), "unsupported frame version 0", 4 },
            new object[] { "reserved flag bit", new Action<byte[]>(f => f[4] |= 0x02), "reserved bit of the frame flags", 4 },
            new object[] { "dictionary id", new Action<byte[]>(f => f[4] |= 0x01), "needs a dictionary", 4 },
            new object[] { "reserved BD bit", new Action<byte[]>(f => f[5] |= 0x80), "reserved bit of the block descriptor", 5 },
            new object[] { "block size code 3", new Action<byte[]>(f => f[5] = 0x30), "invalid block maximum size code 3", 5 },
            new object[] { "legacy magic", new Action<byte[]>(f => BinaryPrimitives.WriteUInt32LittleEndian(f, 0x184C2102)), "legacy LZ4 format", 0 },
        };

        [SkippableTheory]
        [MemberData(nameof(HeaderCorruptions))]
        public void HeaderProblemsAreNamed(string name, Action<byte[]> corrupt, string expectedProblem, int expectedOffset)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = NativeLz4.CompressFrame(TestData.Mixed(1000, 1), new FrameOptions { BlockSize = BlockMaxSize.Max64KB });
            corrupt(frame);

            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(frame));

            Assert.True(error.Message.Contains(expectedProblem), $"{name}: {error.Message}");
            Assert.Equal(expectedOffset, error.Offset);
        }

        [SkippableFact]
        public void HeaderChecksumMismatchIsReportedAtTheChecksumByte()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = NativeLz4.CompressFrame(TestData.Mixed(1000, 1), new FrameOptions { BlockSize = BlockMaxSize.Max64KB });
            frame[6] ^= 0xFF; // magic(4) FLG BD HC

            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(frame));

            Assert.Contains("frame header checksum mismatch", error.Message);
            Assert.Equal(6, error.Offset);
        }

        [SkippableFact]
        public void BlockLargerThanTheDeclaredMaximumIsRejectedBeforeDecoding()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] data = TestData.Random(200_000, 3);
            byte[] frame = NativeLz4.CompressFrame(data, new FrameOptions { BlockSize = BlockMaxSize.Max256KB });
            frame[5] = 0x40;                           // now declare 64 KB blocks ...
            frame[6] = HeaderChecksum(frame.AsSpan(4, 2)); // ... with a valid header checksum

            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(frame));

            Assert.Contains("a block of 200000 bytes exceeds the frame's declared maximum of 65536", error.Message);
            Assert.Equal(7, error.Offset);
        }

        [SkippableFact]
        public void ChecksumMismatchesAreNamed()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] data = TestData.Random(1000, 3); // one stored block: flipping a data byte changes only the data
            byte[] withBlockChecksum = NativeLz4.CompressFrame(data, new FrameOptions { BlockSize = BlockMaxSize.Max64KB, BlockChecksum = true });
            withBlockChecksum[7 + 4 + 10] ^= 1;
            byte[] withContentChecksum = NativeLz4.CompressFrame(data, new FrameOptions { BlockSize = BlockMaxSize.Max64KB, ContentChecksum = true });
            withContentChecksum[7 + 4 + 10] ^= 1;

            Assert.Contains("block checksum mismatch", Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(withBlockChecksum)).Message);
            var content = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(withContentChecksum));
            Assert.Contains("content checksum mismatch", content.Message);
            Assert.Equal(withContentChecksum.Length - 4, content.Offset);
        }

        [SkippableFact]
        public void ContentSizeMismatchIsReported()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = NativeLz4.CompressFrame(TestData.Mixed(5000, 1), new FrameOptions { BlockSize = BlockMaxSize.Max64KB, ContentSize = true });
            BinaryPrimitives.WriteUInt64LittleEndian(frame.AsSpan(6), 4999);
            frame[14] = HeaderChecksum(frame.AsSpan(4, 10));

            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(frame));

            Assert.Contains("declares 4999 bytes of content but decodes to 5000", error.Message);
        }

        [SkippableFact]
        public void LinkedFrameRelabelledIndependentCannotReachIntoThePreviousBlock()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = NativeLz4.CompressFrame(TestData.Repetitive(300_000, 1), new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false });
            frame[4] |= 0x20; // claim independent blocks
            frame[6] = HeaderChecksum(frame.AsSpan(4, 2));

            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(frame));

            Assert.Contains("reaches back before the start", error.Message);
            int firstBlockEnd = 7 + 4 + (int)(BinaryPrimitives.ReadUInt32LittleEndian(frame.AsSpan(7)) & 0x7FFFFFFF);
            Assert.True(error.Offset > firstBlockEnd, $"the first block is valid on its own; error at {error.Offset}, first block ends at {firstBlockEnd}");
        }

        [Fact]
        public void HugeDeclaredContentSizeDoesNotAllocateIt()
        {
            // A 20-byte frame claiming 1.9 GB of content must fail without trying to allocate 1.9 GB.
            byte[] frame = new byte[20];
            BinaryPrimitives.WriteUInt32LittleEndian(frame, Lz4FrameDecoder.FrameMagic);
            frame[4] = 0x40 | 0x20 | 0x08; // version 1, independent, content size
            frame[5] = 0x70;               // 4 MB blocks
            BinaryPrimitives.WriteUInt64LittleEndian(frame.AsSpan(6), 1_900_000_000);
            frame[14] = HeaderChecksum(frame.AsSpan(4, 10));
            BinaryPrimitives.WriteUInt32LittleEndian(frame.AsSpan(15), 0x80000001); // one stored byte ...
            frame[19] = 42;                                                         // ... then the input ends

            long before = GC.GetAllocatedBytesForCurrentThread();
            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(frame));
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

            Assert.Contains("ends inside a frame", error.Message);
            Assert.True(allocated < 1_000_000, $"allocated {allocated} bytes for a 20-byte input");
        }

        [Fact]
        public void SkippableFrameLongerThanTheInputIsReported()
        {
            byte[] input = new byte[12];
            BinaryPrimitives.WriteUInt32LittleEndian(input, 0x184D2A53);
            BinaryPrimitives.WriteUInt32LittleEndian(input.AsSpan(4), 100);

            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(input));

            Assert.Contains("skippable frame declares 100 bytes but only 4 remain", error.Message);
        }

        [SkippableFact]
        public void TrailingGarbageAfterAValidFrameIsAnError()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = NativeLz4.CompressFrame(TestData.Mixed(1000, 1), new FrameOptions());
            byte[] input = new byte[frame.Length + 3];
            frame.CopyTo(input, 0);

            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(input));

            Assert.Contains("3 trailing byte(s) after frame 1", error.Message);
            Assert.Equal(-1, Lz4FrameBounds.DecodedLengthBound(input));
            Assert.Equal(frame.Length, error.Offset);
        }

        [Theory]
        [InlineData(new byte[] { 0x00, 0x01, 0x00 }, "sequences are malformed")]                            // ends after a match, no last literals
        [InlineData(new byte[] { 0x50, 0x41 }, "sequences are malformed")]                                  // 5 literals, 1 present
        [InlineData(new byte[] { 0xF0, 0xFF }, "sequences are malformed")]                                  // literal length extension never ends
        [InlineData(new byte[] { 0x10, 0x41, 0x01 }, "sequences are malformed")]                            // offset cut in half
        [InlineData(new byte[] { 0x10, 0x41, 0x00, 0x00, 0x10, 0x42 }, "has offset 0 or reaches back")]   // 1 literal, offset 0, last literal
        [InlineData(new byte[] { 0x10, 0x41, 0x02, 0x00, 0x10, 0x42 }, "has offset 0 or reaches back")]   // offset 2 with 1 byte of history
        public void BlockErrorsAreNamedAtTheBlock(byte[] block, string expectedProblem)
        {
            byte[] frame = FrameOfOneBlock(block, contentSize: null);

            var viaArray = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(frame));
            using DatabricksMemoryLease lease = DatabricksMemoryScope.Create(null);
            var viaStream = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, frame));

            foreach (Lz4FormatException error in new[] { viaArray, viaStream })
            {
                Assert.Contains(expectedProblem, error.Message);
                Assert.Equal(11, error.Offset); // the block's first byte: after the 7-byte header and its size field
                Assert.StartsWith("Invalid LZ4 data at byte 11: ", error.Message);
            }

            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [Fact]
        public void BlockThatDecodesPastTheDeclaredContentSizeIsRejected()
        {
            byte[] block = { 0x1F, 0x41, 0x01, 0x00, 0xFF, 0x00, 0x10, 0x42 }; // 'A', a 4+15+255 byte run of it, 'B'
            byte[] frame = FrameOfOneBlock(block, contentSize: 100);
            using DatabricksMemoryLease lease = DatabricksMemoryScope.Create(null);

            // Decoded as read (the CloudFetch path), the block overruns the 100 bytes the frame allows.
            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, frame));
            Assert.Contains("decodes to more bytes than the frame allows", error.Message);
            Assert.Equal(15 + 4, error.Offset);

            // Measured (the exact-array path), the mismatch is found before decoding.
            var measured = Assert.Throws<Lz4FormatException>(() => lease.Scope.Lz4.DecompressToArray(frame));
            Assert.Contains("declares 100 bytes of content but decodes to 276", measured.Message);
            Assert.Equal(0, measured.Offset);
        }

        /// <summary>One compressed block in an independent-block frame with 64 KB blocks (and a content size if given).</summary>
        internal static byte[] FrameOfOneBlock(byte[] block, long? contentSize)
        {
            var frame = new List<byte>();
            frame.AddRange(BitConverter.GetBytes(Lz4FrameDecoder.FrameMagic));
            var descriptor = new List<byte> { (byte)(0x40 | 0x20 | (contentSize.HasValue ? 0x08 : 0)), 0x40 };
            if (contentSize.HasValue)
            {
                descriptor.AddRange(BitConverter.GetBytes((ulong)contentSize.Value));
            }

            frame.AddRange(descriptor);
            frame.Add(HeaderChecksum(descriptor.ToArray()));
            frame.AddRange(BitConverter.GetBytes(block.Length));
            frame.AddRange(block);
            frame.AddRange(new byte[4]);
            return frame.ToArray();
        }

        private static byte HeaderChecksum(ReadOnlySpan<byte> descriptor) => (byte)(K4os.Hash.xxHash.XXH32.DigestOf(descriptor) >> 8);
    }
}
