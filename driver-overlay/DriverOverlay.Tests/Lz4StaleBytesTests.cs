using System.Buffers.Binary;
using System.Linq;
using DriverOverlay.Tests.Memory;
using Lz4Reference;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests
{
    /// <summary>
    /// No decoded byte ever comes from what a pooled destination held before. K4os' block decoder accepts a match with
    /// offset 0 (the LZ4 format calls it invalid), which copies bytes the block has not written yet: decoded into a
    /// reused pooled array, such a block returned bytes of an earlier decode, maybe another connection's. Found by
    /// fuzzing: among mutated blocks, those whose output differed between a zeroed and a 0xEE-filled destination all
    /// had an offset-0 match. Without a content checksum (which refuses such output) the decoders clear a block's output
    /// range first: the whole-input decoder ahead of each block, the streaming one in the reader's buffer before decoding
    /// into it in place and each block buffer once. Each case runs every way the streaming decoder writes: through a
    /// block buffer (small reads), straight into the reader's buffer (reads of a whole block or more), and decoded ahead
    /// into the other block buffer, with the reader's buffer filled with the same poison as the pool before every read.
    /// </summary>
    [Trait("Scope", "Exhaustive")] // run in full on .NET; left out under Mono (scripts/test)
    public class Lz4StaleBytesTests
    {
        private const byte Secret = 0xCD;

        /// <summary>
        /// Found by the fuzzing below: "alpha", then a 10-byte match at offset 0, then "gamma". Into a zeroed array K4os
        /// decodes it to alpha 00 00 50 00 00 00 50 00 00 00 gamma; into a 0xEE-filled one, bytes 8 and 12 are 0xEE.
        /// </summary>
        private static readonly byte[] s_offsetZeroBlock = Convert.FromHexString("56616C70686100005067616D6D61");

        [Theory]
        [InlineData(3, DecodeAhead.Off)] // through the block buffer
        [InlineData(4 * MiB, DecodeAhead.Off)] // straight into the reader's buffer
        [InlineData(3, DecodeAhead.Settled)] // the first block through a block buffer, the rest decoded ahead
        public void AnOffsetZeroMatchNeverShowsWhatThePooledArrayOrTheReadersBufferHeld(int readSize, DecodeAhead mode)
        {
            byte[] beforeFill = new byte[64];
            beforeFill.AsSpan().Fill(0xEE);
            Assert.Equal(20, K4os.Compression.LZ4.LZ4Codec.Decode(s_offsetZeroBlock, beforeFill)); // K4os takes it...
            Assert.Equal(0xEE, beforeFill[8]); // ...and returns what the destination held
            // Two frames of the block: with decode-ahead, the second frame's block is decoded ahead.
            byte[] frame = FrameOf(s_offsetZeroBlock, contentChecksum: false);
            byte[] frames = Concatenate(frame, frame);

            byte[]? first = null;
            foreach (byte earlier in new byte[] { Secret, 0xEE })
            {
                using DatabricksMemoryLease lease = Lz4Decoding.CreateScope(mode);
                PoisonBufferPool(lease.Scope.BufferPool, arraysPerBucket: 3, earlier, maxLength: 4 * MiB);
                byte[] decoded = Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, frames, readSize, fill: earlier, settle: mode == DecodeAhead.Settled);

                Assert.Equal(40, decoded.Length);
                Assert.DoesNotContain(earlier, decoded);
                for (int copy = 0; copy < 2; copy++)
                {
                    Assert.Equal("alpha", System.Text.Encoding.ASCII.GetString(decoded, copy * 20, 5));
                    Assert.Equal("gamma", System.Text.Encoding.ASCII.GetString(decoded, (copy * 20) + 15, 5));
                }

                first ??= decoded;
                Assert.Equal(first, decoded); // the same bytes whatever the pool held
            }
        }

        [Fact]
        public void WithAContentChecksumAnOffsetZeroMatchIsRefused()
        {
            using DatabricksMemoryLease lease = CreateScope();
            PoisonBufferPool(lease.Scope.BufferPool, arraysPerBucket: 2, maxLength: MiB);

            // The checksum the sender would write for the bytes it meant; whatever the decoder read instead cannot match it.
            byte[] meant = System.Text.Encoding.ASCII.GetBytes("alphaalphaalphagamma");
            Lz4FormatException error = Assert.Throws<Lz4FormatException>(() => Lz4Decoding.DecodeAsRead(lease.Scope.Lz4, lease.Scope.BufferPool, FrameOf(s_offsetZeroBlock, contentChecksum: true, meant)));
            Assert.Contains("content checksum mismatch", error.Message);
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [SkippableTheory]
        [InlineData(4093, DecodeAhead.Off)]
        [InlineData(4 * MiB, DecodeAhead.Off)]
        [InlineData(4093, DecodeAhead.Settled)]
        public void MutatedFramesDecodeToTheSameBytesWhateverThePooledArraysHeld(int readSize, DecodeAhead mode)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            // Many small frames (short blocks, where a zeroed offset most often yields a block K4os still accepts) and a
            // few CloudFetch-like ones.
            var frames = Enumerable.Range(0, 60)
                .Select(seed => NativeLz4.CompressFrame(TestData.Mixed(300 + (seed * 97), seed), new FrameOptions { BlockSize = BlockMaxSize.Max64KB }))
                .Append(NativeLz4.CompressFrame(TestData.Mixed(150_000, 12), new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false }))
                .Append(NativeLz4.CompressFrame(TestData.Mixed(300_000, 13), FrameOptions.Databricks))
                .ToArray();

            using DatabricksMemoryLease zeroed = Lz4Decoding.CreateScope(mode);
            using DatabricksMemoryLease dirty = Lz4Decoding.CreateScope(mode);
            var random = new Random(20261124);
            int decodedBoth = 0;
            var differing = new List<string>();
            foreach (byte[] frame in frames)
            {
                for (int i = 0; i < 40; i++)
                {
                    byte[] input = WithZeroedPair(frame, random);
                    PoisonBufferPool(zeroed.Scope.BufferPool, arraysPerBucket: 2, poison: 0x00, maxLength: 4 * MiB);
                    PoisonBufferPool(dirty.Scope.BufferPool, arraysPerBucket: 2, poison: 0xEE, maxLength: 4 * MiB);
                    byte[]? a = TryDecode(zeroed.Scope, input, readSize, 0x00, mode);
                    byte[]? b = TryDecode(dirty.Scope, input, readSize, 0xEE, mode);
                    if (a != null && b != null)
                    {
                        decodedBoth++;
                        if (!a.AsSpan().SequenceEqual(b))
                        {
                            differing.Add($"frame {Array.IndexOf(frames, frame)} case {i}");
                        }
                    }
                    else if ((a == null) != (b == null))
                    {
                        differing.Add($"frame {Array.IndexOf(frames, frame)} case {i}: decoded in one scope only");
                    }
                }
            }

            Assert.True(differing.Count == 0, $"output depended on the pooled arrays' earlier contents: {string.Join("; ", differing.Take(10))}");
            Assert.True(decodedBoth > 100, $"only {decodedBoth} mutated frames decoded: the test checks too little");
        }

        /// <summary>Two adjacent bytes set to zero: where they land on a match's offset, an offset-0 match.</summary>
        private static byte[] WithZeroedPair(byte[] frame, Random random)
        {
            byte[] input = (byte[])frame.Clone();
            int at = random.Next(11, input.Length - 6); // past the header and first block size, before the end mark
            input[at] = 0;
            input[at + 1] = 0;
            return input;
        }

        private static byte[]? TryDecode(DatabricksMemoryScope scope, byte[] input, int readSize, byte fill, DecodeAhead mode)
        {
            try
            {
                return Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, input, readSize, fill, settle: mode == DecodeAhead.Settled);
            }
            catch (Lz4FormatException)
            {
                return null;
            }
        }

        /// <summary>One frame around one compressed block: 4 MB maximum, independent blocks, optional content checksum of <paramref name="content"/>.</summary>
        private static byte[] FrameOf(byte[] block, bool contentChecksum, byte[]? content = null)
        {
            var frame = new List<byte>();
            frame.AddRange(BitConverter.GetBytes(Lz4FrameDecoder.FrameMagic));
            byte[] descriptor = { (byte)(0x60 | (contentChecksum ? 0x04 : 0)), 0x70 };
            frame.AddRange(descriptor);
            frame.Add((byte)(K4os.Hash.xxHash.XXH32.DigestOf(descriptor) >> 8));
            frame.AddRange(BitConverter.GetBytes(block.Length));
            frame.AddRange(block);
            frame.AddRange(new byte[4]); // end mark
            if (contentChecksum)
            {
                frame.AddRange(BitConverter.GetBytes(K4os.Hash.xxHash.XXH32.DigestOf(content)));
            }

            return frame.ToArray();
        }
    }
}
