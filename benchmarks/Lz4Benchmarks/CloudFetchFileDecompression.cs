using System;
using System.IO;
using Apache.Arrow.Adbc.Drivers.Databricks;
using BenchmarkDotNet.Attributes;

namespace Lz4Benchmarks
{
    /// <summary>
    /// One CloudFetch file from downloaded bytes to a stream the Arrow reader has read to the end, the ways the
    /// driver has done it, against the floors:
    /// (a) tag 21 as shipped (<see cref="Tag21Path"/>): K4os' LZ4Stream into a growing MemoryStream;
    /// (b) tag 22 as shipped (<see cref="Tag22Path"/>): K4os' frame reader with a pooled block buffer into a
    ///     RecyclableMemoryStream;
    /// (c) the overlay as shipped: one database scope, DecompressToStream per file, the stream read and disposed;
    /// (d) K4os' block codec per block into a preallocated buffer, without and with the XXH32 content checksum;
    /// (d') the same with liblz4.
    /// (a)-(c) are read to the end through <see cref="ReadToEnd"/>, as the Arrow reader reads its input; every path
    /// returns its output length so the JIT cannot drop the work, and <see cref="Validate"/> checks the bytes.
    /// </summary>
    [MemoryDiagnoser]
    public class CloudFetchFileDecompression
    {
        /// <summary>What the Arrow stream reader reads at a time is a message body, about a batch; 1 MiB stands in for it.</summary>
        private const int ReadChunk = 1024 * 1024;

        private readonly byte[] _readBuffer = new byte[ReadChunk];
        private BenchmarkInput _input = null!;
        private Tag22Path _tag22 = null!;
        private DatabricksMemoryLease _scope = null!;
        private BlockFloors _floors = null!;

        [ParamsSource(nameof(AllFramings))]
        public string Framing { get; set; } = Framings.Databricks;

        public static string[] AllFramings => Framings.All;

        internal BenchmarkInput Input => _input;

        [GlobalSetup]
        public void Setup()
        {
            _input = BenchmarkInput.Create(Framing);
            _tag22 = new Tag22Path();
            _scope = DatabricksMemoryScope.Create(null);
            _floors = new BlockFloors(_input);
            Validate();
        }

        [GlobalCleanup]
        public void Cleanup() => _scope.Dispose();

        [Benchmark(Description = "(a) tag 21: K4os LZ4Stream -> MemoryStream, read")]
        public long Tag21()
        {
            using MemoryStream output = Tag21Path.DecompressAsync(_input.Compressed).GetAwaiter().GetResult();
            return ReadToEnd(output);
        }

        [Benchmark(Baseline = true, Description = "(b) tag 22: K4os pooled frame reader -> RecyclableMemoryStream, read")]
        public long Tag22()
        {
            using Stream output = _tag22.DecompressAsync(_input.Compressed).GetAwaiter().GetResult();
            return ReadToEnd(output);
        }

        [Benchmark(Description = "(c) overlay: DecompressToStream, read")]
        public long Overlay()
        {
            using MemoryStream output = _scope.Scope.Lz4.DecompressToStream(_input.Compressed);
            return ReadToEnd(output);
        }

        [Benchmark(Description = "(c0) overlay: DecompressToStream, not read")]
        public long OverlayDecodeOnly()
        {
            using MemoryStream output = _scope.Scope.Lz4.DecompressToStream(_input.Compressed);
            return output.Length;
        }

        [Benchmark(Description = "(d) floor: K4os LZ4Codec.Decode per block, preallocated")]
        public long FloorK4os() => _floors.K4os();

        [Benchmark(Description = "(d+xxh) floor with XXH32 of the output")]
        public long FloorK4osWithChecksum() => _floors.K4osWithContentChecksum();

        [Benchmark(Description = "(d') floor: liblz4 per block, preallocated")]
        public long FloorNative() => _floors.Native();

        /// <summary>Reads a stream to its end through a reused buffer with Read(Span), as the Arrow stream reader does.</summary>
        private long ReadToEnd(Stream stream)
        {
            long total = 0;
            int read;
            while ((read = stream.Read(_readBuffer.AsSpan())) > 0)
            {
                total += read;
            }

            return total;
        }

        /// <summary>Every path must produce the original bytes; a benchmark of a wrong decoder is worthless.</summary>
        private void Validate()
        {
            using (MemoryStream tag21 = Tag21Path.DecompressAsync(_input.Compressed).GetAwaiter().GetResult())
            {
                Check("(a) tag 21", tag21.ToArray());
            }

            using (MemoryStream tag22 = _tag22.DecompressAsync(_input.Compressed).GetAwaiter().GetResult())
            {
                Check("(b) tag 22", tag22.ToArray());
            }

            using (MemoryStream overlay = _scope.Scope.Lz4.DecompressToStream(_input.Compressed))
            {
                Check("(c) overlay", overlay.ToArray());
            }

            Check("(d) floor", _floors.Output(_floors.K4os()).ToArray());
            Check("(d+xxh) floor", _floors.Output(_floors.K4osWithContentChecksum()).ToArray());
            Check("(d') floor", _floors.Output(_floors.Native()).ToArray());

            void Check(string path, byte[] actual)
            {
                if (!actual.AsSpan().SequenceEqual(_input.Original))
                {
                    throw new InvalidOperationException($"{path} produced wrong output for {Framing}");
                }
            }
        }
    }
}
