using System;
using System.Collections.Generic;
using Apache.Arrow.Adbc.Drivers.Databricks;
using Xunit;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>Connection-property parsing of the scope's limits: defaults, every key, errors, rounding.</summary>
    public class DatabricksMemoryOptionsTests
    {
        private const string Pooling = "adbc.databricks.memory.pooling_enabled";
        private const string Retained = "adbc.databricks.memory.buffer_pool_max_retained_mb";
        private const string MaxArray = "adbc.databricks.memory.buffer_pool_max_array_mb";
        private const string FreeSmall = "adbc.databricks.memory.stream_pool_max_free_small_mb";
        private const string FreeLarge = "adbc.databricks.memory.stream_pool_max_free_large_mb";
        private const string MaxBuffer = "adbc.databricks.memory.stream_pool_max_buffer_mb";

        private static DatabricksMemoryOptions Parse(params (string Key, string Value)[] properties)
        {
            var dictionary = new Dictionary<string, string>();
            foreach ((string key, string value) in properties)
            {
                dictionary[key] = value;
            }

            return DatabricksMemoryOptions.FromProperties(dictionary);
        }

        [Fact]
        public void KeysAreThePublishedNames()
        {
            // Users type these into connection strings: a rename is a breaking change.
            Assert.Equal(Pooling, DatabricksMemoryOptions.PoolingEnabledKey);
            Assert.Equal(Retained, DatabricksMemoryOptions.BufferPoolMaxRetainedMbKey);
            Assert.Equal(MaxArray, DatabricksMemoryOptions.BufferPoolMaxArrayMbKey);
            Assert.Equal(FreeSmall, DatabricksMemoryOptions.StreamPoolMaxFreeSmallMbKey);
            Assert.Equal(FreeLarge, DatabricksMemoryOptions.StreamPoolMaxFreeLargeMbKey);
            Assert.Equal(MaxBuffer, DatabricksMemoryOptions.StreamPoolMaxBufferMbKey);
        }

        [Fact]
        public void DefaultsWithoutPropertiesNullOrUnrelatedKeys()
        {
            foreach (DatabricksMemoryOptions options in new[]
            {
                DatabricksMemoryOptions.FromProperties(null),
                Parse(),
                Parse(("adbc.databricks.unrelated", "not a number"), ("adbc.databricks.memory.unknown_mb", "x")),
                DatabricksMemoryOptions.Default,
            })
            {
                Assert.True(options.PoolingEnabled);
                Assert.Equal(64L * MiB, options.BufferPoolMaxRetainedBytes);
                Assert.Equal(32 * MiB, options.BufferPoolMaxArrayLength);
                Assert.Equal(16L * MiB, options.StreamPoolMaxFreeSmallBytes);
                Assert.Equal(32L * MiB, options.StreamPoolMaxFreeLargeBytes);
                Assert.Equal(64 * MiB, options.StreamPoolMaxBufferLength);
            }
        }

        [Fact]
        public void EveryKeyIsParsed()
        {
            DatabricksMemoryOptions options = Parse(
                (Pooling, "false"),
                (Retained, "10"),
                (MaxArray, "8"),
                (FreeSmall, "3"),
                (FreeLarge, "20"),
                (MaxBuffer, "16"));

            Assert.False(options.PoolingEnabled);
            Assert.Equal(10L * MiB, options.BufferPoolMaxRetainedBytes);
            Assert.Equal(8 * MiB, options.BufferPoolMaxArrayLength);
            Assert.Equal(3L * MiB, options.StreamPoolMaxFreeSmallBytes);
            Assert.Equal(20L * MiB, options.StreamPoolMaxFreeLargeBytes);
            Assert.Equal(16 * MiB, options.StreamPoolMaxBufferLength);
        }

        [Fact]
        public void KeysAreCaseInsensitiveAndBooleansAcceptAnyCase()
        {
            DatabricksMemoryOptions options = Parse(
                (Pooling.ToUpperInvariant(), "FALSE"),
                ("Adbc.Databricks.Memory.Buffer_Pool_Max_Retained_MB", "5"),
                (MaxArray.ToUpperInvariant(), "2"),
                (FreeSmall.ToUpperInvariant(), "1"),
                (FreeLarge.ToUpperInvariant(), "7"),
                (MaxBuffer.ToUpperInvariant(), "12"));

            Assert.False(options.PoolingEnabled);
            Assert.Equal(5L * MiB, options.BufferPoolMaxRetainedBytes);
            Assert.Equal(2 * MiB, options.BufferPoolMaxArrayLength);
            Assert.Equal(1L * MiB, options.StreamPoolMaxFreeSmallBytes);
            Assert.Equal(7L * MiB, options.StreamPoolMaxFreeLargeBytes);
            Assert.Equal(12 * MiB, options.StreamPoolMaxBufferLength);

            Assert.True(Parse((Pooling, "True")).PoolingEnabled);
        }

        [Fact]
        public void RangeLimitsAreAccepted()
        {
            DatabricksMemoryOptions low = Parse((Retained, "0"), (MaxArray, "1"), (FreeSmall, "0"), (FreeLarge, "0"), (MaxBuffer, "4"));
            Assert.Equal(0, low.BufferPoolMaxRetainedBytes);
            Assert.Equal(MiB, low.BufferPoolMaxArrayLength);
            Assert.Equal(0, low.StreamPoolMaxFreeSmallBytes);
            Assert.Equal(0, low.StreamPoolMaxFreeLargeBytes);
            Assert.Equal(4 * MiB, low.StreamPoolMaxBufferLength);

            DatabricksMemoryOptions high = Parse((Retained, "1048576"), (MaxArray, "1024"), (MaxBuffer, "1024"));
            Assert.Equal(1048576L * MiB, high.BufferPoolMaxRetainedBytes);
            Assert.Equal(1024 * MiB, high.BufferPoolMaxArrayLength);
            Assert.Equal(1024 * MiB, high.StreamPoolMaxBufferLength);
        }

        [Theory]
        [InlineData("4", 4)]
        [InlineData("5", 4)]
        [InlineData("7", 4)]
        [InlineData("8", 8)]
        [InlineData("63", 60)]
        [InlineData("64", 64)]
        [InlineData("1023", 1020)]
        public void StreamMaxBufferIsRoundedDownToAMultipleOf4MiB(string value, int expectedMiB)
        {
            // RecyclableMemoryStream requires MaximumBufferSize to be a multiple of its 4 MiB LargeBufferMultiple.
            DatabricksMemoryOptions options = Parse((MaxBuffer, value));

            Assert.Equal(expectedMiB * MiB, options.StreamPoolMaxBufferLength);
            Assert.Equal(0, options.StreamPoolMaxBufferLength % DatabricksMemoryOptions.StreamLargeBufferMultiple);

            // And the manager accepts it (its constructor validates the multiple).
            using DatabricksMemoryLease lease = CreateScope((MaxBuffer, value));
            Assert.Equal(expectedMiB * (long)MiB, lease.Scope.StreamPool.Manager!.Settings.MaximumBufferSize);
        }

        [Theory]
        [InlineData(Pooling, "yes")]
        [InlineData(Pooling, "1")]
        [InlineData(Pooling, "")]
        [InlineData(Retained, "abc")]
        [InlineData(Retained, "-1")]
        [InlineData(Retained, "1.5")]
        [InlineData(Retained, "1048577")]
        [InlineData(Retained, "99999999999999999999")]
        [InlineData(MaxArray, "0")]
        [InlineData(MaxArray, "1025")]
        [InlineData(MaxArray, "32MB")]
        [InlineData(FreeSmall, "-5")]
        [InlineData(FreeSmall, "")]
        [InlineData(FreeLarge, "1e3")]
        [InlineData(MaxBuffer, "3")]
        [InlineData(MaxBuffer, "1025")]
        [InlineData(MaxBuffer, "sixty")]
        public void InvalidValuesNameTheKeyAndTheValue(string key, string value)
        {
            ArgumentException error = Assert.Throws<ArgumentException>(() => Parse((key, value)));

            Assert.Contains($"'{key}'", error.Message, StringComparison.Ordinal);
            Assert.Contains($"'{value}'", error.Message, StringComparison.Ordinal);

            // Creating a scope from the same properties fails the same way (it is how a connection reports it).
            ArgumentException fromScope = Assert.Throws<ArgumentException>(() => CreateScope((key, value)));
            Assert.Equal(error.Message, fromScope.Message);
        }

        [Fact]
        public void InvalidValueUnderAnotherCaseNamesTheKeyAsGiven()
        {
            string key = MaxArray.ToUpperInvariant();

            ArgumentException error = Assert.Throws<ArgumentException>(() => Parse((key, "big")));

            Assert.Contains($"'{key}'", error.Message, StringComparison.Ordinal);
            Assert.Contains("'big'", error.Message, StringComparison.Ordinal);
        }

        [Fact]
        public void TheScopeAppliesTheParsedLimits()
        {
            using DatabricksMemoryLease lease = CreateScope((Retained, "3"), (MaxArray, "3"), (FreeSmall, "2"), (FreeLarge, "12"), (MaxBuffer, "9"));
            DatabricksMemoryScope scope = lease.Scope;

            Assert.Equal(3L * MiB, scope.BufferPool.MaxRetainedBytes);
            Assert.Equal(4 * MiB, scope.BufferPool.MaxArrayLength); // 3 MiB rounded up to its power-of-two bucket
            var settings = scope.StreamPool.Manager!.Settings;
            Assert.Equal(2L * MiB, settings.MaximumSmallPoolFreeBytes);
            Assert.Equal(12L * MiB, settings.MaximumLargePoolFreeBytes);
            Assert.Equal(8L * MiB, settings.MaximumBufferSize);
            Assert.Equal(DatabricksMemoryOptions.StreamBlockSize, settings.BlockSize);
            Assert.Equal(DatabricksMemoryOptions.StreamLargeBufferMultiple, settings.LargeBufferMultiple);
            Assert.False(settings.UseExponentialLargeBuffer);
            Assert.True(settings.AggressiveBufferReturn);
        }

        [Fact]
        public void PoolingDisabledKeepsNothingAndStreamsAreUnpooled()
        {
            using DatabricksMemoryLease lease = CreateScope((Pooling, "false"));
            DatabricksMemoryScope scope = lease.Scope;

            Assert.Null(scope.StreamPool.Manager);
            Assert.Equal(0, scope.BufferPool.MaxRetainedBytes);

            byte[] array = scope.BufferPool.Rent(1000);
            scope.BufferPool.Return(array);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);

            using var stream = scope.StreamPool.GetContiguousStream(1000, out bool pooled);
            Assert.False(pooled);
            Assert.IsNotType<Microsoft.IO.RecyclableMemoryStream>(stream);

            // Decompression still works.
            (byte[] data, byte[] compressed) = Sample(100 * KiB, WithoutContentSize);
            using var decompressed = scope.Lz4.DecompressToStream(compressed);
            Assert.Equal(data, decompressed.ToArray());
        }
    }
}
