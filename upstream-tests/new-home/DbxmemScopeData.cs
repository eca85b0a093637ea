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
using System.Runtime.InteropServices;
using Apache.Arrow;
using Xunit;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>Scopes, downloads in pooled buffers and batch bodies: what the memory-scope tests share.</summary>
    internal static class DbxmemScopeData
    {
        /// <summary>Creates a scope from name/value pairs, as the driver does from connection properties.</summary>
        public static DatabricksMemoryLease CreateScope(params (string Key, string Value)[] properties)
        {
            Dictionary<string, string> dictionary = new Dictionary<string, string>();
            foreach ((string key, string value) in properties)
            {
                dictionary[key] = value;
            }

            return DatabricksMemoryScope.Create(dictionary);
        }

        /// <summary>The bytes as a download leaves them: in an array rented from <paramref name="pool"/>.</summary>
        public static PooledBuffer Download(Lz4BufferPool pool, byte[] compressed)
        {
            PooledArray rental = pool.Rent(Math.Max(compressed.Length, 1));
            Buffer.BlockCopy(compressed, 0, rental.Array, 0, compressed.Length);
            return new PooledBuffer(rental, compressed.Length);
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
