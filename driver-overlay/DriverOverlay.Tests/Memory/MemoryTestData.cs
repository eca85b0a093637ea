using System.Collections.Concurrent;
using Lz4Reference;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>
    /// LZ4 frames made by Debian's liblz4 (the oracle upstream's test project cannot host) and poisoned pools for the
    /// memory tests; the data itself, scopes and the rest come from the series' helpers (DbxmemTestData, DbxmemScopeData).
    /// </summary>
    internal static class MemoryTestData
    {
        /// <summary>Databricks-like frames (4 MB independent blocks), with the content size in the header.</summary>
        public static readonly FrameOptions ContentSizeFrames = FrameOptions.Databricks with { ContentSize = true };

        /// <summary>Databricks-like frames without a content size: the decoder must size its output from hints.</summary>
        public static readonly FrameOptions NoContentSizeFrames = FrameOptions.Databricks;

        /// <summary>64 KB linked blocks: later blocks copy from earlier output, so the whole output must be contiguous.</summary>
        public static readonly FrameOptions Linked64KFrames = new FrameOptions { BlockSize = BlockMaxSize.Max64KB, IndependentBlocks = false };

        private static readonly ConcurrentDictionary<(int, int, FrameOptions), (byte[], byte[])> s_samples =
            new ConcurrentDictionary<(int, int, FrameOptions), (byte[], byte[])>();

        /// <summary>Data and its LZ4 frame, cached because the large sizes are shared by several tests.</summary>
        public static (byte[] Data, byte[] Compressed) Sample(int length, FrameOptions options, int seed = 1) =>
            s_samples.GetOrAdd((length, seed, options), key =>
            {
                byte[] data = Compressible(key.Item1, key.Item2);
                return (data, NativeLz4.CompressFrame(data, key.Item3));
            });

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
