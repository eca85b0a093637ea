/*
* Licensed to the Apache Software Foundation (ASF) under one or more
* contributor license agreements.  See the NOTICE file distributed with
* this work for additional information regarding copyright ownership.
* The ASF licenses this file to You under the Apache License, Version 2.0
* (the "License"); you may not use this file except in compliance with
* the License.  You may obtain a copy of the License at
*
*    http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.Collections.Generic;
using System.Globalization;

namespace Apache.Arrow.Adbc.Drivers.Databricks
{
    /// <summary>
    /// The limits of a <see cref="DatabricksMemoryScope"/>, read from connection properties. Every limit has a
    /// documented default; values are whole mebibytes so they read like the driver's other memory settings.
    /// </summary>
    internal sealed class DatabricksMemoryOptions
    {
        /// <summary>"false" turns pooling off: every buffer is allocated and left to the GC (an escape hatch).</summary>
        public const string PoolingEnabledKey = "adbc.databricks.memory.pooling_enabled";

        /// <summary>
        /// Bytes in use for results that the database allows all its readers together: CloudFetch files downloading and
        /// waiting (at their compressed size) and decode working memory (<see cref="MemoryBudget"/>); a reader that holds
        /// nothing still gets its next file. Default <see cref="DefaultBudgetMb"/> MiB, or a quarter of what the process
        /// may use when that is less (<c>GC.GetGCMemoryInfo().TotalAvailableMemoryBytes</c>: a container's or job
        /// object's limit; .NET Framework lacks it and takes the default). Upstream's per-reader
        /// <c>adbc.databricks.cloudfetch.memory_buffer_size_mb</c> keeps its meaning: a reader is held by both.
        /// </summary>
        public const string BudgetMbKey = "adbc.databricks.memory.budget_mb";

        /// <summary>
        /// 48 MiB. What a budget costs is prefetch: on the 1 GB verify result (55 files of 8.5 MB compressed), one query
        /// whose downloads are network-bound (the mock sending each file at 16 MiB/s) took 9.7 s with 48 or 96 MiB, as stock
        /// does (9.9 s), but 9.8-11.1 s with 32 and 14.2-14.6 s with 24 (one download in flight beside the file being
        /// read); over loopback, where prefetch buys nothing, its peak working set was 124-128 MB with 96, 116 with 48, 100
        /// with 32 and 92 with 24 (stock: 326-341 MB). 48 keeps one query's speed; a host that prefers memory to
        /// prefetch sets less.
        /// </summary>
        public const int DefaultBudgetMb = 48;

        /// <summary>
        /// Free bytes the LZ4 buffer pool may keep for reuse. Default: twice the budget (<see cref="BudgetMbKey"/>). What
        /// the readers of a database hold in use is the budget plus, per reader, at most the file it waits for and two
        /// decode blocks. Twice the budget takes back what up to about four readers on the default budget return, for
        /// the next file, instead of dropping arrays and allocating others on the large object heap (four readers had
        /// up to 89 MiB in use: with the budget as the cap they allocated 128-156 MiB of arrays and peaked at 3.1x one
        /// query's working set, with twice the budget 102-106 MiB and 2.5x; docs/decisions.md); more readers still
        /// drop some. One reader never has that much free. An idle database gives it back after the idle trim period.
        /// </summary>
        public const string BufferPoolMaxRetainedMbKey = "adbc.databricks.memory.buffer_pool_max_retained_mb";

        /// <summary>Largest array the LZ4 buffer pool keeps (rounded up to a power of two). Default 32 MiB.</summary>
        public const string BufferPoolMaxArrayMbKey = "adbc.databricks.memory.buffer_pool_max_array_mb";

        /// <summary>
        /// Seconds without any LZ4 buffer being rented or returned after which the pool gives its free arrays back to
        /// the GC (a database that stays open but idle then holds nothing). Default 60; 0 keeps them until the
        /// database is disposed.
        /// </summary>
        public const string BufferPoolIdleTrimSecondsKey = "adbc.databricks.memory.buffer_pool_idle_trim_seconds";

        /// <summary>
        /// Default true: while the application works on a CloudFetch file's bytes, the file's next LZ4 block is decoded on
        /// a thread-pool thread, at most one block ahead of what Apache.Arrow's reader asked for (a reader then holds its
        /// compressed file plus two blocks, 8 MiB for Databricks' files, charged to the budget). "false": every block is
        /// decoded on the reader's thread as it asks for bytes (series 1.5.0), one block per reader.
        /// </summary>
        public const string DecodeAheadKey = "adbc.databricks.memory.decode_ahead";

        /// <summary>
        /// "false": record batches read from CloudFetch files get Apache.Arrow's default (native) allocator, as upstream.
        /// Default true: their bodies are rented from the scope's batch pool (see <see cref="ScopedArrowAllocator"/>).
        /// </summary>
        public const string ArrowBatchesPooledKey = "adbc.databricks.memory.arrow_batches_pooled";

        /// <summary>
        /// Free bytes the record-batch pool may keep for reuse. Default 64 MiB: an application that reads and disposes
        /// batches in turn has one or two bodies (a few MB to a few tens of MB each) out at a time.
        /// </summary>
        public const string ArrowBatchPoolMaxRetainedMbKey = "adbc.databricks.memory.arrow_batch_pool_max_retained_mb";

        /// <summary>
        /// Test mode, off by default: "true" overwrites every returned record-batch array with a poison pattern, so a
        /// batch that could still see reused memory shows the pattern instead of its own values. Also turned on by
        /// the environment variable <see cref="PoisonEnvironmentVariable"/>=1 (for a whole test run).
        /// </summary>
        public const string PoisonReturnedArraysKey = "adbc.databricks.memory.poison_returned_arrays";

        public const string PoisonEnvironmentVariable = "ADBC_DATABRICKS_MEMORY_POISON";

        /// <summary>
        /// Default "true": each reader's prefetch adapts to the bottleneck (<c>PrefetchRule</c>) inside the database's
        /// budget, each file charged whole before its body is read. "false": the fixed CloudFetch pipeline (upstream's
        /// <c>parallel_downloads</c> and <c>prefetch_count</c>). Measured on both (docs/decisions.md, "Adaptive prefetch"):
        /// as fast where the reader is the bottleneck and on a shared link, at a lower peak; 0.55x the wall time where each
        /// download is slow. The adbc-drivers/databricks bases only: the apache/arrow-adbc tags keep the fixed pipeline and
        /// ignore this key.
        /// </summary>
        public const string AdaptivePrefetchKey = "adbc.databricks.memory.adaptive_prefetch";

        public const int MiB = 1024 * 1024;

        private long? _bufferPoolMaxRetainedBytes;

        public bool PoolingEnabled { get; private set; } = true;

        public long BudgetBytes { get; private set; } = DefaultBudgetBytes();

        /// <summary>The LZ4 pool's retained cap: as set, or twice the budget.</summary>
        public long BufferPoolMaxRetainedBytes
        {
            get => _bufferPoolMaxRetainedBytes ?? 2 * BudgetBytes;
            private set => _bufferPoolMaxRetainedBytes = value;
        }

        public int BufferPoolMaxArrayLength { get; private set; } = 32 * MiB;

        public bool ArrowBatchesPooled { get; private set; } = true;

        public bool DecodeAhead { get; private set; } = true;

        public long ArrowBatchPoolMaxRetainedBytes { get; private set; } = 64L * MiB;

        public bool PoisonReturnedArrays { get; private set; } = Environment.GetEnvironmentVariable(PoisonEnvironmentVariable) == "1";

        public bool AdaptivePrefetch { get; private set; } = true;

        public TimeSpan BufferPoolIdleTrimPeriod { get; private set; } = TimeSpan.FromSeconds(60);

        /// <summary><see cref="DefaultBudgetMb"/>, or a quarter of what the process may use when that is less (at least 16 MiB).</summary>
        internal static long DefaultBudgetBytes()
        {
            long budget = DefaultBudgetMb * (long)MiB;
#if NETCOREAPP3_0_OR_GREATER
            long available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
            if (available > 0)
            {
                budget = Math.Min(budget, Math.Max(16L * MiB, available / 4));
            }
#endif
            return budget;
        }

        public static DatabricksMemoryOptions Default { get; } = new DatabricksMemoryOptions();

        /// <summary>What every key above starts with; any other key under it is refused as unknown (a misspelt limit must not pass silently).</summary>
        public const string KeyPrefix = "adbc.databricks.memory.";

        private static readonly Option[] s_options =
        {
            new Option(PoolingEnabledKey, (o, k, v) => o.PoolingEnabled = ParseBool(k, v), o => o.PoolingEnabled),
            new Option(BudgetMbKey, (o, k, v) => o.BudgetBytes = ParseMebibytes(k, v, minimum: 1, maximum: 1024 * 1024) * MiB, o => o.BudgetBytes),
            new Option(BufferPoolMaxRetainedMbKey, (o, k, v) => o.BufferPoolMaxRetainedBytes = ParseMebibytes(k, v, minimum: 0, maximum: 1024 * 1024) * MiB, o => o.BufferPoolMaxRetainedBytes),
            new Option(BufferPoolMaxArrayMbKey, (o, k, v) => o.BufferPoolMaxArrayLength = (int)ParseMebibytes(k, v, minimum: 1, maximum: 1024) * MiB, o => o.BufferPoolMaxArrayLength),
            new Option(ArrowBatchesPooledKey, (o, k, v) => o.ArrowBatchesPooled = ParseBool(k, v), o => o.ArrowBatchesPooled),
            new Option(ArrowBatchPoolMaxRetainedMbKey, (o, k, v) => o.ArrowBatchPoolMaxRetainedBytes = ParseMebibytes(k, v, minimum: 0, maximum: 1024 * 1024) * MiB, o => o.ArrowBatchPoolMaxRetainedBytes),
            new Option(DecodeAheadKey, (o, k, v) => o.DecodeAhead = ParseBool(k, v), o => o.DecodeAhead),
            new Option(PoisonReturnedArraysKey, (o, k, v) => o.PoisonReturnedArrays = ParseBool(k, v), o => o.PoisonReturnedArrays),
            new Option(AdaptivePrefetchKey, (o, k, v) => o.AdaptivePrefetch = ParseBool(k, v), o => o.AdaptivePrefetch),
            new Option(BufferPoolIdleTrimSecondsKey, (o, k, v) => o.BufferPoolIdleTrimPeriod = TimeSpan.FromSeconds(ParseSeconds(k, v, maximum: 86_400)), o => o.BufferPoolIdleTrimPeriod),
        };

        /// <summary>
        /// Reads the options from connection properties (keys compared case-insensitively, like the driver's merge of
        /// database and connection properties). Keys outside <see cref="KeyPrefix"/> are ignored; an unknown key under it,
        /// or a malformed value, is an error that names the key and the value.
        /// </summary>
        public static DatabricksMemoryOptions FromProperties(IReadOnlyDictionary<string, string>? properties)
        {
            var options = new DatabricksMemoryOptions();
            if (properties == null)
            {
                return options;
            }

            foreach (KeyValuePair<string, string> property in properties)
            {
                OptionFor(property.Key)?.Apply(options, property.Key, property.Value);
            }

            return options;
        }

        /// <summary>
        /// Checks the memory keys among the options given to a database's <c>Connect</c>. The connection shares the
        /// database's scope, so they cannot apply to it alone: a key that agrees with the database's value is accepted
        /// (hosts often pass the same properties at both levels), one that differs is refused with an error that names
        /// it and says the option is database-level, and a malformed value is refused as at database level.
        /// </summary>
        public static void CheckConnectOptions(IReadOnlyDictionary<string, string>? connectOptions, DatabricksMemoryOptions database)
        {
            if (connectOptions == null)
            {
                return;
            }

            foreach (KeyValuePair<string, string> property in connectOptions)
            {
                Option? option = OptionFor(property.Key);
                if (option == null)
                {
                    continue;
                }

                var given = new DatabricksMemoryOptions();
                option.Apply(given, property.Key, property.Value);
                if (!Equals(option.Value(given), option.Value(database)))
                {
                    throw new ArgumentException(
                        $"Parameter '{property.Key}' value '{property.Value}' was given to Connect, but memory options are database-level: " +
                        $"every connection shares its database's memory scope, whose value is {option.Value(database)}. Set it in the database's properties.");
                }
            }
        }

        /// <summary>The option a key names; null for a key outside <see cref="KeyPrefix"/>; an error for an unknown one under it.</summary>
        private static Option? OptionFor(string key)
        {
            if (!key.StartsWith(KeyPrefix, StringComparison.OrdinalIgnoreCase))
            {
                return null;
            }

            foreach (Option option in s_options)
            {
                if (string.Equals(key, option.Key, StringComparison.OrdinalIgnoreCase))
                {
                    return option;
                }
            }

            throw new ArgumentException($"Parameter '{key}' is not a known memory option. Known options: {string.Join(", ", System.Array.ConvertAll(s_options, o => o.Key))}.");
        }

        private static bool ParseBool(string key, string value)
        {
            if (bool.TryParse(value, out bool result))
            {
                return result;
            }

            throw new ArgumentException($"Parameter '{key}' value '{value}' could not be parsed. Valid values are 'true' and 'false'.");
        }

        private static long ParseSeconds(string key, string value, long maximum) =>
            ParseWhole(key, value, 0, maximum, $"seconds from 0 (never) to {maximum}");

        private static long ParseMebibytes(string key, string value, long minimum, long maximum) =>
            ParseWhole(key, value, minimum, maximum, $"MiB from {minimum} to {maximum}");

        private static long ParseWhole(string key, string value, long minimum, long maximum, string range)
        {
            if (long.TryParse(value, NumberStyles.Integer, CultureInfo.InvariantCulture, out long result) && result >= minimum && result <= maximum)
            {
                return result;
            }

            throw new ArgumentException($"Parameter '{key}' value '{value}' is invalid. It must be a whole number of {range}.");
        }

        /// <summary>One memory key: how to read it into options, and the value it sets (to compare two sets of options).</summary>
        private sealed class Option
        {
            public Option(string key, Action<DatabricksMemoryOptions, string, string> apply, Func<DatabricksMemoryOptions, object> value) =>
                (Key, Apply, Value) = (key, apply, value);

            public string Key { get; }

            public Action<DatabricksMemoryOptions, string, string> Apply { get; }

            public Func<DatabricksMemoryOptions, object> Value { get; }
        }
    }
}
