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
using System.IO;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Apache.Arrow;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemArrowData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The real <see cref="CloudFetchReader"/> trims the last batch of a file to the link's row count (a LIMIT) or to the
    /// manifest's total: the trimmed batch stays readable after the reader has moved on, disposed the file, and read the
    /// next batch. It used to return a slice of a batch it had just disposed, which reads freed memory (with
    /// Apache.Arrow's own allocator, a <see cref="System.NullReferenceException"/> from the freed body).
    /// </summary>
    public class CloudFetchReaderLimitTrimTest
    {
        private const int RowsPerBatch = 10_000;

        [Fact]
        public async Task ReadNextRecordBatchAsync_LinkRowCountBelowTheFilesRows_TrimmedBatchStaysReadableAfterTheNextFile()
        {
            // Arrange: file 0 holds batches 0 and 1 but its link says 15,000 rows; file 1 holds batch 2
            Queue<IDownloadResult> files = new Queue<IDownloadResult>();
            files.Enqueue(File(chunk: 0, firstBatch: 0, batches: 2, linkRows: 15_000));
            files.Enqueue(File(chunk: 1, firstBatch: 2, batches: 1, linkRows: RowsPerBatch));
            using CloudFetchReader reader = new CloudFetchReader(DbxmemCloudFetch.Statement(), DbxmemArrowData.Schema, null, DbxmemCloudFetch.Manager(files), totalExpectedRows: 0);

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
        }

        [Fact]
        public async Task ReadNextRecordBatchAsync_ManifestTotalBelowTheFilesRows_TrimmedBatchStaysReadableAfterTheEnd()
        {
            // Arrange: the REST path's global limit, 12,345 rows of a file of two 10,000-row batches
            Queue<IDownloadResult> files = new Queue<IDownloadResult>();
            files.Enqueue(File(chunk: 0, firstBatch: 0, batches: 2, linkRows: 2 * RowsPerBatch));
            RecordBatch trimmed;
            using (CloudFetchReader reader = new CloudFetchReader(DbxmemCloudFetch.Statement(), DbxmemArrowData.Schema, null, DbxmemCloudFetch.Manager(files), totalExpectedRows: 12_345))
            {
                // Act
                (await reader.ReadNextRecordBatchAsync())!.Dispose();
                trimmed = (await reader.ReadNextRecordBatchAsync())!;
                Assert.Null(await reader.ReadNextRecordBatchAsync());
            }

            // Assert
            using (trimmed)
            {
                AssertValues(trimmed, 1, 2_345); // after the reader and its file were disposed
            }
        }

        /// <summary>A downloaded (uncompressed) file of generated batches, as the downloader queues it.</summary>
        private static IDownloadResult File(int chunk, int firstBatch, int batches, long linkRows)
        {
            byte[] ipc = IpcStream(batches, RowsPerBatch, firstBatch);
            DownloadResult file = DbxmemCloudFetch.Link(chunk, linkRows, ipc.Length, DbxmemCloudFetch.GrantingMemoryManager());
            file.SetCompleted(new MemoryStream(ipc, writable: false), ipc.Length);
            return file;
        }
    }
}
