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
using System.Threading;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Apache.Arrow;
using Moq;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The real <see cref="CloudFetchReader"/> trims the last batch of a file to the link's row count (a LIMIT) or to the
    /// manifest's total, reading with the scope's allocator: the trimmed batch stays readable after the reader has moved
    /// on, disposed the file, and read the next batch into the memory the untrimmed one gave back. It used to return a
    /// slice of a batch it had disposed.
    /// </summary>
    public class CloudFetchReaderLimitTrimTest
    {
        private const int RowsPerBatch = 10_000;

        [Fact]
        public async Task ReadNextRecordBatchAsync_LinkRowCountBelowTheFilesRows_TrimmedBatchStaysReadableAfterTheNextFile()
        {
            // Arrange: file 0 holds batches 0 and 1 but its link says 15,000 rows; file 1 holds batch 2
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            Queue<IDownloadResult> files = new Queue<IDownloadResult>();
            files.Enqueue(File(scope, chunk: 0, firstBatch: 0, batches: 2, linkRows: 15_000));
            files.Enqueue(File(scope, chunk: 1, firstBatch: 2, batches: 1, linkRows: RowsPerBatch));
            using CloudFetchReader reader = new CloudFetchReader(DbxmemCloudFetch.Statement(), DbxmemArrowData.Schema, null, Manager(files), totalExpectedRows: 0, scope.BatchAllocator);

            // Act
            using (RecordBatch first = (await reader.ReadNextRecordBatchAsync())!)
            {
                AssertValues(first, 0, RowsPerBatch);
            }

            using RecordBatch trimmed = (await reader.ReadNextRecordBatchAsync())!;
            using RecordBatch next = (await reader.ReadNextRecordBatchAsync())!;
            RecordBatch? end = await reader.ReadNextRecordBatchAsync();

            // Assert
            AssertValues(next, 2, RowsPerBatch);
            AssertValues(trimmed, 1, 5_000); // read after the reader disposed file 0 and read file 1
            Assert.Null(end);
            Assert.Equal(0, scope.BufferPool.InUseBytes);
        }

        [Fact]
        public async Task ReadNextRecordBatchAsync_ManifestTotalBelowTheFilesRows_TrimmedBatchStaysReadableAfterTheEnd()
        {
            // Arrange: the REST path's global limit, 12,345 rows of a file of two 10,000-row batches
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            Queue<IDownloadResult> files = new Queue<IDownloadResult>();
            files.Enqueue(File(scope, chunk: 0, firstBatch: 0, batches: 2, linkRows: 2 * RowsPerBatch));
            RecordBatch trimmed;
            using (CloudFetchReader reader = new CloudFetchReader(DbxmemCloudFetch.Statement(), DbxmemArrowData.Schema, null, Manager(files), totalExpectedRows: 12_345, scope.BatchAllocator))
            {
                // Act
                (await reader.ReadNextRecordBatchAsync())!.Dispose();
                trimmed = (await reader.ReadNextRecordBatchAsync())!;
                Assert.Null(await reader.ReadNextRecordBatchAsync());
            }

            // Assert
            AssertValues(trimmed, 1, 2_345);
            trimmed.Dispose();
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
        }

        /// <summary>A downloaded LZ4 file of generated batches, as the downloader queues it (decoded as it is read).</summary>
        private static IDownloadResult File(DatabricksMemoryScope scope, int chunk, int firstBatch, int batches, long linkRows)
        {
            byte[] compressed = Lz4Frame(IpcStream(batches, RowsPerBatch, firstBatch), IndependentBlocks4MiB());
            DownloadResult file = DbxmemCloudFetch.Link(chunk, linkRows, compressed.Length, new Mock<ICloudFetchMemoryBufferManager>().Object);
            file.SetCompleted(scope.Lz4.DecodeAsRead(Download(scope.BufferPool, compressed), $"chunk {chunk}"), compressed.Length);
            return file;
        }

        /// <summary>A download manager that hands out <paramref name="files"/> in order, then the end of results.</summary>
        private static ICloudFetchDownloadManager Manager(Queue<IDownloadResult> files)
        {
            Mock<ICloudFetchDownloadManager> manager = new Mock<ICloudFetchDownloadManager>();
            manager.Setup(m => m.GetNextDownloadedFileAsync(It.IsAny<CancellationToken>()))
                .Returns(() => Task.FromResult<IDownloadResult?>(files.Count > 0 ? files.Dequeue() : null));
            manager.Setup(m => m.GetChunkMetrics()).Returns(new ChunkMetrics());
            return manager.Object;
        }
    }
}
