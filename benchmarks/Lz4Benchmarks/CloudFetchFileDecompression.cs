using System;
using System.Buffers;
using System.IO;
using Apache.Arrow.Adbc.Drivers.Databricks;
using BenchmarkDotNet.Attributes;
using Lz4Reference;
using Microsoft.IO;

namespace Lz4Benchmarks
{
    /// <summary>
    /// Decompressing one CloudFetch file into something an Arrow stream reader can read, four ways:
    /// (a) tag 21: a K4os-shaped decoder stream copied (80 KB at a time) into a growing MemoryStream;
    /// (b) tag 22: the same stream with buffers from a database-scoped ArrayPool.Create(4 MiB, 10), copied into a
    ///     RecyclableMemoryStream from a default manager;
    /// (c) the overlay: the decoded length bounded from the frame headers, then frames decoded straight into one
    ///     array of that size from the scope's pool;
    /// (d) the floor: the same blocks decoded by the block codec into a preallocated buffer (no frame parsing,
    ///     no stream), managed (the overlay's codec) and native (liblz4).
    /// Every path's output length is returned so the JIT cannot drop the work; Validate() checks the bytes.
    /// </summary>
    [MemoryDiagnoser]
    public class CloudFetchFileDecompression
    {
        private const int CopyBufferSize = 81920; // what the upstream driver passes to CopyTo

        private BenchmarkInput _input = null!;
        private ArrayPool<byte> _tag22Pool = null!;
        private RecyclableMemoryStreamManager _tag22Manager = null!;
        private DatabricksMemoryLease _scope = null!;
        private byte[] _floorOutput = null!;

        [Params(Framings.Databricks, Framings.Linked64K)]
        public string Framing { get; set; } = Framings.Databricks;

        [GlobalSetup]
        public void Setup()
        {
            _input = BenchmarkInput.Create(Framing);
            _tag22Pool = ArrayPool<byte>.Create(4 * 1024 * 1024, 10);
            _tag22Manager = new RecyclableMemoryStreamManager();
            _scope = DatabricksMemoryScope.Create(null);
            _floorOutput = new byte[_input.Original.Length + 64];
            Validate();
        }

        [GlobalCleanup]
        public void Cleanup() => _scope.Dispose();

        [Benchmark(Description = "(a) tag 21: decoder stream -> MemoryStream")]
        public long Tag21()
        {
            using var decoder = new BlockBufferedFrameStream(_input.Compressed, size => new byte[size], _ => { });
            var output = new MemoryStream();
            decoder.CopyTo(output, CopyBufferSize);
            return output.Length;
        }

        [Benchmark(Baseline = true, Description = "(b) tag 22: pooled decoder stream -> RecyclableMemoryStream")]
        public long Tag22()
        {
            using var decoder = new BlockBufferedFrameStream(_input.Compressed, size => _tag22Pool.Rent(size), buffer => _tag22Pool.Return(buffer, clearArray: true));
            using var output = _tag22Manager.GetStream();
            decoder.CopyTo(output, CopyBufferSize);
            return output.Length;
        }

        [Benchmark(Description = "(c) overlay: direct decode into pooled stream")]
        public long Overlay()
        {
            using MemoryStream output = _scope.Scope.Lz4.DecompressToStream(_input.Compressed);
            return output.Length;
        }

        [Benchmark(Description = "(c') overlay with exact size hint")]
        public long OverlayWithHint()
        {
            using MemoryStream output = _scope.Scope.Lz4.DecompressToStream(_input.Compressed, _input.Original.Length);
            return output.Length;
        }

        [Benchmark(Description = "(d) floor: overlay block codec, preallocated")]
        public long FloorManaged()
        {
            int written = 0;
            foreach ((bool stored, ArraySegment<byte> block) in _input.Blocks)
            {
                if (stored)
                {
                    block.AsSpan().CopyTo(_floorOutput.AsSpan(written));
                    written += block.Count;
                }
                else
                {
                    written += Lz4BlockDecoder.Decode(block, _floorOutput, written, _input.IndependentBlocks ? written : 0, out _, out _);
                }
            }

            return written;
        }

        [Benchmark(Description = "(d') floor: liblz4 block decode, preallocated")]
        public long FloorNative()
        {
            int written = 0;
            foreach ((bool stored, ArraySegment<byte> block) in _input.Blocks)
            {
                if (stored)
                {
                    block.AsSpan().CopyTo(_floorOutput.AsSpan(written));
                    written += block.Count;
                }
                else if (_input.IndependentBlocks)
                {
                    written += NativeLz4.DecompressBlock(block, _floorOutput.AsSpan(written));
                }
                else
                {
                    int dictionary = Math.Min(written, 64 * 1024);
                    written += NativeLz4.DecompressBlock(block, _floorOutput.AsSpan(written), _floorOutput.AsSpan(written - dictionary, dictionary));
                }
            }

            return written;
        }

        /// <summary>Every path must produce the original bytes; a benchmark of a wrong decoder is worthless.</summary>
        private void Validate()
        {
            byte[] expected = _input.Original;
            Check("tag21", Drain(new BlockBufferedFrameStream(_input.Compressed, size => new byte[size], _ => { })));
            using (MemoryStream overlay = _scope.Scope.Lz4.DecompressToStream(_input.Compressed))
            {
                Check("overlay", overlay.ToArray());
            }

            Check("floor-managed", _floorOutput.AsSpan(0, (int)FloorManaged()).ToArray());
            Check("floor-native", _floorOutput.AsSpan(0, (int)FloorNative()).ToArray());

            void Check(string path, byte[] actual)
            {
                if (!actual.AsSpan().SequenceEqual(expected))
                {
                    throw new InvalidOperationException($"{path} produced wrong output for {Framing}");
                }
            }

            static byte[] Drain(Stream stream)
            {
                using (stream)
                {
                    var output = new MemoryStream();
                    stream.CopyTo(output);
                    return output.ToArray();
                }
            }
        }
    }
}
