using System.Text;
using Lz4Reference;
using MockDatabricks.Protocol.Lz4;

namespace MockDatabricks.Tests.Protocol
{
    /// <summary>The mock's LZ4 frames (blocks by K4os, frames assembled by the mock), decoded by Debian's liblz4: the independent reference.</summary>
    public class Lz4FramingTests
    {
        public static IEnumerable<object[]> AllOptions()
        {
            foreach (Lz4BlockMaxSize size in Enum.GetValues<Lz4BlockMaxSize>())
            {
                foreach (bool independent in new[] { true, false })
                {
                    foreach (bool blockChecksum in new[] { false, true })
                    {
                        foreach (bool contentChecksum in new[] { false, true })
                        {
                            yield return new object[] { size, independent, blockChecksum, contentChecksum, contentChecksum != blockChecksum };
                        }
                    }
                }
            }
        }

        [Theory]
        [MemberData(nameof(AllOptions))]
        public void EveryOptionCombination_DecodesWithNativeLiblz4_AndDeclaresItsOptions(Lz4BlockMaxSize size, bool independent, bool blockChecksum, bool contentChecksum, bool contentSize)
        {
            SkipIfNoNative();
            var options = new Lz4FrameOptions { BlockMaxSize = size, IndependentBlocks = independent, BlockChecksum = blockChecksum, ContentChecksum = contentChecksum, ContentSize = contentSize };
            int blockBytes = options.BlockMaxBytes;
            byte[] data = MixedData((blockBytes * 2) + 123, seed: 7);

            byte[] frame = Lz4Framing.Encode(data, options);

            Assert.Equal(data, NativeLz4.DecompressFrame(frame));
            Lz4Frame layout = Assert.Single(Lz4FrameLayout.Read(frame));
            int expectedFlags = 0x40 | (independent ? 0x20 : 0) | (blockChecksum ? 0x10 : 0) | (contentSize ? 0x08 : 0) | (contentChecksum ? 0x04 : 0);
            Assert.Equal(expectedFlags, layout.Flags);
            Assert.Equal((int)size << 4, layout.BlockDescriptor);
            Assert.Equal(3, layout.Blocks.Count); // two full blocks of the declared maximum and the rest
            if (contentSize)
            {
                Assert.Equal(data.Length, BitConverter.ToInt64(frame, 6));
            }

            Assert.True(frame.Length < data.Length * 0.6, $"ratio too poor: {frame.Length} of {data.Length}");
        }

        [Theory]
        [InlineData(0)]
        [InlineData(1)]
        [InlineData(13)]
        [InlineData(65537)]
        public void EdgeLengths_RoundTrip(int length)
        {
            SkipIfNoNative();
            byte[] data = MixedData(length, seed: length);
            foreach (Lz4FrameOptions options in new[] { Lz4FrameOptions.Databricks, new Lz4FrameOptions { BlockMaxSize = Lz4BlockMaxSize.Max64KB, IndependentBlocks = false, ContentChecksum = true, ContentSize = true } })
            {
                Assert.Equal(data, NativeLz4.DecompressFrame(Lz4Framing.Encode(data, options)));
            }
        }

        [Fact]
        public void IncompressibleData_IsStoredUncompressed()
        {
            SkipIfNoNative();
            byte[] data = new byte[300_000];
            new Random(3).NextBytes(data);

            byte[] frame = Lz4Framing.Encode(data, new Lz4FrameOptions { BlockMaxSize = Lz4BlockMaxSize.Max64KB });

            Lz4Frame layout = Assert.Single(Lz4FrameLayout.Read(frame));
            Assert.Equal(5, layout.Blocks.Count);
            Assert.All(layout.Blocks, b => Assert.True(b.Stored));
            Assert.Equal(data, NativeLz4.DecompressFrame(frame));
        }

        [Fact]
        public void SeveralFrames_AreCutAtTheGivenOffsets_AndDecodeToTheWholeInput()
        {
            SkipIfNoNative();
            byte[] data = MixedData(1_000_000, seed: 11);
            int[] cuts = Lz4Framing.EvenSplits(data.Length, 7);

            byte[] frames = Lz4Framing.EncodeFrames(data, Lz4FrameOptions.Databricks with { ContentChecksum = true }, cuts);

            Assert.Equal(new[] { 142857, 285714, 428571, 571428, 714285, 857142 }, cuts);
            Assert.Equal(7, Lz4FrameLayout.Read(frames).Count);
            Assert.Equal(data, NativeLz4.DecompressFrame(frames));
        }

        [Theory]
        [InlineData(false, false)]
        [InlineData(true, true)]
        public void FlushedFrame_EndsABlockAtEveryFlushPoint(bool contentChecksum, bool contentSize)
        {
            SkipIfNoNative();
            byte[] data = MixedData(1_000_000, seed: 12);
            int[] flushes = { 8, 100_000, 450_000, 999_992 };
            var options = Lz4FrameOptions.Databricks with { ContentChecksum = contentChecksum, ContentSize = contentSize };

            byte[] frame = Lz4Framing.EncodeFlushed(data, options, flushes);

            Assert.Equal(data, NativeLz4.DecompressFrame(frame));
            Lz4Frame layout = Assert.Single(Lz4FrameLayout.Read(frame));
            Assert.Equal(0x70, layout.BlockDescriptor); // 4 MB declared, every block far smaller
            int[] pieceLengths = { 8, 100_000 - 8, 350_000, 999_992 - 450_000, 8 };
            Assert.Equal(pieceLengths.Length, layout.Blocks.Count);
            byte[] decoded = new byte[1_000_000];
            for (int i = 0; i < pieceLengths.Length; i++)
            {
                Lz4Block block = layout.Blocks[i];
                int length = block.Stored ? block.Length : NativeLz4.DecompressBlock(frame.AsSpan(block.Offset, block.Length), decoded);
                Assert.Equal(pieceLengths[i], length);
            }
        }

        /// <summary>Text-like data with repeats and some noise: compresses roughly 2-3x.</summary>
        internal static byte[] MixedData(int length, int seed)
        {
            var random = new Random(seed);
            string[] words = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet" };
            var output = new List<byte>(length + 32);
            while (output.Count < length)
            {
                if (random.Next(4) == 0)
                {
                    output.Add((byte)random.Next(256));
                    output.Add((byte)random.Next(256));
                }
                else
                {
                    output.AddRange(Encoding.ASCII.GetBytes(words[random.Next(words.Length)]));
                    output.Add((byte)' ');
                }
            }

            return output.Take(length).ToArray();
        }

        internal static void SkipIfNoNative()
        {
            Assert.True(NativeLz4.IsAvailable, "liblz4.so.1 is required (Debian package liblz4-1): " + NativeLz4.UnavailableReason);
        }
    }
}
