using System.Linq;
using Lz4Reference;

namespace DriverOverlay.Tests
{
    /// <summary>
    /// The overlay's frame decoder against the reference implementations (Debian's liblz4 and the lz4 CLI) over the
    /// whole frame-option matrix. Frames are made by liblz4's streaming encoder, which honours the requested block
    /// size even for small inputs and writes stored blocks for incompressible data.
    /// </summary>
    public class Lz4FrameDecoderReferenceTests
    {
        public static IEnumerable<object[]> FrameOptionMatrix()
        {
            foreach (BlockMaxSize blockSize in Enum.GetValues<BlockMaxSize>())
            {
                foreach (bool independent in new[] { true, false })
                {
                    foreach (bool contentChecksum in new[] { false, true })
                    {
                        foreach (bool blockChecksum in new[] { false, true })
                        {
                            foreach (bool contentSize in new[] { false, true })
                            {
                                yield return new object[] { blockSize, independent, contentChecksum, blockChecksum, contentSize };
                            }
                        }
                    }
                }
            }
        }

        [SkippableTheory]
        [MemberData(nameof(FrameOptionMatrix))]
        public void DecodesEveryFrameOptionLikeLiblz4(BlockMaxSize blockSize, bool independent, bool contentChecksum, bool blockChecksum, bool contentSize)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            var options = new FrameOptions
            {
                BlockSize = blockSize,
                IndependentBlocks = independent,
                ContentChecksum = contentChecksum,
                BlockChecksum = blockChecksum,
                ContentSize = contentSize,
            };

            // More than two blocks of the largest size in play, ending mid-block; a stored (random) stretch in the middle.
            int blockBytes = options.BlockSizeBytes;
            int length = (2 * blockBytes) + (blockBytes / 3) + 17;
            byte[] original = TestData.Mixed(length, seed: (int)blockSize * 31 + (independent ? 1 : 0));
            TestData.Random(blockBytes / 2, seed: 5).CopyTo(original, blockBytes / 2);

            byte[] frame = NativeLz4.CompressFrame(original, options);
            byte[] decoded = Lz4Decoding.Decode(frame, out int frames);

            Assert.Equal(1, frames);
            Assert.Equal(original.Length, decoded.Length);
            Assert.True(original.AsSpan().SequenceEqual(decoded), $"decoded bytes differ from the original for {options}");
            Assert.True(NativeLz4.DecompressFrame(frame).AsSpan().SequenceEqual(decoded), "liblz4 disagrees");
            Assert.Equal(original.Length, Lz4FrameBounds.DecodedLengthBound(frame));
        }

        [SkippableTheory]
        [InlineData(0)]
        [InlineData(1)]
        [InlineData(15)]
        [InlineData(16)]
        [InlineData(65535)]
        [InlineData(65536)]
        [InlineData(65537)]
        public void DecodesSizesAroundBlockAndCopyBoundaries(int length)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] original = TestData.Mixed(length, seed: length);
            foreach (bool independent in new[] { true, false })
            {
                var options = new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = independent, ContentChecksum = true, ContentSize = true };
                byte[] frame = NativeLz4.CompressFrame(original, options);

                byte[] decoded = Lz4Decoding.Decode(frame, out int frames);

                Assert.Equal(1, frames);
                Assert.Equal(original, decoded);
            }
        }

        [SkippableFact]
        public void EmptyContentFrameDecodesToNothing()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] frame = NativeLz4.CompressFrame(Array.Empty<byte>(), new FrameOptions { ContentChecksum = true });

            byte[] decoded = Lz4Decoding.Decode(frame, out int frames);

            Assert.Empty(decoded);
            Assert.Equal(1, frames);
            Assert.Empty(NativeLz4.DecompressFrame(frame));
        }

        [SkippableFact]
        public void EmptyInputIsAnErrorNotAnEmptyResult()
        {
            // A zero-byte CloudFetch body is a failed download; decoding it to zero rows would lose data silently.
            var error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.Decode(Array.Empty<byte>()));

            Assert.Equal(0, error.Offset);
            Assert.Contains("empty", error.Message);
        }

        [SkippableFact]
        public void LinkedBlocksWithMatchesReachingIntoEarlierBlocksDecode()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            // Repetitive data makes liblz4 reference the previous block in linked mode; 64 KB blocks make many of them.
            byte[] original = TestData.Repetitive(700_000, seed: 3);
            var options = new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false, ContentChecksum = true };
            byte[] linked = NativeLz4.CompressFrame(original, options);
            byte[] independent = NativeLz4.CompressFrame(original, options with { IndependentBlocks = true });

            Assert.True(linked.Length < independent.Length, "the linked frame should use cross-block matches");
            Assert.Equal(original, Lz4Decoding.Decode(linked));
        }

        [SkippableFact]
        public void ConcatenatedFramesWithDifferentOptionsAndSkippableFramesDecodeLikeTheCli()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            Skip.IfNot(Lz4Cli.IsAvailable, Lz4Cli.UnavailableReason);
            byte[] first = TestData.Mixed(5_000_000, seed: 1);
            byte[] second = TestData.Random(70_000, seed: 2);
            byte[] third = TestData.Repetitive(300_000, seed: 3);
            byte[] input = Concat(
                NativeLz4.CompressFrame(first, FrameOptions.Databricks),
                SkippableFrame(0x184D2A5F, 1000),
                NativeLz4.CompressFrame(second, new FrameOptions { BlockSize = BlockMaxSize.Max64KB, BlockChecksum = true }),
                NativeLz4.CompressFrame(Array.Empty<byte>(), new FrameOptions()),
                SkippableFrame(0x184D2A50, 0),
                NativeLz4.CompressFrame(third, new FrameOptions { BlockSize = BlockMaxSize.Max256KB, IndependentBlocks = false, ContentChecksum = true, ContentSize = true }));

            byte[] decoded = Lz4Decoding.Decode(input, out int frames);

            Assert.Equal(4, frames);
            Assert.Equal(Concat(first, second, third), decoded);
            Assert.Equal(decoded.Length, Lz4FrameBounds.DecodedLengthBound(input));
            Assert.Equal(Lz4Cli.Decompress(input), decoded);
        }

        [SkippableFact]
        public void DatabricksLastFileShapeWithATinyTrailingFrameKeepsEveryByte()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            // The last CloudFetch file of a result is often split into frames at Arrow message boundaries, ending in a
            // frame that holds only the 8-byte end-of-stream marker. A stream-based frame reader that reports EOF at a
            // frame boundary loses it; this decoder must not.
            byte[] body = TestData.Mixed(4 * 1024 * 1024, seed: 9); // exactly one 4 MB block
            byte[] endOfStream = { 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0 };
            byte[] input = Concat(NativeLz4.CompressFrame(body, FrameOptions.Databricks), NativeLz4.CompressFrame(endOfStream, FrameOptions.Databricks));

            byte[] decoded = Lz4Decoding.Decode(input, out int frames);

            Assert.Equal(2, frames);
            Assert.Equal(Concat(body, endOfStream), decoded);
        }

        [SkippableTheory]
        [InlineData("-B4 -BD --content-size")]
        [InlineData("-B5 -BX")]
        [InlineData("-B6 --no-frame-crc")]
        [InlineData("-B7 -9")]
        [InlineData("-B4 -BD -BX --content-size -12")]
        public void DecodesFramesWrittenByTheLz4Cli(string flags)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            Skip.IfNot(Lz4Cli.IsAvailable, Lz4Cli.UnavailableReason);
            byte[] original = TestData.Mixed(1_500_000, seed: flags.Length);

            byte[] frame = Lz4Cli.Compress(original, flags);

            Assert.Equal(original, Lz4Decoding.Decode(frame));
        }

        [SkippableFact]
        public void RandomisedFramesMatchTheOriginal()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            var random = new Random(20261121);
            for (int round = 0; round < 60; round++)
            {
                int length = random.Next(4) switch
                {
                    0 => random.Next(0, 64),
                    1 => random.Next(64, 70_000),
                    2 => random.Next(70_000, 600_000),
                    _ => random.Next(600_000, 5_000_000),
                };
                byte[] original = random.Next(5) == 0 ? TestData.Random(length, round) : TestData.Mixed(length, round);
                var options = new FrameOptions
                {
                    BlockSize = (BlockMaxSize)random.Next(4, 8),
                    IndependentBlocks = random.Next(2) == 0,
                    ContentChecksum = random.Next(2) == 0,
                    BlockChecksum = random.Next(2) == 0,
                    ContentSize = random.Next(2) == 0,
                    CompressionLevel = random.Next(3) == 0 ? 9 : 0,
                };

                byte[] frame = NativeLz4.CompressFrame(original, options);
                byte[] decoded = Lz4Decoding.Decode(frame);

                Assert.True(original.AsSpan().SequenceEqual(decoded), $"round {round}: {length} bytes, {options}");
                Assert.Equal(original.Length, Lz4FrameBounds.DecodedLengthBound(frame));
            }
        }

        [SkippableFact]
        public void BlockLengthMeasureAgreesWithLiblz4OnRawBlocks()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            var random = new Random(7);
            for (int round = 0; round < 200; round++)
            {
                byte[] original = TestData.Mixed(random.Next(1, 200_000), round);
                byte[] block = NativeLz4.CompressBlock(original);

                Assert.Equal(original.Length, Lz4BlockLength.Measure(block));
            }
        }

        [SkippableFact]
        public void BlockLengthMeasureAgreesWithLiblz4OnEveryGarbageBlockLiblz4Accepts()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            // Random and mutated blocks: whenever the reference decodes one, the measure must give its length (it
            // sizes outputs); blocks the reference rejects may measure either way (offsets are K4os' to check).
            var random = new Random(11);
            byte[] valid = NativeLz4.CompressBlock(TestData.Mixed(50_000, 1));
            int accepted = 0;
            for (int round = 0; round < 3000; round++)
            {
                byte[] block = round % 2 == 0 ? TestData.Random(random.Next(1, 300), round) : (byte[])valid.Clone();
                if (round % 2 == 1)
                {
                    for (int flips = random.Next(1, 4); flips > 0; flips--)
                    {
                        block[random.Next(block.Length)] ^= (byte)random.Next(1, 256);
                    }
                }

                byte[] theirs = new byte[60_000];
                int theirLength = NativeLz4.DecompressBlock(block, theirs);
                if (theirLength >= 0)
                {
                    accepted++;
                    Assert.Equal(theirLength, Lz4BlockLength.Measure(block));
                }
            }

            Assert.True(accepted > 100, $"only {accepted} garbage blocks were valid; the test exercises too little");
        }

        [SkippableFact]
        public void AFrameWhoseMiddleBlocksAreNotFullIsBoundedFromAboveAndDecodes()
        {
            // An encoder that flushes mid-stream writes short blocks before the last one; the header bound counts
            // them at the block maximum, the measured bound exactly.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[][] pieces = { TestData.Mixed(10_000, seed: 1), TestData.Mixed(30_000, seed: 2), TestData.Mixed(5_000, seed: 3) };
            byte[] template = NativeLz4.CompressFrame(System.Array.Empty<byte>(), new FrameOptions { BlockSize = BlockMaxSize.Max64KB });
            var frame = new List<byte>(template.AsSpan(0, 7).ToArray()); // magic, FLG, BD, header checksum
            foreach (byte[] piece in pieces)
            {
                byte[] block = NativeLz4.CompressBlock(piece);
                frame.AddRange(BitConverter.GetBytes(block.Length));
                frame.AddRange(block);
            }

            frame.AddRange(new byte[4]);
            byte[] input = frame.ToArray();
            byte[] expected = Concat(pieces);

            long bound = Lz4FrameBounds.DecodedLengthBound(input);
            using DatabricksMemoryLease lease = DatabricksMemoryScope.Create(null);
            byte[] decoded = Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, input);

            Assert.Equal(45_000, bound);
            Assert.Equal(expected, decoded);
            Assert.Equal(NativeLz4.DecompressFrame(input), expected);
        }

        [SkippableTheory]
        [InlineData(10_000_000, true)]
        [InlineData(10_000_000, false)]
        [InlineData(100, true)]
        public void HeaderBoundsBracketTheDecodedLengthWithoutMeasuring(int length, bool compressible)
        {
            // A big last block counts at the 4 MB block maximum; a tiny one at what its bytes can expand to.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] original = compressible ? TestData.Mixed(length, seed: 8) : TestData.Random(length, seed: 8);
            byte[] frame = NativeLz4.CompressFrame(original, FrameOptions.Databricks);
            int blocks = (length + FrameOptions.Databricks.BlockSizeBytes - 1) / FrameOptions.Databricks.BlockSizeBytes;

            Assert.True(Lz4FrameBounds.HeaderBounds(frame, out long upper, out long lower));

            // Incompressible blocks are stored, so their sizes are exact in both bounds.
            long expectedUpper = !compressible ? length
                : length > 1_000_000 ? (long)blocks * FrameOptions.Databricks.BlockSizeBytes
                : (frame.Length - 7 - 8) * 255L + 64; // one block: the frame minus header, block size and end mark
            Assert.Equal(expectedUpper, upper);
            Assert.InRange(lower, 1, length);
            Assert.Equal(length, Lz4FrameBounds.DecodedLengthBound(frame));
            Assert.False(Lz4FrameBounds.HeaderBounds(frame.AsSpan(0, frame.Length - 1), out _, out _));
        }

        [SkippableFact]
        public void AFrameOfManyTinyBlocksIsBoundedByWhatItsBytesCanExpandTo()
        {
            // 500 one-byte blocks in a frame that declares 4 MB blocks: counting each unmeasured block at the block
            // maximum would size a 2 GB buffer from 3 KB of input.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] template = NativeLz4.CompressFrame(System.Array.Empty<byte>(), FrameOptions.Databricks);
            var frame = new List<byte>(template.AsSpan(0, 7).ToArray());
            byte[] expected = new byte[500];
            for (int i = 0; i < expected.Length; i++)
            {
                expected[i] = (byte)i;
                byte[] block = NativeLz4.CompressBlock(new[] { expected[i] });
                frame.AddRange(BitConverter.GetBytes(block.Length));
                frame.AddRange(block);
            }

            frame.AddRange(new byte[4]);
            byte[] input = frame.ToArray();

            long bound = Lz4FrameBounds.DecodedLengthBound(input);
            Assert.True(Lz4FrameBounds.HeaderBounds(input, out long upper, out long lower));
            using DatabricksMemoryLease lease = DatabricksMemoryScope.Create(null);
            byte[] decoded = Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, input);

            Assert.InRange(bound, expected.Length, (long)input.Length * 255);
            Assert.InRange(upper, bound, (long)input.Length * 255);
            Assert.InRange(lower, 1, upper);
            Assert.Equal(expected, decoded);
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        private static byte[] SkippableFrame(uint magic, int length)
        {
            byte[] frame = new byte[8 + length];
            BitConverter.GetBytes(magic).CopyTo(frame, 0);
            BitConverter.GetBytes(length).CopyTo(frame, 4);
            TestData.Random(length, 99).CopyTo(frame, 8);
            return frame;
        }

        private static byte[] Concat(params byte[][] parts) => parts.SelectMany(p => p).ToArray();
    }
}
