using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>The record-batch allocator's connection properties: published names, defaults, parsing, errors.</summary>
    public class ArrowBatchOptionsTests
    {
        private const string Pooled = "adbc.databricks.memory.arrow_batches_pooled";
        private const string Retained = "adbc.databricks.memory.arrow_batch_pool_max_retained_mb";
        private const string Poison = "adbc.databricks.memory.poison_returned_arrays";

        [Fact]
        public void KeysAreThePublishedNames()
        {
            Assert.Equal(Pooled, DatabricksMemoryOptions.ArrowBatchesPooledKey);
            Assert.Equal(Retained, DatabricksMemoryOptions.ArrowBatchPoolMaxRetainedMbKey);
            Assert.Equal(Poison, DatabricksMemoryOptions.PoisonReturnedArraysKey);
            Assert.Equal("ADBC_DATABRICKS_MEMORY_POISON", DatabricksMemoryOptions.PoisonEnvironmentVariable);
        }

        [Fact]
        public void DefaultsPoolBatchesWithA64MiBCap()
        {
            DatabricksMemoryOptions options = ParseOptions();
            Assert.True(options.ArrowBatchesPooled);
            Assert.Equal(64L * MiB, options.ArrowBatchPoolMaxRetainedBytes);

            using DatabricksMemoryLease lease = CreateScope();
            Assert.IsType<ScopedArrowAllocator>(lease.Scope.BatchAllocator);
            Assert.Equal(64L * MiB, lease.Scope.ArrowBatchPool.MaxRetainedBytes);
        }

        [Fact]
        public void EveryKeyIsParsedCaseInsensitively()
        {
            DatabricksMemoryOptions options = ParseOptions((Pooled.ToUpperInvariant(), "FALSE"), (Retained, "7"), (Poison, "True"));
            Assert.False(options.ArrowBatchesPooled);
            Assert.Equal(7L * MiB, options.ArrowBatchPoolMaxRetainedBytes);
            Assert.True(options.PoisonReturnedArrays);
        }

        [Fact]
        public void PoolingDisabledStillGivesManagedBatchesButKeepsNone()
        {
            // pooling_enabled=false turns every pool off; batches still avoid native memory unless arrow_batches_pooled=false.
            using DatabricksMemoryLease lease = CreateScope(("adbc.databricks.memory.pooling_enabled", "false"));
            Assert.IsType<ScopedArrowAllocator>(lease.Scope.BatchAllocator);
            Assert.Equal(0, lease.Scope.ArrowBatchPool.MaxRetainedBytes);

            using DatabricksMemoryLease off = CreateScope((Pooled, "false"));
            Assert.Same(MemoryAllocator.Default.Value, off.Scope.BatchAllocator);
            Assert.Equal(0, off.Scope.ArrowBatchPool.MaxRetainedBytes);
        }

        [Theory]
        [InlineData(Pooled, "yes")]
        [InlineData(Poison, "1")]
        [InlineData(Retained, "-1")]
        [InlineData(Retained, "64MB")]
        public void InvalidValuesNameTheKeyAndTheValue(string key, string value)
        {
            ArgumentException error = Assert.Throws<ArgumentException>(() => ParseOptions((key, value)));
            Assert.Contains($"'{key}'", error.Message, StringComparison.Ordinal);
            Assert.Contains($"'{value}'", error.Message, StringComparison.Ordinal);
        }
    }
}
