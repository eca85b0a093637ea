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
using System.IO;
using System.Runtime.InteropServices;
using Apache.Arrow;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>Scopes, downloads in pooled buffers and batch bodies: what the memory-scope tests share.</summary>
    internal static class DbxmemScopeData
    {
        /// <summary>The pool's smallest array: requests up to it share one bucket, the first of four per doubling.</summary>
        public const int MinArray = Lz4BufferPool.MinimumArrayLength;

        /// <summary>Name/value pairs as the connection-property dictionary the driver hands the overlay.</summary>
        public static Dictionary<string, string> Properties(params (string Key, string Value)[] properties)
        {
            Dictionary<string, string> dictionary = new Dictionary<string, string>();
            foreach ((string key, string value) in properties)
            {
                dictionary[key] = value;
            }

            return dictionary;
        }

        /// <summary>Creates a scope from name/value pairs, as the driver does from connection properties.</summary>
        public static DatabricksMemoryLease CreateScope(params (string Key, string Value)[] properties) =>
            DatabricksMemoryScope.Create(Properties(properties));

        /// <summary>Parses name/value pairs into the scope's options, as the driver does.</summary>
        public static DatabricksMemoryOptions ParseOptions(params (string Key, string Value)[] properties) =>
            DatabricksMemoryOptions.FromProperties(Properties(properties));

        /// <summary>
        /// A pool built directly, published under a test scope id of its own (<see cref="DbxmemMetricsRecorder.NextTestScopeId"/>),
        /// so a recorder sees its measurements alone.
        /// </summary>
        public static Lz4BufferPool NewPool(int maxArrayLength, long maxRetainedBytes, out int scopeId, TimeSpan idleTrimPeriod = default)
        {
            scopeId = DbxmemMetricsRecorder.NextTestScopeId();
            return new Lz4BufferPool(maxArrayLength, maxRetainedBytes, new PoolMeter(scopeId, DatabricksMemoryMetricNames.Lz4BuffersPool), idleTrimPeriod);
        }

        /// <summary>
        /// The array length a scope's LZ4 buffer pool hands out for <paramref name="size"/> bytes (its layout's bucket; the
        /// layout's sizes themselves are pinned down by literal values in <c>Lz4BufferPoolTest</c>).
        /// </summary>
        public static int BucketOf(int size) => PoolBuckets.Lz4Buffers.SizeOf(PoolBuckets.Lz4Buffers.IndexOf(size));

        /// <summary>The bytes as a download leaves them: in an array rented from <paramref name="pool"/>.</summary>
        public static PooledBuffer Download(Lz4BufferPool pool, byte[] compressed)
        {
            PooledArray rental = pool.Rent(Math.Max(compressed.Length, 1));
            Buffer.BlockCopy(compressed, 0, rental.Array, 0, compressed.Length);
            return new PooledBuffer(rental, compressed.Length);
        }

        /// <summary>
        /// A CloudFetch file decoded as it is read: downloaded into the scope's pool, read to its end in
        /// <paramref name="readSize"/>-byte reads (<see cref="ReadAllSettled"/>'s when <paramref name="settle"/>).
        /// </summary>
        public static byte[] DecodeAsRead(DatabricksMemoryScope scope, byte[] compressed, int readSize = 81920, bool settle = false)
        {
            using (Stream stream = scope.Lz4.DecodeAsRead(Download(scope.BufferPool, compressed)))
            {
                return settle ? ReadAllSettled(stream, readSize) : ReadAll(stream, readSize);
            }
        }

        /// <summary>
        /// Waits until the block decoded ahead after the last read is there (the stream's decode-ahead worker has ended):
        /// what the stream holds is then known, whatever the thread pool did meanwhile.
        /// </summary>
        public static void Settle(Stream stream) => ((Lz4DecodingStream)stream).AheadWorker.GetAwaiter().GetResult();

        /// <summary>Every byte of a CloudFetch stream, read <paramref name="readSize"/> bytes at a time, each read followed by <see cref="Settle"/>.</summary>
        public static byte[] ReadAllSettled(Stream stream, int readSize)
        {
            using (MemoryStream output = new MemoryStream())
            {
                byte[] buffer = new byte[readSize];
                int read;
                do
                {
                    read = stream.Read(buffer, 0, buffer.Length);
                    Settle(stream);
                    output.Write(buffer, 0, read);
                }
                while (read > 0);

                return output.ToArray();
            }
        }

        /// <summary>Every byte the scope's pool handed out is back: the pool and the meter agree, and every rental was returned.</summary>
        public static void AssertNothingInUse(DbxmemMetricsRecorder metrics, DatabricksMemoryScope scope)
        {
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, metrics.Sum(scope.Id, DatabricksMemoryMetricNames.InUse));
            Assert.Equal(metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Rented), metrics.Sum(scope.Id, DatabricksMemoryMetricNames.Returned));
        }

        /// <summary>
        /// The pooled array behind the batch's id values, through the overlay's accessor for tests: on .NET a batch body never
        /// hands out its array (<c>MemoryMarshal.TryGetArray</c> says no); off .NET Core it does, for Apache.Arrow's reader.
        /// Fails for a body that is not a live pooled one.
        /// </summary>
        public static byte[] BodyArrayOf(RecordBatch batch)
        {
            ReadOnlyMemory<byte> values = batch.Column(0).Data.Buffers[1].Memory;
            Assert.True(ScopedArrowAllocator.TryGetBodyArray(values, out byte[]? array), "the batch body is not a live pooled body");
#if NETCOREAPP
            Assert.False(MemoryMarshal.TryGetArray(values, out ArraySegment<byte> _), "a batch body must not hand out its pooled array");
#else
            // Off .NET Core Apache.Arrow fills a body through its array (ScopedArrowAllocator.BatchMemory.TryGetArray).
            Assert.True(MemoryMarshal.TryGetArray(values, out ArraySegment<byte> segment), "a live batch body gives Apache.Arrow its array off .NET Core");
            Assert.Same(array, segment.Array);
#endif
            return array!;
        }
    }
}
