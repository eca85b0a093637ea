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
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Apache.Arrow;
using Apache.Arrow.Ipc;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemCloudFetch;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The real <see cref="CloudFetchDownloader"/> with an LZ4 result: a downloaded file waits in the result queue
    /// compressed, in a buffer of the connection's scope, and is decoded only as the reader reads it.
    /// </summary>
    public class CloudFetchDownloaderDecodeAsReadTest
    {
        private const int BatchCount = 4;
        private const int RowsPerBatch = 30_000;

        [Fact]
        public async Task GetNextDownloadedFileAsync_Lz4File_WaitsCompressedAndDecodesToTheOriginalRowsWhenRead()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] ipc = DbxmemArrowData.IpcStream(BatchCount, RowsPerBatch);
            byte[] file = Lz4Frame(ipc, IndependentBlocks4MiB());
            ICloudFetchMemoryBufferManager memory = GrantingMemoryManager();
            using BlockingCollection<IDownloadResult> downloadQueue = BoundedQueue(4);
            using BlockingCollection<IDownloadResult> resultQueue = BoundedQueue(4);
            InMemoryFileServer server = InMemoryFileServer.Serving(file);
            CloudFetchDownloader downloader = Downloader(downloadQueue, resultQueue, memory, server, ScopedConfiguration(scope));
            downloadQueue.Add(Link(0, BatchCount * RowsPerBatch, file.Length, memory));
            downloadQueue.Add(EndOfResultsGuard.Instance);

            // Act
            await downloader.StartAsync(CancellationToken.None);
            IDownloadResult? result = await WithinAsync(downloader.GetNextDownloadedFileAsync(CancellationToken.None), Liveness, "the first file");
            Assert.NotNull(result);
            await WithinAsync(result!.DownloadCompletedTask, Liveness, "the download");

            // Assert: queued, the file is the overlay's decoding stream over the compressed download, nothing decoded yet
            Lz4DecodingStream waiting = Assert.IsType<Lz4DecodingStream>(result.DataStream);
            Assert.Equal(0, waiting.Decoder.DecodedBytes);
            Assert.False(waiting.Decoder.InputReleased, "the compressed file must stay with the stream until it is decoded");
            Assert.Equal(scope.BufferPool.ArrayLengthFor(file.Length), scope.BufferPool.InUseBytes);
            Assert.True(file.Length < ipc.Length, "the test file must compress, or waiting compressed would prove nothing");

            List<RecordBatch> batches = new List<RecordBatch>();
            using (ArrowStreamReader reader = new ArrowStreamReader(result.DataStream, scope.BatchAllocator))
            {
                RecordBatch? batch;
                while ((batch = await reader.ReadNextRecordBatchAsync()) != null)
                {
                    batches.Add(batch);
                }
            }

            Assert.Equal(ipc.Length, waiting.Decoder.DecodedBytes);
            Assert.Equal(BatchCount, batches.Count);
            for (int i = 0; i < batches.Count; i++)
            {
                DbxmemArrowData.AssertValues(batches[i], i, RowsPerBatch);
                batches[i].Dispose();
            }

            result.Dispose();
            Assert.Null(await WithinAsync(downloader.GetNextDownloadedFileAsync(CancellationToken.None), Liveness, "the end of results"));
            await WithinAsync(downloader.StopAsync(), Liveness, "the stop");
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Equal(0, scope.ArrowBatchPool.InUseBytes);
            Assert.Equal(1, server.Requests);
        }

        [Fact]
        public async Task GetNextDownloadedFileAsync_CorruptLz4File_FailsTheReadNamingTheChunk()
        {
            // Arrange: a file whose first block is cut short: it downloads fine and fails when read
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] file = Lz4Frame(DbxmemArrowData.IpcStream(1, 1000), IndependentBlocks4MiB());
            byte[] truncated = file.AsSpan(0, file.Length / 2).ToArray();
            ICloudFetchMemoryBufferManager memory = GrantingMemoryManager();
            using BlockingCollection<IDownloadResult> downloadQueue = BoundedQueue(4);
            using BlockingCollection<IDownloadResult> resultQueue = BoundedQueue(4);
            CloudFetchDownloader downloader = Downloader(downloadQueue, resultQueue, memory, InMemoryFileServer.Serving(truncated), ScopedConfiguration(scope));
            downloadQueue.Add(Link(3, 1000, truncated.Length, memory));
            downloadQueue.Add(EndOfResultsGuard.Instance);
            await downloader.StartAsync(CancellationToken.None);
            IDownloadResult? result = await WithinAsync(downloader.GetNextDownloadedFileAsync(CancellationToken.None), Liveness, "the file");
            await WithinAsync(result!.DownloadCompletedTask, Liveness, "the download");

            // Act
            Lz4FormatException error;
            using (ArrowStreamReader reader = new ArrowStreamReader(result.DataStream, scope.BatchAllocator))
            {
                error = Assert.Throws<Lz4FormatException>(() => reader.ReadNextRecordBatch());
            }

            // Assert
            Assert.Equal("chunk 3", error.InputName);
            Assert.Equal(0, scope.BufferPool.InUseBytes); // the failure gave the compressed file back
            result.Dispose();
            await WithinAsync(downloader.StopAsync(), Liveness, "the stop");
        }

        /// <summary>What the reader factory builds for a connection: the configuration bound to the connection's scope.</summary>
        private static CloudFetchConfiguration ScopedConfiguration(DatabricksMemoryScope scope)
        {
            CloudFetchConfiguration config = Configuration(lz4: true);
            config.MemoryScope = scope;
            return config;
        }
    }
}
