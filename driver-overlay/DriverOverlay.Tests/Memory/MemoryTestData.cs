using System.Collections.Concurrent;
using AdbcDrivers.Databricks.Tests.Unit.Dbxmem;
using Lz4Reference;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>Deterministic data and LZ4 frames (made by Debian's liblz4) for the memory tests.</summary>
    internal static class MemoryTestData
    {
        public const int KiB = 1024;
        public const int MiB = 1024 * 1024;

        /// <summary>Databricks-like frames (4 MB independent blocks), with the content size in the header.</summary>
        public static readonly FrameOptions WithContentSize = FrameOptions.Databricks with { ContentSize = true };

        /// <summary>Databricks-like frames without a content size: the decoder must size its output from hints.</summary>
        public static readonly FrameOptions WithoutContentSize = FrameOptions.Databricks;

        /// <summary>64 KB linked blocks: later blocks copy from earlier output, so the whole output must be contiguous.</summary>
        public static readonly FrameOptions Linked64K = new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false };

        private static readonly ConcurrentDictionary<(int, int, FrameOptions), (byte[], byte[])> s_samples =
            new ConcurrentDictionary<(int, int, FrameOptions), (byte[], byte[])>();

        /// <summary>
        /// The array length a scope's LZ4 buffer pool hands out for <paramref name="size"/> bytes (its layout's bucket;
        /// the layout's sizes themselves are pinned down by literal values in the series' Lz4BufferPoolTest).
        /// </summary>
        public static int BucketOf(int size) => PoolBuckets.Lz4Buffers.SizeOf(PoolBuckets.Lz4Buffers.IndexOf(size));

        /// <summary>Data and its LZ4 frame, cached because the large sizes are shared by several tests.</summary>
        public static (byte[] Data, byte[] Compressed) Sample(int length, FrameOptions options, int seed = 1) =>
            s_samples.GetOrAdd((length, seed, options), key =>
            {
                byte[] data = Compressible(key.Item1, key.Item2);
                return (data, NativeLz4.CompressFrame(data, key.Item3));
            });

        /// <summary>
        /// Column-like bytes that compress roughly 2-4x: runs, repeats of earlier bytes at varied distances,
        /// ascending integers and some noise, so blocks contain both matches and literals.
        /// </summary>
        public static byte[] Compressible(int length, int seed)
        {
            var random = new Random(seed);
            byte[] data = new byte[length];
            int position = 0;
            int counter = random.Next();
            while (position < length)
            {
                int run = Math.Min(random.Next(8, 200), length - position);
                switch (random.Next(4))
                {
                    case 0:
                        data.AsSpan(position, run).Fill((byte)random.Next(4));
                        break;
                    case 1 when position > 4096:
                        int from = position - random.Next(run, 4096);
                        for (int i = 0; i < run; i++)
                        {
                            data[position + i] = data[from + i];
                        }

                        break;
                    case 2:
                        for (int i = 0; i < run; i++)
                        {
                            data[position + i] = (byte)((counter + i / 4) >> (8 * (i % 4)));
                        }

                        counter += run / 4;
                        break;
                    default:
                        random.NextBytes(data.AsSpan(position, Math.Min(run, 24)));
                        run = Math.Min(run, 24);
                        break;
                }

                position += run;
            }

            return data;
        }

        /// <summary>Two frames back to back, as in a CloudFetch file made of several frames.</summary>
        public static byte[] Concatenate(params byte[][] frames)
        {
            var all = new List<byte>();
            foreach (byte[] frame in frames)
            {
                all.AddRange(frame);
            }

            return all.ToArray();
        }

        /// <summary>
        /// A frame cut just before its end mark: every block decodes (so the destination is fully used) and then
        /// the input ends inside the frame, which must be an <see cref="Lz4FormatException"/>.
        /// </summary>
        public static byte[] Truncated(byte[] frame) => frame.AsSpan(0, frame.Length - 4).ToArray();

        /// <summary>Name/value pairs as the connection-property dictionary the driver hands the overlay.</summary>
        public static Dictionary<string, string> Properties(params (string Key, string Value)[] properties)
        {
            var dictionary = new Dictionary<string, string>();
            foreach ((string key, string value) in properties)
            {
                dictionary[key] = value;
            }

            return dictionary;
        }

        /// <summary>Creates a scope from name/value pairs, as the driver would from connection properties.</summary>
        public static DatabricksMemoryLease CreateScope(params (string Key, string Value)[] properties) =>
            DatabricksMemoryScope.Create(Properties(properties));

        /// <summary>Every byte the scope's pool handed out is back: the pool and the meter agree, and every rental was returned.</summary>
        public static void AssertNothingInUse(DbxmemMetricsRecorder metrics, DatabricksMemoryScope scope)
        {
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented), metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned));
        }

        /// <summary>
        /// Fills every array the pool keeps (each power-of-two bucket up to <paramref name="maxLength"/>, by default all)
        /// with <paramref name="poison"/>, by renting them all and returning them dirty.
        /// </summary>
        public static int PoisonBufferPool(Lz4BufferPool pool, int arraysPerBucket, byte poison = 0xCD, int maxLength = int.MaxValue)
        {
            var rented = new List<PooledArray>();
            for (int size = Lz4BufferPool.MinimumArrayLength; size <= Math.Min(pool.MaxArrayLength, maxLength) && size > 0; size <<= 1)
            {
                for (int i = 0; i < arraysPerBucket; i++)
                {
                    PooledArray array = pool.Rent(size);
                    array.Array.AsSpan().Fill(poison);
                    rented.Add(array);
                }
            }

            foreach (PooledArray array in rented)
            {
                array.Dispose();
            }

            return rented.Count;
        }
    }
}
