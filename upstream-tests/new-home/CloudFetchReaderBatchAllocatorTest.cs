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

using System.Collections.Generic;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Apache.Arrow;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The real <see cref="CloudFetchReader"/> reads record batches with the scope's allocator (what the reader factory
    /// passes it): each batch body is an array of the scope's batch pool, back in the pool when the application disposes
    /// the batch; a LIMIT-trimmed batch gets buffers of its own from the same pool and outlives the file it came from.
    /// </summary>
    public class CloudFetchReaderBatchAllocatorTest
    {
        private const int RowsPerBatch = 10_000;

        [Fact]
        public async Task ReadNextRecordBatchAsync_ScopesAllocator_BatchBodiesComeFromTheScopeAndGoBackOnDispose()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            Queue<IDownloadResult> files = new Queue<IDownloadResult>();
            files.Enqueue(File(scope, chunk: 0, firstBatch: 0, batches: 2, linkRows: 2 * RowsPerBatch));
            using CloudFetchReader reader = new CloudFetchReader(DbxmemCloudFetch.Statement(), DbxmemArrowData.Schema, null, DbxmemCloudFetch.Manager(files), totalExpectedRows: 0, scope.BatchAllocator);

            // Act
            RecordBatch first = (await reader.ReadNextRecordBatchAsync())!;
            byte[] body = BodyArrayOf(first); // a pooled managed array, not native memory
            long heldByTheFirst = scope.ArrowBatchPool.InUseBytes;
            first.Dispose();
            using RecordBatch second = (await reader.ReadNextRecordBatchAsync())!;

            // Assert
            Assert.Equal(body.Length, heldByTheFirst);
            Assert.Same(body, BodyArrayOf(second)); // the first batch's array, given back, serves the second
            AssertValues(second, 1, RowsPerBatch);
            Assert.Null(await reader.ReadNextRecordBatchAsync());
            Assert.Equal(0, scope.BufferPool.InUseBytes); // the file, decoded as read, went back with the reader's move on
        }

        [Fact]
        public async Task ReadNextRecordBatchAsync_TrimmedWithTheScopesAllocator_StaysReadableAfterTheNextFileReusedTheBody()
        {
            // Arrange: file 0 holds batches 0 and 1 but its link says 15,000 rows; file 1 holds batch 2
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            Queue<IDownloadResult> files = new Queue<IDownloadResult>();
            files.Enqueue(File(scope, chunk: 0, firstBatch: 0, batches: 2, linkRows: 15_000));
            files.Enqueue(File(scope, chunk: 1, firstBatch: 2, batches: 1, linkRows: RowsPerBatch));
            using CloudFetchReader reader = new CloudFetchReader(DbxmemCloudFetch.Statement(), DbxmemArrowData.Schema, null, DbxmemCloudFetch.Manager(files), totalExpectedRows: 0, scope.BatchAllocator);

            // Act
            (await reader.ReadNextRecordBatchAsync())!.Dispose();
            using RecordBatch trimmed = (await reader.ReadNextRecordBatchAsync())!;
            using RecordBatch next = (await reader.ReadNextRecordBatchAsync())!;

            // Assert
            AssertValues(next, 2, RowsPerBatch);
            AssertValues(trimmed, 1, 5_000);
            BodyArrayOf(trimmed); // its own pooled body
            Assert.Null(await reader.ReadNextRecordBatchAsync());
        }

        /// <summary>A downloaded LZ4 file of generated batches, as the downloader queues it (decoded as it is read).</summary>
        private static IDownloadResult File(DatabricksMemoryScope scope, int chunk, int firstBatch, int batches, long linkRows)
        {
            byte[] compressed = Lz4Frame(IpcStream(batches, RowsPerBatch, firstBatch), IndependentBlocks4MiB());
            DownloadResult file = DbxmemCloudFetch.Link(chunk, linkRows, compressed.Length, DbxmemCloudFetch.GrantingMemoryManager());
            file.SetCompleted(scope.Lz4.DecodeAsRead(Download(scope.BufferPool, compressed), $"chunk {chunk}"), compressed.Length);
            return file;
        }
    }
}
