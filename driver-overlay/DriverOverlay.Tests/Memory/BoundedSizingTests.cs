using System.Buffers.Binary;
using System.Net.Http;
using Lz4Reference;
using Xunit.Abstractions;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// Whatever the frame headers claim, a decode allocates at most twice what it decodes plus one block maximum (an
    /// inline batch, into its exact array), or one block maximum and a 64 KiB window (a CloudFetch file decoded as it is
    /// read, decode-ahead off), or two block maxima and the window (decode-ahead on: the block decoded ahead), or fails
    /// with <see cref="Lz4FormatException"/> before it allocates more. Measured on the calling thread with a fresh scope
    /// (an empty pool, so every pooled array is a new allocation too), for every entry point; with decode-ahead on, the
    /// worker's rentals are measured by the decoder's peak working memory, and the block ahead is always decoded before
    /// the next read (<see cref="DbxmemScopeData.Settle"/>), the most it holds.
    /// </summary>
    public class BoundedSizingTests
    {
        private const int FourMiB = 4 * MiB;

        // Small objects a decode makes besides its arrays (streams, the rental, the buffer): far below one block.
        private const int Overhead = 64 * KiB;

        // Decode-ahead's worker starts the thread pool's and the tasks' machinery: 88-153 KB measured under Mono 6.8 on
        // a loaded machine (2026-11-28), and up to 7 KB over Overhead on .NET 10 under load; 3% of the two blocks.
        private const int DecodeAheadOverhead = 4 * Overhead;

        private readonly ITestOutputHelper _output;

        public BoundedSizingTests(ITestOutputHelper output)
        {
            _output = output;
        }

        public enum EntryPoint
        {
            DecompressToArray,
            DecodeAsRead,
            DecodeAsReadAhead,
        }

        public static TheoryData<string, EntryPoint> ValidShapes()
        {
            var data = new TheoryData<string, EntryPoint>();
            foreach (string shape in new[] { "64k-independent", "64k-linked", "256k-independent", "1m-linked", "concatenated-64k", "databricks-4m", "520x64k-independent", "520x64k-linked", "2-frames-of-300x64k" })
            {
                foreach (EntryPoint entry in Enum.GetValues<EntryPoint>())
                {
                    data.Add(shape, entry);
                }
            }

            return data;
        }

        [SkippableTheory]
        [MemberData(nameof(ValidShapes))]
        public void ValidFramesOfEveryShapeAllocateAtMostTwiceTheirOutputPlusOneBlock(string shape, EntryPoint entry)
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            (byte[] data, byte[] compressed) = Shape(shape);

            using DatabricksMemoryLease lease = ScopeFor(entry);
            long allocated = DecodeMeasuringAllocations(lease.Scope, compressed, data.Length, entry, out byte[] decoded, out long workingMemory);

            _output.WriteLine($"{shape} via {entry}: {data.Length:N0} bytes decoded from {compressed.Length:N0}, {allocated:N0} bytes allocated ({(double)allocated / data.Length:F2}x), working memory {workingMemory:N0}");
            Assert.True(data.AsSpan().SequenceEqual(decoded), "decoded bytes differ from the original");
            long blocks = entry == EntryPoint.DecodeAsReadAhead ? 2 : 1;
            Assert.InRange(allocated, 0, entry == EntryPoint.DecompressToArray ? 2L * data.Length + FourMiB + Overhead : (blocks * FourMiB) + Lz4FrameDecoder.WindowSize + (blocks == 2 ? DecodeAheadOverhead : Overhead));
            Assert.InRange(workingMemory, 0, (blocks * FourMiB) + Lz4FrameDecoder.WindowSize);
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [SkippableTheory]
        [InlineData(EntryPoint.DecompressToArray)]
        [InlineData(EntryPoint.DecodeAsRead)]
        [InlineData(EntryPoint.DecodeAsReadAhead)]
        public void AFalseContentSizeFailsBeforeAllocatingIt(EntryPoint entry)
        {
            // A 1.7 MB frame (64 KB blocks) whose header claims 400 MB of content: within what its bytes could expand
            // to (255x), so only verifying it against the blocks catches it.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            byte[] data = TestData.Mixed(1_700_000, seed: 21);
            byte[] frame = NativeLz4.CompressFrame(data, new FrameOptions { BlockSize = BlockMaxSize.Max64KB, ContentSize = true });
            BinaryPrimitives.WriteUInt64LittleEndian(frame.AsSpan(6), 400_000_000);
            frame[14] = HeaderChecksum(frame.AsSpan(4, 10));

            using DatabricksMemoryLease lease = ScopeFor(entry);
            long before = GC.GetAllocatedBytesForCurrentThread();
            var error = Assert.Throws<Lz4FormatException>(() => DecodeMeasuringAllocations(lease.Scope, frame, data.Length, entry, out _, out _));
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

            // DecodeAsRead also downloads the compressed bytes into the pool first.
            long download = entry == EntryPoint.DecompressToArray ? 0 : BucketOf(frame.Length);
            _output.WriteLine($"false content size via {entry}: {allocated - download:N0} bytes allocated before failing; {error.Message}");
            Assert.Contains("declares 400000000 bytes of content", error.Message);
            Assert.InRange(allocated - download, 0, 2L * data.Length + FourMiB + Overhead);
            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [SkippableTheory]
        [InlineData(DecodeAhead.Off)]
        [InlineData(DecodeAhead.Settled)]
        public void AReadersNextFileAllocatesNothing(DecodeAhead mode)
        {
            // The download, the block buffers (one, or two with decode-ahead) and the decoded bytes' destination: the
            // first file fills the pool with the first two, the next file of the same size takes them from it.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            using var metrics = new DbxmemMetricsRecorder();
            (byte[] data, byte[] compressed) = Shape("databricks-4m");
            using DatabricksMemoryLease lease = Lz4Decoding.CreateScope(mode);
            DatabricksMemoryScope scope = lease.Scope;
            bool settle = mode == DecodeAhead.Settled;
            Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, compressed, settle: settle);
            long allocatedByPool = metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated);

            byte[] decoded = new byte[data.Length];
            long before = GC.GetAllocatedBytesForCurrentThread();
            using (Stream stream = scope.Lz4.DecodeAsRead(Lz4Decoding.Download(scope.BufferPool, compressed)))
            {
                int length = 0;
                while (length < decoded.Length)
                {
                    int read = stream.Read(decoded, length, Math.Min(81920, decoded.Length - length));
                    Assert.True(read > 0, "the stream ended early");
                    length += read;
                    if (settle)
                    {
                        Settle(stream);
                    }
                }
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.True(data.AsSpan().SequenceEqual(decoded), "decoded bytes differ from the original");
            Assert.InRange(allocated, 0, Overhead);
            Assert.Equal(allocatedByPool, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Allocated));
        }

        /// <summary>A scope for the entry point: decode-ahead on only for <see cref="EntryPoint.DecodeAsReadAhead"/>.</summary>
        private static DatabricksMemoryLease ScopeFor(EntryPoint entry) => Lz4Decoding.CreateScope(entry == EntryPoint.DecodeAsReadAhead ? DecodeAhead.Settled : DecodeAhead.Off);

        /// <summary>
        /// Bytes allocated on this thread by the decode alone (for DecodeAsRead the download and the output array come
        /// first), and the most working memory the streaming decoder held (on either thread; 0 for DecompressToArray).
        /// </summary>
        private static long DecodeMeasuringAllocations(DatabricksMemoryScope scope, byte[] compressed, int expectedLength, EntryPoint entry, out byte[] decoded, out long workingMemory)
        {
            long before;
            workingMemory = 0;
            if (entry == EntryPoint.DecompressToArray)
            {
                before = GC.GetAllocatedBytesForCurrentThread();
                decoded = scope.Lz4.DecompressToArray(compressed);
                return GC.GetAllocatedBytesForCurrentThread() - before;
            }

            PooledBuffer download = scope.Lz4.ReadContentAsync(new ByteArrayContent(compressed), CancellationToken.None).GetAwaiter().GetResult();
            byte[] output = new byte[expectedLength];
            using Stream stream = scope.Lz4.DecodeAsRead(download);
            int length = 0;
            before = GC.GetAllocatedBytesForCurrentThread();
            int read;
            try
            {
                while ((read = stream.Read(output, length, Math.Min(81920, output.Length - length))) > 0)
                {
                    length += read;
                    Settle(stream);
                }
            }
            finally
            {
                workingMemory = ((Lz4DecodingStream)stream).Decoder.PeakWorkingMemoryBytes;
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            decoded = output.AsSpan(0, length).ToArray();
            return allocated;
        }

        /// <summary>
        /// About 19 MB of CloudFetch-like data in frames of the given shape. "Under a 4 MB header": liblz4 writes the
        /// smaller blocks, then the header is relabelled to declare 4 MB blocks (a valid frame: no block exceeds it).
        /// The 520-block shapes (34 MB, what an encoder that flushes every 64 KiB writes) count 2.2 GB at the block
        /// maximum, more than one array can hold, so only measuring their blocks finds the size; the two frames of 300
        /// blocks are each under that, together over it.
        /// </summary>
        private static (byte[] Data, byte[] Compressed) Shape(string shape)
        {
            if (shape.StartsWith("520x64k", StringComparison.Ordinal))
            {
                byte[] large = TestData.Mixed(520 * 64 * KiB, seed: 6);
                return (large, UnderFourMiBHeader(large, BlockMaxSize.Max64KB, independent: shape.EndsWith("independent", StringComparison.Ordinal)));
            }

            if (shape == "2-frames-of-300x64k")
            {
                byte[] large = TestData.Mixed(600 * 64 * KiB, seed: 7);
                int half = large.Length / 2;
                return (large, Concatenate(
                    UnderFourMiBHeader(large.AsSpan(0, half).ToArray(), BlockMaxSize.Max64KB, independent: true),
                    UnderFourMiBHeader(large.AsSpan(half).ToArray(), BlockMaxSize.Max64KB, independent: false)));
            }

            byte[] data = TestData.Mixed(19 * MiB, seed: 5);
            switch (shape)
            {
                case "64k-independent":
                    return (data, UnderFourMiBHeader(data, BlockMaxSize.Max64KB, independent: true));
                case "64k-linked":
                    return (data, UnderFourMiBHeader(data, BlockMaxSize.Max64KB, independent: false));
                case "256k-independent":
                    return (data, UnderFourMiBHeader(data, BlockMaxSize.Max256KB, independent: true));
                case "1m-linked":
                    return (data, UnderFourMiBHeader(data, BlockMaxSize.Max1MB, independent: false));
                case "concatenated-64k":
                    int third = data.Length / 3;
                    return (data, Concatenate(
                        UnderFourMiBHeader(data.AsSpan(0, third).ToArray(), BlockMaxSize.Max64KB, independent: true),
                        UnderFourMiBHeader(data.AsSpan(third, third).ToArray(), BlockMaxSize.Max64KB, independent: false),
                        UnderFourMiBHeader(data.AsSpan(2 * third).ToArray(), BlockMaxSize.Max64KB, independent: true)));
                case "databricks-4m":
                    return (data, NativeLz4.CompressFrame(data, FrameOptions.Databricks));
                default:
                    throw new ArgumentOutOfRangeException(nameof(shape), shape, "unknown shape");
            }
        }

        private static byte[] UnderFourMiBHeader(byte[] data, BlockMaxSize blocks, bool independent)
        {
            byte[] frame = NativeLz4.CompressFrame(data, new FrameOptions { BlockSize = blocks, IndependentBlocks = independent });
            frame[5] = 0x70; // BD: 4 MB block maximum
            frame[6] = HeaderChecksum(frame.AsSpan(4, 2));
            return frame;
        }

        private static byte HeaderChecksum(ReadOnlySpan<byte> descriptor) => (byte)(K4os.Hash.xxHash.XXH32.DigestOf(descriptor) >> 8);
    }
}
