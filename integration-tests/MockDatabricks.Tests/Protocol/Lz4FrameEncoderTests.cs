using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using Lz4Reference;
using MockDatabricks.Protocol.Lz4;
using Xunit;

namespace MockDatabricks.Tests.Protocol
{
    /// <summary>The managed LZ4 frame encoder, decoded by Debian's liblz4 (the canonical implementation).</summary>
    public class Lz4FrameEncoderTests
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
                            yield return new object[] { size, independent, blockChecksum, contentChecksum, contentChecksum && !blockChecksum };
                        }
                    }
                }
            }
        }

        [Theory]
        [MemberData(nameof(AllOptions))]
        public void EveryOptionCombination_DecodesWithNativeLiblz4(Lz4BlockMaxSize size, bool independent, bool blockChecksum, bool contentChecksum, bool contentSize)
        {
            SkipIfNoNative();
            var options = new Lz4FrameOptions
            {
                BlockMaxSize = size,
                IndependentBlocks = independent,
                BlockChecksum = blockChecksum,
                ContentChecksum = contentChecksum,
                ContentSize = contentSize,
            };
            byte[] data = MixedData(size == Lz4BlockMaxSize.Max4MB ? (4 * 1024 * 1024) + 123 : (1024 * 1024) + 4097, seed: 7);

            byte[] frame = Lz4FrameEncoder.Encode(data, options);

            Assert.Equal(data, NativeLz4.DecompressFrame(frame));
            Assert.True(frame.Length < data.Length * 0.6, $"ratio too poor: {frame.Length} of {data.Length}");
        }

        [Theory]
        [InlineData(0)]
        [InlineData(1)]
        [InlineData(12)]
        [InlineData(13)]
        [InlineData(17)]
        [InlineData(65536)]
        [InlineData(65537)]
        public void EdgeLengths_RoundTrip(int length)
        {
            SkipIfNoNative();
            byte[] data = MixedData(length, seed: length);
            foreach (Lz4FrameOptions options in new[] { Lz4FrameOptions.Databricks, new Lz4FrameOptions { BlockMaxSize = Lz4BlockMaxSize.Max64KB, IndependentBlocks = false, ContentChecksum = true, ContentSize = true } })
            {
                Assert.Equal(data, NativeLz4.DecompressFrame(Lz4FrameEncoder.Encode(data, options)));
            }
        }

        [Fact]
        public void IncompressibleData_IsStoredUncompressed()
        {
            SkipIfNoNative();
            var random = new Random(3);
            byte[] data = new byte[300_000];
            random.NextBytes(data);

            byte[] frame = Lz4FrameEncoder.Encode(data, new Lz4FrameOptions { BlockMaxSize = Lz4BlockMaxSize.Max64KB });

            // header 7 bytes, 5 blocks each 4-byte size + raw, end mark: only stored blocks give exactly this length.
            Assert.Equal(7 + (5 * 4) + data.Length + 4, frame.Length);
            Assert.Equal(0x80000000u, BitConverter.ToUInt32(frame, 7) & 0x80000000u);
            Assert.Equal(data, NativeLz4.DecompressFrame(frame));
        }

        [Fact]
        public void HighlyRepetitiveData_UsesLongMatchesAndRoundTrips()
        {
            SkipIfNoNative();
            byte[] data = Enumerable.Repeat((byte)'a', 3_000_000).Concat(Encoding.ASCII.GetBytes("tail")).ToArray();

            byte[] frame = Lz4FrameEncoder.Encode(data, Lz4FrameOptions.Databricks);

            Assert.True(frame.Length < 20_000, $"{frame.Length} bytes for a run of one byte");
            Assert.Equal(data, NativeLz4.DecompressFrame(frame));
        }

        [Fact]
        public void ConcatenatedFrames_DecodeToTheWholeInput()
        {
            SkipIfNoNative();
            byte[] data = MixedData(1_000_000, seed: 11);
            int[] splits = Lz4FrameEncoder.EvenSplits(data.Length, 7);

            byte[] frames = Lz4FrameEncoder.EncodeFrames(data, Lz4FrameOptions.Databricks with { ContentChecksum = true }, splits);

            Assert.Equal(7, CountFrameMagics(frames));
            Assert.Equal(data, NativeLz4.DecompressFrame(frames));
        }

        [Fact]
        public void Xxh32_MatchesKnownVectors()
        {
            Assert.Equal(0x02CC5D05u, Xxh32.Hash(Array.Empty<byte>()));
            Assert.Equal(0x550D7456u, Xxh32.Hash(Encoding.ASCII.GetBytes("a")));
            Assert.Equal(0x32D153FFu, Xxh32.Hash(Encoding.ASCII.GetBytes("abc")));

            // Streaming in odd pieces gives the one-shot hash.
            byte[] data = MixedData(10_000, seed: 5);
            var hasher = new Xxh32();
            for (int offset = 0; offset < data.Length; offset += 37)
            {
                hasher.Append(data.AsSpan(offset, Math.Min(37, data.Length - offset)));
            }

            Assert.Equal(Xxh32.Hash(data), hasher.GetCurrentHash());
        }

        internal static int CountFrameMagics(byte[] frames)
        {
            int count = 0;
            for (int i = 0; i + 4 <= frames.Length; i++)
            {
                if (BitConverter.ToUInt32(frames, i) == Lz4FrameEncoder.FrameMagic)
                {
                    count++;
                }
            }

            return count;
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

        private static void SkipIfNoNative()
        {
            Assert.True(NativeLz4.IsAvailable, "liblz4.so.1 is required (Debian package liblz4-1): " + NativeLz4.UnavailableReason);
        }
    }
}
