using System.Buffers.Binary;
using System.Linq;
using DriverOverlay.Tests.Memory;
using Lz4Reference;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests
{
    /// <summary>
    /// Seeded fuzzing of the decoder's entry points with mutations of valid frames of several shapes: malformed input
    /// only ever raises <see cref="Lz4FormatException"/>, never another exception or a hang, and leaves nothing rented.
    /// A watchdog fails the test when one case makes no progress for a long time (a hang), which is not a speed
    /// assertion: a slow machine only makes the test slower.
    /// </summary>
    [Trait("Scope", "Exhaustive")] // run in full on .NET; left out under Mono (scripts/test)
    public class Lz4FuzzTests
    {
        private const int Seed = 20261123;
        private const int MutationsPerShape = 500;
        private const int LargeShapeMutations = 25;
        private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(30);

        [SkippableFact]
        public void MutatedFramesOfEveryShapeOnlyEverRaiseLz4FormatException()
        {
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            var shapes = new List<(string Name, byte[] Frame)>
            {
                // 520 independent 64 KiB blocks under a 4 MiB header (an encoder that flushes often): 2.2 GB at the block
                // maximum, so only measuring sizes it; and its neighbour, linked. Few mutations: each decodes 34 MB.
                ("520x64k-independent-under-4m-header", Relabel4MiB(NativeLz4.CompressFrame(TestData.Repetitive(520 * 64 * 1024, 7), new FrameOptions { BlockSize = BlockMaxSize.Max64KB }))),
                ("520x64k-linked-under-4m-header", Relabel4MiB(NativeLz4.CompressFrame(TestData.Repetitive(520 * 64 * 1024, 8), new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false }))),
                ("64k-linked-checksums-size", NativeLz4.CompressFrame(TestData.Mixed(200_000, 1), new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false, BlockChecksum = true, ContentChecksum = true, ContentSize = true })),
                ("64k-independent-bare", NativeLz4.CompressFrame(TestData.Mixed(200_000, 2), new FrameOptions { BlockSize = BlockMaxSize.Max64KB })),
                ("databricks-4m-content-checksum", NativeLz4.CompressFrame(TestData.Mixed(1_000_000, 3), FrameOptions.Databricks with { ContentChecksum = true })),
                ("256k-linked-under-4m-header", Relabel4MiB(NativeLz4.CompressFrame(TestData.Mixed(600_000, 4), new FrameOptions { BlockSize = BlockMaxSize.Max256KB, IndependentBlocks = false }))),
                ("concatenated-with-skippable", Concatenate(
                    NativeLz4.CompressFrame(TestData.Mixed(70_000, 5), new FrameOptions { BlockSize = BlockMaxSize.Max64KB }),
                    SkippableFrame(40),
                    NativeLz4.CompressFrame(TestData.Random(5_000, 6), new FrameOptions { BlockSize = BlockMaxSize.Max64KB, ContentSize = true }))),
            };

            var failures = new List<string>();
            int current = -1;
            int cases = 0;
            var worker = new Thread(() =>
            {
                var random = new Random(Seed);
                using DatabricksMemoryLease lease = DatabricksMemoryScope.Create(null);
                ScopedLz4Decompressor lz4 = lease.Scope.Lz4;
                foreach ((string name, byte[] frame) in shapes)
                {
                    for (int i = 0; i < MutationsOf(name); i++)
                    {
                        int caseSeed = random.Next();
                        Volatile.Write(ref current, caseSeed);
                        byte[] input = Mutate(frame, new Random(caseSeed));
                        Check(() => lz4.DecompressToArray(input), "DecompressToArray");
                        Check(() => Drain(lz4.DecodeAsRead(lz4.ReadContentAsync(new System.Net.Http.ByteArrayContent(input), CancellationToken.None).GetAwaiter().GetResult()), 4093), "DecodeAsRead, 4093-byte reads");
                        Check(() => Drain(lz4.DecodeAsRead(Lz4Decoding.Download(lease.Scope.BufferPool, input)), 8 * MiB), "DecodeAsRead, whole reads");
                        Interlocked.Increment(ref cases);

                        void Check(Action decode, string entry)
                        {
                            try
                            {
                                decode();
                            }
                            catch (Lz4FormatException)
                            {
                            }
                            catch (Exception ex)
                            {
                                lock (failures)
                                {
                                    failures.Add($"{name} case seed {caseSeed} via {entry}: {ex.GetType().Name}: {ex.Message}");
                                }
                            }
                        }
                    }
                }

                if (lease.Scope.BufferPool.InUseBytes != 0)
                {
                    lock (failures)
                    {
                        failures.Add($"{lease.Scope.BufferPool.InUseBytes} bytes still rented after every case was disposed");
                    }
                }
            })
            { IsBackground = true };

            worker.Start();
            int lastCases = -1;
            while (!worker.Join(HangLimit))
            {
                int done = Volatile.Read(ref cases);
                Assert.True(done != lastCases, $"no progress for {HangLimit.TotalSeconds} s: case seed {Volatile.Read(ref current)} hangs");
                lastCases = done;
            }

            Assert.Equal(shapes.Sum(shape => MutationsOf(shape.Name)), cases);
            Assert.True(failures.Count == 0, string.Join(Environment.NewLine, failures));
        }

        private static int MutationsOf(string shape) => shape.StartsWith("520x", StringComparison.Ordinal) ? LargeShapeMutations : MutationsPerShape;

        /// <summary>One to a few mutations: bit flips, random bytes, a block size rewritten, a cut, a slice dropped or doubled.</summary>
        private static byte[] Mutate(byte[] frame, Random random)
        {
            var bytes = new List<byte>(frame);
            for (int n = random.Next(1, 4); n > 0 && bytes.Count > 0; n--)
            {
                int at = random.Next(bytes.Count);
                switch (random.Next(7))
                {
                    case 0:
                        bytes[at] ^= (byte)(1 << random.Next(8));
                        break;
                    case 1:
                        bytes[at] = (byte)random.Next(256);
                        break;
                    case 2:
                        // A 32-bit field (a block size, content size half, checksum) overwritten with something plausible.
                        int value = random.Next(4) switch { 0 => 0, 1 => random.Next(1, 70_000), 2 => int.MaxValue, _ => random.Next() | int.MinValue };
                        for (int k = 0; k < 4 && at + k < bytes.Count; k++)
                        {
                            bytes[at + k] = (byte)(value >> (8 * k));
                        }

                        break;
                    case 3:
                        bytes.RemoveRange(at, bytes.Count - at); // truncated
                        break;
                    case 4:
                        bytes.RemoveRange(at, Math.Min(random.Next(1, 64), bytes.Count - at));
                        break;
                    case 5:
                        int length = Math.Min(random.Next(1, 256), bytes.Count - at);
                        bytes.InsertRange(at, bytes.GetRange(at, length));
                        break;
                    default:
                        bytes.Insert(at, (byte)random.Next(256));
                        break;
                }
            }

            return bytes.ToArray();
        }

        private static void Drain(Stream stream, int readSize)
        {
            using (stream)
            {
                Lz4Decoding.ReadAll(stream, readSize);
            }
        }

        private static byte[] Relabel4MiB(byte[] frame)
        {
            frame[5] = 0x70;
            frame[6] = (byte)(K4os.Hash.xxHash.XXH32.DigestOf(frame.AsSpan(4, 2)) >> 8);
            return frame;
        }

        private static byte[] SkippableFrame(int length)
        {
            byte[] frame = new byte[8 + length];
            BinaryPrimitives.WriteUInt32LittleEndian(frame, 0x184D2A51);
            BinaryPrimitives.WriteUInt32LittleEndian(frame.AsSpan(4), (uint)length);
            return frame;
        }
    }
}
