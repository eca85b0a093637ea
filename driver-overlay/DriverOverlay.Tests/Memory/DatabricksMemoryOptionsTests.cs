using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests.Memory
{
    /// <summary>Connection-property parsing of the scope's limits: defaults, every key, errors, rounding.</summary>
    public class DatabricksMemoryOptionsTests
    {
        private const string Pooling = "adbc.databricks.memory.pooling_enabled";
        private const string Retained = "adbc.databricks.memory.buffer_pool_max_retained_mb";
        private const string MaxArray = "adbc.databricks.memory.buffer_pool_max_array_mb";

        [Fact]
        public void KeysAreThePublishedNames()
        {
            // Users type these into connection strings: a rename is a breaking change.
            Assert.Equal(Pooling, DatabricksMemoryOptions.PoolingEnabledKey);
            Assert.Equal(Retained, DatabricksMemoryOptions.BufferPoolMaxRetainedMbKey);
            Assert.Equal(MaxArray, DatabricksMemoryOptions.BufferPoolMaxArrayMbKey);
            Assert.Equal("adbc.databricks.memory.buffer_pool_idle_trim_seconds", DatabricksMemoryOptions.BufferPoolIdleTrimSecondsKey);
            Assert.Equal("adbc.databricks.memory.adaptive_prefetch", DatabricksMemoryOptions.AdaptivePrefetchKey);
        }

        [Fact]
        public void DefaultsWithoutPropertiesNullOrUnrelatedKeys()
        {
            foreach (DatabricksMemoryOptions options in new[]
            {
                DatabricksMemoryOptions.FromProperties(null),
                ParseOptions(),
                ParseOptions(("adbc.databricks.unrelated", "not a number"), ("adbc.databricks.memoryless", "x")),
                DatabricksMemoryOptions.Default,
            })
            {
                Assert.True(options.PoolingEnabled);
                Assert.Equal(48L * MiB, options.BudgetBytes); // this machine can use far more than 4 x 48 MiB
                Assert.Equal(options.BudgetBytes, options.BufferPoolMaxRetainedBytes);
                Assert.Equal(32 * MiB, options.BufferPoolMaxArrayLength);
                Assert.False(options.AdaptivePrefetch); // opt-in until measured
            }
        }

        [Fact]
        public void EveryKeyIsParsed()
        {
            DatabricksMemoryOptions options = ParseOptions(
                (Pooling, "false"),
                (Retained, "10"),
                (MaxArray, "8"));

            Assert.False(options.PoolingEnabled);
            Assert.Equal(10L * MiB, options.BufferPoolMaxRetainedBytes);
            Assert.Equal(8 * MiB, options.BufferPoolMaxArrayLength);
        }

        [Theory]
        [InlineData("false", false)]
        [InlineData("True", true)]
        public void AdaptivePrefetchCanBeTurnedOnAndOff(string value, bool expected)
        {
            Assert.Equal(expected, ParseOptions((DatabricksMemoryOptions.AdaptivePrefetchKey, value)).AdaptivePrefetch);
            Assert.Throws<ArgumentException>(() => ParseOptions((DatabricksMemoryOptions.AdaptivePrefetchKey, "off")));
        }

        [Fact]
        public void TheBudgetIsReadAndTheLz4PoolKeepsAsMuchUnlessToldOtherwise()
        {
            DatabricksMemoryOptions budgetOnly = ParseOptions(("adbc.databricks.memory.budget_mb", "40"));
            DatabricksMemoryOptions both = ParseOptions(("adbc.databricks.memory.budget_mb", "40"), (Retained, "10"));

            Assert.Equal((40L * MiB, 40L * MiB), (budgetOnly.BudgetBytes, budgetOnly.BufferPoolMaxRetainedBytes));
            Assert.Equal((40L * MiB, 10L * MiB), (both.BudgetBytes, both.BufferPoolMaxRetainedBytes));
            Assert.Contains("from 1 to", Assert.Throws<ArgumentException>(() => ParseOptions(("adbc.databricks.memory.budget_mb", "0"))).Message);
        }

        [Fact]
        public void DecodeAheadIsOnByDefaultAndTurnedOffByItsKey()
        {
            Assert.Equal("adbc.databricks.memory.decode_ahead", DatabricksMemoryOptions.DecodeAheadKey);
            Assert.True(ParseOptions().DecodeAhead);
            Assert.True(DatabricksMemoryOptions.Default.DecodeAhead);
            Assert.False(ParseOptions(("adbc.databricks.memory.decode_ahead", "false")).DecodeAhead);
            Assert.True(ParseOptions(("ADBC.Databricks.Memory.Decode_Ahead", "TRUE")).DecodeAhead);
            Assert.Contains("'true' and 'false'", Assert.Throws<ArgumentException>(() => ParseOptions(("adbc.databricks.memory.decode_ahead", "sometimes"))).Message);
        }

        [Fact]
        public void KeysAreCaseInsensitiveAndBooleansAcceptAnyCase()
        {
            DatabricksMemoryOptions options = ParseOptions(
                (Pooling.ToUpperInvariant(), "FALSE"),
                ("Adbc.Databricks.Memory.Buffer_Pool_Max_Retained_MB", "5"),
                (MaxArray.ToUpperInvariant(), "2"));

            Assert.False(options.PoolingEnabled);
            Assert.Equal(5L * MiB, options.BufferPoolMaxRetainedBytes);
            Assert.Equal(2 * MiB, options.BufferPoolMaxArrayLength);

            Assert.True(ParseOptions((Pooling, "True")).PoolingEnabled);
        }

        [Fact]
        public void RangeLimitsAreAccepted()
        {
            DatabricksMemoryOptions low = ParseOptions((Retained, "0"), (MaxArray, "1"));
            Assert.Equal(0, low.BufferPoolMaxRetainedBytes);
            Assert.Equal(MiB, low.BufferPoolMaxArrayLength);

            DatabricksMemoryOptions high = ParseOptions((Retained, "1048576"), (MaxArray, "1024"));
            Assert.Equal(1048576L * MiB, high.BufferPoolMaxRetainedBytes);
            Assert.Equal(1024 * MiB, high.BufferPoolMaxArrayLength);
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
        [InlineData(MaxArray, " ")]
        public void InvalidValuesNameTheKeyAndTheValue(string key, string value)
        {
            ArgumentException error = Assert.Throws<ArgumentException>(() => ParseOptions((key, value)));

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

            ArgumentException error = Assert.Throws<ArgumentException>(() => ParseOptions((key, "big")));

            Assert.Contains($"'{key}'", error.Message, StringComparison.Ordinal);
            Assert.Contains("'big'", error.Message, StringComparison.Ordinal);
        }

        [Fact]
        public void TheScopeAppliesTheParsedLimits()
        {
            using DatabricksMemoryLease lease = CreateScope((Retained, "3"), (MaxArray, "3"));
            DatabricksMemoryScope scope = lease.Scope;

            Assert.Equal(3L * MiB, scope.BufferPool.MaxRetainedBytes);
            Assert.Equal(4 * MiB, scope.BufferPool.MaxArrayLength); // 3 MiB rounded up to its power-of-two bucket
        }

        [Fact]
        public void PoolingDisabledKeepsNothing()
        {
            using DatabricksMemoryLease lease = CreateScope((Pooling, "false"));
            DatabricksMemoryScope scope = lease.Scope;

            Assert.Equal(0, scope.BufferPool.MaxRetainedBytes);

            PooledArray rental = scope.BufferPool.Rent(1000);
            byte[] array = rental.Array;
            rental.Dispose();
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.NotSame(array, scope.BufferPool.Rent(1000).Array);

            // Decompression still works, and leaves nothing behind.
            (byte[] data, byte[] compressed) = Sample(100 * KiB, WithoutContentSize);
            Assert.Equal(data, Lz4Decoding.DecodeAsRead(scope.Lz4, scope.BufferPool, compressed));

            Assert.Equal(0, scope.BufferPool.RetainedBytes);
        }

        [Theory]
        [InlineData("adbc.databricks.memory.unknown_mb")]
        [InlineData("ADBC.Databricks.Memory.Buffer_Pool_Max_Retaind_MB")]
        public void AnUnknownMemoryKeyIsRefusedNotIgnored(string key)
        {
            var error = Assert.Throws<ArgumentException>(() => ParseOptions((key, "64")));
            Assert.Contains($"'{key}' is not a known memory option", error.Message);
            Assert.Contains(Retained, error.Message); // the known keys are listed
        }

        [Fact]
        public void MemoryOptionsGivenToConnectThatDifferFromTheDatabaseAreRefusedAsDatabaseLevel()
        {
            using DatabricksMemoryLease database = CreateScope((Retained, "64"));
            DatabricksMemoryScope scope = database.Scope;

            var error = Assert.Throws<ArgumentException>(() => scope.AcquireLease(Properties((Retained, "256"))));
            Assert.Contains($"'{Retained}'", error.Message);
            Assert.Contains("database-level", error.Message);
            Assert.Contains("67108864", error.Message); // the database's value, in bytes
            Assert.Equal(1, scope.LeaseCount); // nothing acquired

            var pooling = Assert.Throws<ArgumentException>(() => scope.AcquireLease(Properties((Pooling, "false"))));
            Assert.Contains("database-level", pooling.Message);
        }

        [Theory]
        [InlineData(Retained, "abc")]
        [InlineData(Retained, "-1")]
        [InlineData(Pooling, "maybe")]
        [InlineData("adbc.databricks.memory.no_such_option", "1")]
        public void MalformedOrUnknownMemoryOptionsGivenToConnectAreRefused(string key, string value)
        {
            using DatabricksMemoryLease database = CreateScope();
            var error = Assert.Throws<ArgumentException>(() => database.Scope.AcquireLease(Properties((key, value))));
            Assert.Contains($"'{key}'", error.Message);
            Assert.Equal(1, database.Scope.LeaseCount);
        }

        [Fact]
        public void ConnectOptionsThatAgreeWithTheDatabaseOrAreNotMemoryOptionsAreAccepted()
        {
            // Hosts often pass the same properties to the database and to Connect.
            using DatabricksMemoryLease database = CreateScope((Retained, "64"), (Pooling, "true"));
            using DatabricksMemoryLease connection = database.Scope.AcquireLease(Properties(
                (Retained.ToUpperInvariant(), "64"), (Pooling, "True"), (MaxArray, "32"), ("adbc.databricks.other", "x")));

            Assert.False(connection.IsDetached);
            Assert.Same(database.Scope, connection.Scope);
            Assert.Equal(2, database.Scope.LeaseCount);
            using DatabricksMemoryLease withoutOptions = database.Scope.AcquireLease(connectOptions: null);
            Assert.Equal(3, database.Scope.LeaseCount);
        }
    }
}
