using System;
using K4os.Compression.LZ4;
using K4os.Hash.xxHash;
using Lz4Reference;

namespace Lz4Benchmarks
{
    /// <summary>
    /// The floors: a frame's blocks decoded one after another into a preallocated buffer, with no frame parsing,
    /// no stream and no pool. No decoder of whole frames can beat these with the same codec.
    /// </summary>
    internal sealed class BlockFloors
    {
        /// <summary>How far back an LZ4 match may reach: the dictionary a linked block needs.</summary>
        private const int LinkedWindow = 64 * 1024;

        private readonly BenchmarkInput _input;
        private readonly byte[] _output;

        public BlockFloors(BenchmarkInput input)
        {
            _input = input;
            _output = new byte[input.Original.Length];
        }

        public ReadOnlySpan<byte> Output(int length) => _output.AsSpan(0, length);

        /// <summary>
        /// (d): K4os' block codec (the one the driver ships), linked blocks with the preceding output as dictionary (a
        /// dictionary that ends where the target starts is K4os' contiguous-prefix fast path).
        /// </summary>
        public int K4os() => DecodeBlocks(
            (block, target) => Checked(LZ4Codec.Decode(block, target)),
            (block, target, dictionary) => Checked(LZ4Codec.Decode(block, target, dictionary)));

        /// <summary>(d) + XXH32 of the whole output: the floor for frames with a content checksum, which must be verified.</summary>
        public int K4osWithContentChecksum()
        {
            int written = K4os();
            ContentChecksum = XXH32.DigestOf(_output.AsSpan(0, written)); // stored so the JIT cannot drop the hash
            return written;
        }

        public uint ContentChecksum { get; private set; }

        /// <summary>(d'): Debian's liblz4 through P/Invoke, the native reference.</summary>
        public int Native() => DecodeBlocks(
            (block, target) => NativeLz4.DecompressBlock(block, target),
            (block, target, dictionary) => NativeLz4.DecompressBlock(block, target, dictionary));

        private delegate int IndependentBlockDecoder(ReadOnlySpan<byte> block, Span<byte> target);

        private delegate int LinkedBlockDecoder(ReadOnlySpan<byte> block, Span<byte> target, ReadOnlySpan<byte> dictionary);

        /// <summary>Every block of the frame in turn, straight into the output: stored blocks copied, the others decoded.</summary>
        private int DecodeBlocks(IndependentBlockDecoder independent, LinkedBlockDecoder linked)
        {
            int written = 0;
            foreach ((bool stored, ArraySegment<byte> block) in _input.Blocks)
            {
                Span<byte> target = _output.AsSpan(written);
                if (stored)
                {
                    block.AsSpan().CopyTo(target);
                    written += block.Count;
                }
                else if (_input.Options.IndependentBlocks)
                {
                    written += independent(block, target);
                }
                else
                {
                    int dictionary = Math.Min(written, LinkedWindow);
                    written += linked(block, target, _output.AsSpan(written - dictionary, dictionary));
                }
            }

            return written;
        }

        private static int Checked(int decoded) =>
            decoded >= 0 ? decoded : throw new InvalidOperationException("K4os rejected a block liblz4 wrote");
    }
}
