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

        /// <summary>(d): K4os' block codec (the one the driver ships), linked blocks with the preceding output as dictionary.</summary>
        public int K4os()
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
                    written += Checked(LZ4Codec.Decode(block, target));
                }
                else
                {
                    // A dictionary that ends where the target starts is K4os' contiguous-prefix fast path.
                    int dictionary = Math.Min(written, LinkedWindow);
                    written += Checked(LZ4Codec.Decode(block, target, _output.AsSpan(written - dictionary, dictionary)));
                }
            }

            return written;
        }

        /// <summary>(d) + XXH32 of the whole output: the floor for frames with a content checksum, which must be verified.</summary>
        public int K4osWithContentChecksum()
        {
            int written = K4os();
            ContentChecksum = XXH32.DigestOf(_output.AsSpan(0, written)); // stored so the JIT cannot drop the hash
            return written;
        }

        public uint ContentChecksum { get; private set; }

        /// <summary>(d'): Debian's liblz4 through P/Invoke, the native reference.</summary>
        public int Native()
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
                    written += NativeLz4.DecompressBlock(block, target);
                }
                else
                {
                    int dictionary = Math.Min(written, LinkedWindow);
                    written += NativeLz4.DecompressBlock(block, target, _output.AsSpan(written - dictionary, dictionary));
                }
            }

            return written;
        }

        private static int Checked(int decoded) =>
            decoded >= 0 ? decoded : throw new InvalidOperationException("K4os rejected a block liblz4 wrote");
    }
}
