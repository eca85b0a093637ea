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
using System.Diagnostics.Metrics;
using System.IO;
using System.Linq;
using System.Reflection;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The scope's meter (<see cref="DatabricksMemoryMetrics"/>) says what the pools' own accounting says, as a
    /// <see cref="MeterListener"/> (or dotnet-counters) sees it: every step of a pool's life, decoding streams, decoded
    /// bytes and frames, failures with their reason, and tags that name the pool and only the scope they belong to.
    /// Every query names the scope's id: the meter is process-wide and other tests run in parallel.
    /// </summary>
    public class DatabricksMemoryMetricsTest
    {
        private const int MinArray = Lz4BufferPool.MinimumArrayLength;
        private const string Lz4Buffers = DatabricksMemoryMetricNames.Lz4BuffersPool;

        /// <summary>
        /// <see cref="DatabricksMemoryMetricNames"/> is the one definition of the names (the harness, the probe and the
        /// verify report take them from it): the meter publishes exactly the instruments it names.
        /// </summary>
        [Fact]
        public void Meter_Published_HasExactlyTheInstrumentsTheNamesDefine()
        {
            // Arrange
            GC.KeepAlive(DatabricksMemoryMetrics.Rented); // the meter and its instruments exist from here on
            HashSet<string> defined = new HashSet<string>();
            foreach (FieldInfo field in typeof(DatabricksMemoryMetricNames).GetFields(BindingFlags.Public | BindingFlags.Static))
            {
                string value = (string)field.GetRawConstantValue()!;
                if (value.StartsWith("adbc.databricks.", StringComparison.Ordinal))
                {
                    defined.Add(value);
                }
            }

            // Act
            HashSet<string> published = new HashSet<string>();
            using (MeterListener listener = new MeterListener())
            {
                listener.InstrumentPublished = (instrument, _) =>
                {
                    if (instrument.Meter.Name == DatabricksMemoryMetricNames.MeterName)
                    {
                        lock (published)
                        {
                            published.Add(instrument.Name);
                        }
                    }
                };
                listener.Start();
            }

            // Assert
            Assert.Equal(22, defined.Count);
            Assert.Equal(defined.OrderBy(name => name, StringComparer.Ordinal), published.OrderBy(name => name, StringComparer.Ordinal));
        }

        [Fact]
        public void Rent_EveryStepOfAPoolsLife_MeasurementsMatchItsAccounting()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            Lz4BufferPool pool = scope.BufferPool;
            int id = scope.Id;

            // Act and Assert: rented
            PooledArray a = pool.Rent(1);
            PooledArray b = pool.Rent((2 * MinArray) - 1); // the 128 KiB bucket
            PooledArray c = pool.Rent(MiB);
            byte[] cArray = c.Array;
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(MinArray + (2 * MinArray) + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(MinArray + (2 * MinArray) + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.Allocated, Lz4Buffers));
            Assert.Equal(3, metrics.Count(id, DatabricksMemoryMetricNames.Allocated, Lz4Buffers));

            // returned
            b.Dispose();
            c.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal((2 * MinArray) + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.Retained, Lz4Buffers));

            // reused: rented and in use again, not allocated again
            PooledArray c2 = pool.Rent(MiB);
            Assert.Same(cArray, c2.Array);
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(MinArray + (2 * MinArray) + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.Allocated, Lz4Buffers));
            Assert.Equal((2 * MinArray) + MiB + MinArray + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.Rented, Lz4Buffers));

            // released: retained drops to 0 at once; arrays still rented stay in use until they come back
            owner.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained, Lz4Buffers));
            Assert.Equal(MinArray + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(2 * MinArray, metrics.Sum(id, DatabricksMemoryMetricNames.Dropped, Lz4Buffers));
            a.Dispose();
            c2.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained, Lz4Buffers));
            Assert.Equal((2 * MinArray) + MinArray + MiB, metrics.Sum(id, DatabricksMemoryMetricNames.Dropped, Lz4Buffers));

            // after release, rents are unpooled: counted as such, never as rented, allocated or in use
            long rentedBefore = metrics.Sum(id, DatabricksMemoryMetricNames.Rented, Lz4Buffers);
            pool.Rent(1000).Dispose();
            Assert.Equal(1000, metrics.Sum(id, DatabricksMemoryMetricNames.Unpooled, Lz4Buffers));
            Assert.Equal(rentedBefore, metrics.Sum(id, DatabricksMemoryMetricNames.Rented, Lz4Buffers));
            AssertBufferPoolMatches(metrics, scope);
        }

        [Fact]
        public void DecodeAsRead_StreamsQueuedHalfReadAndRead_AreAccountedAsTheirPooledArrays()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            int id = scope.Id;
            byte[] large = Compressible(5 * MiB, seed: 1);
            byte[] largeFrame = Lz4Frame(large, IndependentBlocks4MiB());
            long download = BucketOf(largeFrame.Length);
            byte[] half = new byte[large.Length / 2];

            // Act and Assert: queued, the download; half read, the 4 MiB block being read and the second (last) block
            // decoded ahead into another, the download gone back with its last block; read to the end, nothing
            Stream first = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, largeFrame));
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(download, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(half.Length, ReadFully(first, half, half.Length));
            Settle(first);
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(2 * 4 * MiB, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(large.Skip(half.Length).ToArray(), ReadAll(first, 81920));
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(download + (2 * 4 * MiB), metrics.Sum(id, DatabricksMemoryMetricNames.Retained, Lz4Buffers));
            first.Dispose();

            // the next file takes the same three arrays: nothing new is allocated
            Assert.Equal(large, DecodeAsRead(scope, largeFrame, settle: true));
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(download + (2 * 4 * MiB), metrics.Sum(id, DatabricksMemoryMetricNames.Allocated, Lz4Buffers));

            // released while a stream is half read: retained goes to 0, its arrays stay in use until it is disposed
            Stream open = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, largeFrame));
            Assert.Equal(half.Length, ReadFully(open, half, half.Length));
            Settle(open);
            owner.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained, Lz4Buffers));
            Assert.Equal(2 * 4 * MiB, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            open.Dispose();
            AssertBufferPoolMatches(metrics, scope);
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(0, metrics.Sum(id, DatabricksMemoryMetricNames.Retained, Lz4Buffers));
        }

        [Fact]
        public void Decode_BothEntryPoints_CountEveryDecodedByteAndFrame()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] a = Compressible(100 * KiB, seed: 11);
            byte[] b = Compressible(70 * KiB, seed: 12);
            byte[] c = Compressible(MiB, seed: 13);
            byte[] aFrame = WithContentSize(Lz4Frame(a, IndependentBlocks4MiB()), a.Length);
            byte[] bFrame = Lz4Frame(b, IndependentBlocks4MiB());
            byte[] cFrame = Lz4Frame(c, Linked64K());
            long expected = a.Length + b.Length + c.Length;

            // Act and Assert: three frames and an empty skippable one, decoded as read
            DecodeAsRead(scope, Concatenate(aFrame, SkippableFrame(0), bFrame, cFrame));
            Assert.Equal(expected, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(3, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Frames));

            // to an array, with a content size and without
            Assert.Equal(a, scope.Lz4.DecompressToArray(aFrame));
            Assert.Equal(b, scope.Lz4.DecompressToArray(bFrame));
            Assert.Equal(expected + a.Length + b.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(5, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Frames));

            // a failed decode to an array produces nothing countable
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(cFrame)));
            Assert.Equal(expected + a.Length + b.Length, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(5, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Frames));
            Assert.All(metrics.TagsSeen(scope.Id, DatabricksMemoryMetricNames.Lz4Decoded), tags => Assert.Equal((null, null), tags));
        }

        [Fact]
        public void Decode_CorruptInput_IsCountedAsAFallbackWithTheErrorReason()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            DatabricksMemoryLease owner = CreateScope();
            DatabricksMemoryScope scope = owner.Scope;
            byte[] data = Compressible(5 * MiB, seed: 1);
            byte[] frame = Lz4Frame(data, IndependentBlocks4MiB());
            Assert.Equal(data, DecodeAsRead(scope, frame));
            Assert.Equal(data, scope.Lz4.DecompressToArray(frame));
            Assert.Equal(0, metrics.Count(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks));

            // Act: through both entry points, and after release too
            Assert.Throws<Lz4FormatException>(() => DecodeAsRead(scope, Truncated(frame)));
            Assert.Throws<Lz4FormatException>(() => scope.Lz4.DecompressToArray(Truncated(frame)));
            owner.Dispose();
            Assert.Throws<Lz4FormatException>(() => DecodeAsRead(scope, Truncated(frame)));

            // Assert
            Assert.Equal(3, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks, reason: DatabricksMemoryMetricNames.ErrorReason));
            Assert.All(metrics.TagsSeen(scope.Id, DatabricksMemoryMetricNames.Lz4Fallbacks), tags => Assert.Equal((null, DatabricksMemoryMetricNames.ErrorReason), tags));
        }

        [Fact]
        public void Rent_TwoScopes_EveryMeasurementCarriesItsPoolTagAndOnlyItsOwnScope()
        {
            // Arrange
            using DbxmemMetricsRecorder metrics = new DbxmemMetricsRecorder();
            using DatabricksMemoryLease busy = CreateScope();
            using DatabricksMemoryLease idle = CreateScope();
            byte[] frame = Lz4Frame(Compressible(100 * KiB, seed: 1), IndependentBlocks4MiB());

            // Act
            DecodeAsRead(busy.Scope, frame);
            busy.Scope.Lz4.DecompressToArray(frame);
            busy.Scope.BufferPool.Rent(10).Dispose();

            // Assert
            foreach (string instrument in new[] { DatabricksMemoryMetricNames.Rented, DatabricksMemoryMetricNames.Returned, DatabricksMemoryMetricNames.InUse, DatabricksMemoryMetricNames.Retained, DatabricksMemoryMetricNames.Allocated })
            {
                IReadOnlyList<(string? Pool, string? Reason)> tags = metrics.TagsSeen(busy.Scope.Id, instrument);
                Assert.Contains((Lz4Buffers, null), tags);
                Assert.All(tags, t => Assert.True(t.Pool == Lz4Buffers && t.Reason == null, $"{instrument} tagged pool={t.Pool} reason={t.Reason}"));
                Assert.Equal(0, metrics.Count(idle.Scope.Id, instrument));
            }

            Assert.Equal(0, metrics.Count(idle.Scope.Id, DatabricksMemoryMetricNames.Lz4Decoded));
            Assert.Equal(1, metrics.Count(idle.Scope.Id, DatabricksMemoryMetricNames.LiveScopes));
        }

        private static void AssertBufferPoolMatches(DbxmemMetricsRecorder metrics, DatabricksMemoryScope scope)
        {
            int id = scope.Id;
            Assert.Equal(scope.BufferPool.InUseBytes, metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
            Assert.Equal(scope.BufferPool.RetainedBytes, metrics.Sum(id, DatabricksMemoryMetricNames.Retained, Lz4Buffers));
            Assert.Equal(
                metrics.Sum(id, DatabricksMemoryMetricNames.Rented, Lz4Buffers) - metrics.Sum(id, DatabricksMemoryMetricNames.Returned, Lz4Buffers),
                metrics.Sum(id, DatabricksMemoryMetricNames.InUse, Lz4Buffers));
        }
    }
}
