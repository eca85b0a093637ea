/*
* Copyright (c) 2025 ADBC Drivers Contributors
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/


using System;
using System.Collections.Generic;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The memory options' connection properties (<see cref="DatabricksMemoryOptions"/>): their published names,
    /// defaults, parsing of every key in any case, the errors that name the key and the value, and the limits a scope
    /// built from them applies.
    /// </summary>
    public class DatabricksMemoryOptionsTest
    {
        private const string Pooling = "adbc.databricks.memory.pooling_enabled";
        private const string Budget = "adbc.databricks.memory.budget_mb";
        private const string Retained = "adbc.databricks.memory.buffer_pool_max_retained_mb";
        private const string MaxArray = "adbc.databricks.memory.buffer_pool_max_array_mb";
        private const string IdleTrim = "adbc.databricks.memory.buffer_pool_idle_trim_seconds";
        private const string BatchesPooled = "adbc.databricks.memory.arrow_batches_pooled";
        private const string BatchRetained = "adbc.databricks.memory.arrow_batch_pool_max_retained_mb";
        private const string Poison = "adbc.databricks.memory.poison_returned_arrays";
        private const string DecodeAhead = "adbc.databricks.memory.decode_ahead";
        private const string AdaptivePrefetch = "adbc.databricks.memory.adaptive_prefetch";

        [Fact]
        public void Keys_AsDeclared_AreThePublishedNames()
        {
            // Users type these into connection strings: a rename is a breaking change.
            Assert.Equal(Pooling, DatabricksMemoryOptions.PoolingEnabledKey);
            Assert.Equal(Budget, DatabricksMemoryOptions.BudgetMbKey);
            Assert.Equal(Retained, DatabricksMemoryOptions.BufferPoolMaxRetainedMbKey);
            Assert.Equal(MaxArray, DatabricksMemoryOptions.BufferPoolMaxArrayMbKey);
            Assert.Equal(IdleTrim, DatabricksMemoryOptions.BufferPoolIdleTrimSecondsKey);
            Assert.Equal(BatchesPooled, DatabricksMemoryOptions.ArrowBatchesPooledKey);
            Assert.Equal(BatchRetained, DatabricksMemoryOptions.ArrowBatchPoolMaxRetainedMbKey);
            Assert.Equal(Poison, DatabricksMemoryOptions.PoisonReturnedArraysKey);
            Assert.Equal("ADBC_DATABRICKS_MEMORY_POISON", DatabricksMemoryOptions.PoisonEnvironmentVariable);
        }

        [Fact]
        public void FromProperties_NoneNullOrUnrelated_GivesTheDefaults()
        {
            // Arrange
            DatabricksMemoryOptions[] parsed =
            {
                DatabricksMemoryOptions.FromProperties(null),
                ParseOptions(),
                ParseOptions(("adbc.databricks.unrelated", "not a number"), ("adbc.databricks.memoryless", "x")),
                DatabricksMemoryOptions.Default,
            };

            // Assert
            foreach (DatabricksMemoryOptions options in parsed)
            {
                Assert.True(options.PoolingEnabled);
                Assert.Equal(48L * MiB, options.BudgetBytes);
                Assert.Equal(96L * MiB, options.BufferPoolMaxRetainedBytes);
                Assert.Equal(32 * MiB, options.BufferPoolMaxArrayLength);
                Assert.Equal(TimeSpan.FromSeconds(60), options.BufferPoolIdleTrimPeriod);
                Assert.True(options.ArrowBatchesPooled);
                Assert.Equal(64L * MiB, options.ArrowBatchPoolMaxRetainedBytes);
            }
        }

        [Fact]
        public void FromProperties_EveryKey_IsParsed()
        {
            // Act
            DatabricksMemoryOptions options = ParseOptions(
                (Pooling, "false"),
                (Retained, "10"),
                (MaxArray, "8"),
                (IdleTrim, "0"),
                (BatchesPooled, "false"),
                (BatchRetained, "7"),
                (Poison, "true"));

            // Assert
            Assert.False(options.PoolingEnabled);
            Assert.Equal(10L * MiB, options.BufferPoolMaxRetainedBytes);
            Assert.Equal(8 * MiB, options.BufferPoolMaxArrayLength);
            Assert.Equal(TimeSpan.Zero, options.BufferPoolIdleTrimPeriod); // never trims on a timer
            Assert.False(options.ArrowBatchesPooled);
            Assert.Equal(7L * MiB, options.ArrowBatchPoolMaxRetainedBytes);
            Assert.True(options.PoisonReturnedArrays);
        }

        [Fact]
        public void FromProperties_Budget_IsReadAndTheLz4PoolKeepsTwiceAsMuchUnlessToldOtherwise()
        {
            // Act
            DatabricksMemoryOptions budgetOnly = ParseOptions((Budget, "40"));
            DatabricksMemoryOptions both = ParseOptions((Budget, "40"), (Retained, "10"));

            // Assert
            Assert.Equal(40L * MiB, budgetOnly.BudgetBytes);
            Assert.Equal(80L * MiB, budgetOnly.BufferPoolMaxRetainedBytes);
            Assert.Equal(40L * MiB, both.BudgetBytes);
            Assert.Equal(10L * MiB, both.BufferPoolMaxRetainedBytes);
            Assert.Contains("from 1 to", Assert.Throws<ArgumentException>(() => ParseOptions((Budget, "0"))).Message);
        }

        [Theory]
        [InlineData(DecodeAhead)]
        [InlineData(AdaptivePrefetch)]
        public void FromProperties_ASwitch_IsOnByDefaultAndTurnedOffByItsKey(string key)
        {
            // Arrange: the switch the key names
            (string declaredKey, Func<DatabricksMemoryOptions, bool> isOn) = key == DecodeAhead
                ? (DatabricksMemoryOptions.DecodeAheadKey, new Func<DatabricksMemoryOptions, bool>(o => o.DecodeAhead))
                : (DatabricksMemoryOptions.AdaptivePrefetchKey, o => o.AdaptivePrefetch);

            // Act
            DatabricksMemoryOptions byDefault = ParseOptions();
            DatabricksMemoryOptions on = ParseOptions((key, "True"));
            DatabricksMemoryOptions onInAnyCase = ParseOptions((key.ToUpperInvariant(), "TRUE"));
            DatabricksMemoryOptions off = ParseOptions((key, "false"));
            ArgumentException invalid = Assert.Throws<ArgumentException>(() => ParseOptions((key, "sometimes")));

            // Assert
            Assert.Equal(key, declaredKey);
            Assert.True(isOn(byDefault));
            Assert.True(isOn(DatabricksMemoryOptions.Default));
            Assert.True(isOn(on));
            Assert.True(isOn(onInAnyCase));
            Assert.False(isOn(off));
            Assert.Contains("'true' and 'false'", invalid.Message);
        }

        [Fact]
        public void FromProperties_KeysAndBooleansInAnyCase_AreParsed()
        {
            // Act
            DatabricksMemoryOptions options = ParseOptions(
                (Pooling.ToUpperInvariant(), "FALSE"),
                ("Adbc.Databricks.Memory.Buffer_Pool_Max_Retained_MB", "5"),
                (MaxArray.ToUpperInvariant(), "2"),
                (IdleTrim.ToUpperInvariant(), "0"),
                (BatchesPooled.ToUpperInvariant(), "FALSE"),
                (Poison, "True"));

            // Assert
            Assert.False(options.PoolingEnabled);
            Assert.Equal(5L * MiB, options.BufferPoolMaxRetainedBytes);
            Assert.Equal(2 * MiB, options.BufferPoolMaxArrayLength);
            Assert.Equal(TimeSpan.Zero, options.BufferPoolIdleTrimPeriod);
            Assert.False(options.ArrowBatchesPooled);
            Assert.True(options.PoisonReturnedArrays);
            Assert.True(ParseOptions((Pooling, "True")).PoolingEnabled);
        }

        [Fact]
        public void FromProperties_RangeLimits_AreAccepted()
        {
            // Act
            DatabricksMemoryOptions low = ParseOptions((Retained, "0"), (MaxArray, "1"));
            DatabricksMemoryOptions high = ParseOptions((Retained, "1048576"), (MaxArray, "1024"));

            // Assert
            Assert.Equal(0, low.BufferPoolMaxRetainedBytes);
            Assert.Equal(MiB, low.BufferPoolMaxArrayLength);
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
        [InlineData(BatchesPooled, "yes")]
        [InlineData(Poison, "1")]
        [InlineData(BatchRetained, "-1")]
        [InlineData(BatchRetained, "64MB")]
        public void FromProperties_InvalidValue_FailsNamingTheKeyAndTheValueAsCreatingAScopeDoes(string key, string value)
        {
            // Act
            ArgumentException error = Assert.Throws<ArgumentException>(() => ParseOptions((key, value)));
            ArgumentException fromScope = Assert.Throws<ArgumentException>(() => CreateScope((key, value)));

            // Assert
            Assert.Contains($"'{key}'", error.Message, StringComparison.Ordinal);
            Assert.Contains($"'{value}'", error.Message, StringComparison.Ordinal);
            Assert.Equal(error.Message, fromScope.Message); // it is how a connection reports it
        }

        [Fact]
        public void FromProperties_NegativeIdleTrimPeriod_FailsSayingWhatIsAllowed()
        {
            // Act
            ArgumentException error = Assert.Throws<ArgumentException>(() => ParseOptions((IdleTrim, "-1")));

            // Assert
            Assert.Equal(
                "Parameter 'adbc.databricks.memory.buffer_pool_idle_trim_seconds' value '-1' is invalid. It must be a whole number of seconds from 0 (never) to 86400.",
                error.Message);
        }

        [Fact]
        public void FromProperties_InvalidValueUnderAnotherCase_NamesTheKeyAsGiven()
        {
            // Arrange
            string key = MaxArray.ToUpperInvariant();

            // Act
            ArgumentException error = Assert.Throws<ArgumentException>(() => ParseOptions((key, "big")));

            // Assert
            Assert.Contains($"'{key}'", error.Message, StringComparison.Ordinal);
            Assert.Contains("'big'", error.Message, StringComparison.Ordinal);
        }

        [Theory]
        [InlineData("adbc.databricks.memory.unknown_mb")]
        [InlineData("ADBC.Databricks.Memory.Buffer_Pool_Max_Retaind_MB")]
        public void FromProperties_UnknownMemoryKey_IsRefusedNotIgnored(string key)
        {
            // Act
            ArgumentException error = Assert.Throws<ArgumentException>(() => ParseOptions((key, "64")));

            // Assert
            Assert.Contains($"'{key}' is not a known memory option", error.Message);
            Assert.Contains(Retained, error.Message); // the known keys are listed
        }

        [Fact]
        public void Create_ParsedLimits_AreAppliedByTheScope()
        {
            // Act
            using DatabricksMemoryLease lease = CreateScope((Retained, "3"), (MaxArray, "3"));
            using DatabricksMemoryLease defaults = CreateScope();

            // Assert
            Assert.Equal(3L * MiB, lease.Scope.BufferPool.MaxRetainedBytes);
            Assert.Equal(4 * MiB, lease.Scope.BufferPool.MaxArrayLength); // 3 MiB rounded up to its power-of-two bucket
            Assert.IsType<ScopedArrowAllocator>(defaults.Scope.BatchAllocator);
            Assert.Equal(64L * MiB, defaults.Scope.ArrowBatchPool.MaxRetainedBytes);
        }

        [Fact]
        public void Create_PoolingDisabled_KeepsNothingAndStillDecodes()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope((Pooling, "false"));
            DatabricksMemoryScope scope = lease.Scope;
            byte[] data = Compressible(100 * KiB, seed: 1);

            // Act
            PooledArray rental = scope.BufferPool.Rent(1000);
            byte[] array = rental.Array;
            rental.Dispose();
            byte[] decoded = DecodeAsRead(scope, Lz4Frame(data, IndependentBlocks4MiB()));

            // Assert
            Assert.Equal(0, scope.BufferPool.MaxRetainedBytes);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.NotSame(array, scope.BufferPool.Rent(1000).Array);
            Assert.Equal(data, decoded);
            Assert.Equal(0, scope.BufferPool.RetainedBytes);
        }
    }
}
