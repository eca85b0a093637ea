using System;
using System.IO;
using Apache.Arrow.Adbc.Drivers.Databricks;
using BenchmarkDotNet.Attributes;

namespace Lz4Benchmarks
{
    /// <summary>
    /// One CloudFetch file from downloaded bytes to bytes (or record batches) its reader has consumed, the ways the
    /// driver has done it, against the floors:
    /// (a) tag 21 as shipped (<see cref="Tag21Path"/>): K4os' LZ4Stream into a growing MemoryStream;
    /// (b) tag 22 as shipped (<see cref="Tag22Path"/>): K4os' frame reader with a pooled block buffer into a
    ///     RecyclableMemoryStream;
    /// (c) the overlay as shipped: one database scope, DecodeAsRead per file, read in 1 MiB reads and disposed;
    /// (c-place) the same read in reads as large as the headers' bound on the output, so every block decodes in place;
    /// (c-1.4) series 1.4's whole-file decode into a pooled array, read out of a MemoryStream (<see cref="OverlayPaths.WholeFile"/>);
    /// (f) and (g) the file's record batches through Apache.Arrow, streaming over DecodeAsRead or zero-copy over the
    ///     whole decoded file (<see cref="ArrowReadPaths"/>);
    /// (d) K4os' block codec per block into a preallocated buffer, without and with the XXH32 content checksum;
    /// (d') the same with liblz4.
    /// Every path returns its output length (or rows) so the JIT cannot drop the work; <see cref="Validate"/> checks
    /// every output against the original before anything is timed.
    /// </summary>
    /// <remarks>
    /// (c), (c-place), (c-1.4), (f) and (g) start from the compressed file in an array rented from the scope, as a
    /// download leaves it; (a), (b) and the floors get the compressed byte[] as it is. The copy into the rental is the
    /// download's, so it is made outside the measured time: here by <see cref="PrepareDownload"/>, an
    /// [IterationSetup] for those paths (with one invocation per iteration, set for every path in
    /// <see cref="Program"/>), in the interleaved mode before the stopwatch starts.
    /// </remarks>
    [MemoryDiagnoser]
    public class CloudFetchFileDecompression
    {
        /// <summary>A stand-in for what the Arrow stream reader asks for at a time (a message body, about a batch).</summary>
        internal const int ReadChunk = 1024 * 1024;

        private readonly byte[] _readBuffer = new byte[ReadChunk];
        private byte[] _wholeOutputReadBuffer = null!;
        private BenchmarkInput _input = null!;
        private Tag22Path _tag22 = null!;
        private DatabricksMemoryLease _lease = null!;
        private BlockFloors _floors = null!;
        private PooledBuffer? _download;

        [ParamsSource(nameof(AllFramings))]
        public string Framing { get; set; } = Framings.Databricks;

        public static string[] AllFramings => Framings.All;

        internal BenchmarkInput Input => _input;

        internal DatabricksMemoryScope Scope => _lease.Scope;

        /// <summary>What (c-place) reads at a time: the frame headers' upper bound on the output, so every block's largest output fits.</summary>
        internal int WholeOutputReadSize => _wholeOutputReadBuffer.Length;

        /// <summary>
        /// Of the bytes of LZ4-coded blocks, the share (c) decodes straight into the reader's buffer, the rest going
        /// through the scratch block (set by <see cref="Validate"/>). Stored blocks are copied from the download either way.
        /// </summary>
        internal double OverlayInPlaceShare { get; private set; }

        /// <summary>The same for (f), where the reads are Apache.Arrow's (set by <see cref="Validate"/>).</summary>
        internal double ArrowStreamingInPlaceShare { get; private set; }

        internal int BatchCount { get; private set; }

        [GlobalSetup]
        public void Setup()
        {
            _input = BenchmarkInput.Create(Framing);
            _tag22 = new Tag22Path();
            _lease = DatabricksMemoryScope.Create(null);
            _floors = new BlockFloors(_input);
            _wholeOutputReadBuffer = new byte[checked((int)Lz4FrameDecoder.Bounds(_input.Compressed, Lz4Measure.None).Upper)];
            Validate();
        }

        [GlobalCleanup]
        public void Cleanup()
        {
            DropUnusedDownload();
            _lease.Dispose();
        }

        /// <summary>Puts the compressed file into a rental from the scope, as a finished download does; not timed.</summary>
        [IterationSetup(Targets = new[] { nameof(Overlay), nameof(OverlayInPlace), nameof(Series14WholeFile), nameof(ArrowStreaming), nameof(ArrowZeroCopy) })]
        public void PrepareDownload()
        {
            DropUnusedDownload();
            _download = OverlayPaths.Download(Scope, _input.Compressed);
        }

        /// <summary>Gives back a prepared download no path took (none, unless a path threw).</summary>
        [IterationCleanup(Targets = new[] { nameof(Overlay), nameof(OverlayInPlace), nameof(Series14WholeFile), nameof(ArrowStreaming), nameof(ArrowZeroCopy) })]
        public void DropUnusedDownload()
        {
            _download?.Dispose();
            _download = null;
        }

        [Benchmark(Description = "(a) tag 21: K4os LZ4Stream -> MemoryStream, read")]
        public long Tag21()
        {
            using MemoryStream output = Tag21Path.DecompressAsync(_input.Compressed).GetAwaiter().GetResult();
            return OverlayPaths.ReadToEnd(output, _readBuffer);
        }

        [Benchmark(Baseline = true, Description = "(b) tag 22: K4os pooled frame reader -> RecyclableMemoryStream, read")]
        public long Tag22()
        {
            using Stream output = _tag22.DecompressAsync(_input.Compressed).GetAwaiter().GetResult();
            return OverlayPaths.ReadToEnd(output, _readBuffer);
        }

        [Benchmark(Description = "(c) overlay: DecodeAsRead, 1 MiB reads")]
        public long Overlay() => OverlayPaths.DecodeAsRead(Scope, TakeDownload(), _readBuffer);

        [Benchmark(Description = "(c-place) overlay: DecodeAsRead, whole-output reads (every block in place)")]
        public long OverlayInPlace() => OverlayPaths.DecodeAsRead(Scope, TakeDownload(), _wholeOutputReadBuffer);

        [Benchmark(Description = "(c-1.4) series 1.4's path: whole-file decode, MemoryStream, 1 MiB reads")]
        public long Series14WholeFile() => OverlayPaths.WholeFile(Scope, TakeDownload(), _readBuffer);

        [Benchmark(Description = "(f) Arrow streaming: ArrowStreamReader over DecodeAsRead, batches disposed")]
        public long ArrowStreaming() => ArrowReadPaths.Streaming(Scope, TakeDownload());

        [Benchmark(Description = "(g) Arrow zero-copy: whole-file decode, memory reader, batches disposed")]
        public long ArrowZeroCopy() => ArrowReadPaths.ZeroCopy(Scope, TakeDownload());

        [Benchmark(Description = "(d) floor: K4os LZ4Codec.Decode per block, preallocated")]
        public long FloorK4os() => _floors.K4os();

        [Benchmark(Description = "(d+xxh) floor with XXH32 of the output")]
        public long FloorK4osWithChecksum() => _floors.K4osWithContentChecksum();

        [Benchmark(Description = "(d') floor: liblz4 per block, preallocated")]
        public long FloorNative() => _floors.Native();

        /// <summary>
        /// What one reader holds on (f) and (g), measured on the scope's pools (<see cref="HeldBytesProbe"/>): each
        /// path run once more, untimed, with the probe at its fullest moments.
        /// </summary>
        internal (HeldBytesProbe Streaming, HeldBytesProbe ZeroCopy) MeasureHeldBytes()
        {
            var streaming = new HeldBytesProbe(Scope);
            PrepareDownload();
            ArrowReadPaths.Streaming(Scope, TakeDownload(), streaming.Observe);
            var zeroCopy = new HeldBytesProbe(Scope);
            PrepareDownload();
            ArrowReadPaths.ZeroCopy(Scope, TakeDownload(), zeroCopy.Observe);
            CheckEverythingReturned("the held-bytes runs");
            return (streaming, zeroCopy);
        }

        private PooledBuffer TakeDownload()
        {
            PooledBuffer download = _download ?? throw new InvalidOperationException("No prepared download: PrepareDownload must run before each of these paths.");
            _download = null;
            return download;
        }

        /// <summary>Every path must produce the original bytes (or batches); a benchmark of a wrong decoder is worthless.</summary>
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

            OverlayInPlaceShare = CheckDecodeAsRead("(c) overlay", _readBuffer);
            double wholeOutputShare = CheckDecodeAsRead("(c-place) overlay", _wholeOutputReadBuffer);
            if (wholeOutputShare != 1.0)
            {
                throw new InvalidOperationException($"(c-place) decoded {wholeOutputShare:P1} of the coded blocks in place for {Framing}, not all: it would not be the in-place best case");
            }

            using (PooledBuffer decoded = OverlayPaths.DecodeWholeFile(Scope, OverlayPaths.Download(Scope, _input.Compressed)))
            {
                Check("(c-1.4) series 1.4's path", decoded.Span.ToArray());
            }

            using (var expected = new BatchComparison("(f) Arrow streaming", _input.Original))
            {
                var stream = (Lz4DecodingStream)Scope.Lz4.DecodeAsRead(OverlayPaths.Download(Scope, _input.Compressed));
                ArrowReadPaths.Streaming(Scope, stream, expected.Observe);
                expected.CheckComplete();
                ArrowStreamingInPlaceShare = InPlaceShare(stream.Decoder);
                BatchCount = expected.ExpectedBatches;
            }

            using (var expected = new BatchComparison("(g) Arrow zero-copy", _input.Original))
            {
                ArrowReadPaths.ZeroCopy(Scope, OverlayPaths.Download(Scope, _input.Compressed), expected.Observe);
                expected.CheckComplete();
            }

            CheckEverythingReturned("validation");
            Check("(d) floor", _floors.Output(_floors.K4os()).ToArray());
            Check("(d+xxh) floor", _floors.Output(_floors.K4osWithContentChecksum()).ToArray());
            Check("(d') floor", _floors.Output(_floors.Native()).ToArray());
        }

        /// <summary>Reads DecodeAsRead's stream as (c) does, checks the bytes, and returns the share decoded in place.</summary>
        private double CheckDecodeAsRead(string path, byte[] readBuffer)
        {
            using var output = new MemoryStream(_input.Original.Length);
            using var stream = (Lz4DecodingStream)Scope.Lz4.DecodeAsRead(OverlayPaths.Download(Scope, _input.Compressed));
            int read;
            while ((read = stream.Read(readBuffer.AsSpan())) > 0)
            {
                output.Write(readBuffer, 0, read);
            }

            Check(path, output.ToArray());
            return InPlaceShare(stream.Decoder);
        }

        private double InPlaceShare(Lz4StreamingDecoder decoder) =>
            (double)decoder.DecodedInPlaceBytes / (decoder.DecodedBytes - _input.StoredBytes);

        /// <summary>A path that kept a pooled array would make the next one look cheaper (and be a leak).</summary>
        private void CheckEverythingReturned(string when)
        {
            if (Scope.BufferPool.InUseBytes != 0 || Scope.ArrowBatchPool.InUseBytes != 0)
            {
                throw new InvalidOperationException(
                    $"After {when} for {Framing}, pooled arrays are still in use: LZ4 {Scope.BufferPool.InUseBytes} B, batches {Scope.ArrowBatchPool.InUseBytes} B");
            }
        }

        private void Check(string path, byte[] actual)
        {
            if (!actual.AsSpan().SequenceEqual(_input.Original))
            {
                throw new InvalidOperationException($"{path} produced wrong output for {Framing}");
            }
        }
    }
}
