using System;
using Apache.Arrow;
using Apache.Arrow.Adbc.Drivers.Databricks;

namespace Lz4Benchmarks
{
    /// <summary>
    /// What one reader holds, measured rather than computed: the bytes of the scope's pooled arrays in use (LZ4 pool
    /// and record-batch pool), sampled at the moments a reader holds the most (<see cref="ArrowReadPaths"/>' observe
    /// points), the largest kept. These are array lengths as the pools round them (at most 1.25x a request), i.e.
    /// the memory the driver would really hold; Apache.Arrow's own few-byte metadata rentals are not in them.
    /// </summary>
    internal sealed class HeldBytesProbe
    {
        private readonly DatabricksMemoryScope _scope;

        public HeldBytesProbe(DatabricksMemoryScope scope) => _scope = scope;

        /// <summary>The largest sample so far.</summary>
        public long PeakBytes { get; private set; }

        /// <summary>The largest sample taken while a batch lived (not at the end of a whole-file decode).</summary>
        public long PeakWhileBatchLivesBytes { get; private set; }

        /// <summary>The largest record batch body in use at a sample (batch pool bytes).</summary>
        public long LargestBatchBodyBytes { get; private set; }

        public void Observe(RecordBatch? batch)
        {
            long lz4 = _scope.BufferPool.InUseBytes;
            long bodies = _scope.ArrowBatchPool.InUseBytes;
            PeakBytes = Math.Max(PeakBytes, lz4 + bodies);
            if (batch != null)
            {
                PeakWhileBatchLivesBytes = Math.Max(PeakWhileBatchLivesBytes, lz4 + bodies);
                LargestBatchBodyBytes = Math.Max(LargestBatchBodyBytes, bodies);
            }
        }
    }
}
