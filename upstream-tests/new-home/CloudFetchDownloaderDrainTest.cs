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
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemCloudFetch;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemScopeData;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// <see cref="CloudFetchDownloader.StopAsync"/>, which a reader's Dispose waits for, with downloads under way: it
    /// waits for a download that ends when cancelled (its buffer back before it returns), waits at most the drain bound
    /// for one that ignores cancellation (that buffer comes back when the download ends), and disposes the file whose
    /// add to a full result queue it cancelled.
    /// </summary>
    public class CloudFetchDownloaderDrainTest
    {
        private const int FileBytes = 3 * MiB;

        /// <summary>
        /// Generous for a stop bounded by the 1 s drain, far below the 30 s stall: a liveness bound, not a speed one.
        /// </summary>
        private static readonly TimeSpan StopBound = TimeSpan.FromSeconds(5);

        [Fact]
        public async Task StopAsync_DownloadHonouringCancellation_ReturnsWithTheDownloadEndedAndItsBufferBack()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            using StalledDownload download = await StalledDownload.StartAsync(honoursCancellation: true, FileBytes, ScopedConfiguration(scope));
            Assert.Equal(scope.BufferPool.ArrayLengthFor(FileBytes), scope.BufferPool.InUseBytes);

            // Act
            await WithinAsync(download.Downloader.StopAsync(), StopBound, "the stop");

            // Assert
            Assert.True(download.Body.ReadEnded.IsCompleted, "the stop returned while the download was still running");
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            download.File.Dispose();
        }

        [Fact]
        public async Task StopAsync_DownloadIgnoringCancellation_ReturnsAtTheDrainBoundAndTheBufferComesBackWhenTheStallEnds()
        {
            // Arrange
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            using StalledDownload download = await StalledDownload.StartAsync(honoursCancellation: false, FileBytes, ScopedConfiguration(scope));

            // Act
            Task stop = download.Downloader.StopAsync();
            bool stoppedWithinTheBound = await Task.WhenAny(stop, Task.Delay(StopBound)) == stop;

            // Assert
            long heldDuringTheStall = scope.BufferPool.InUseBytes;
            download.Body.EndStall(); // the network stall ends (otherwise after 30 s)
            Assert.True(stoppedWithinTheBound, "the stop waited for a download that ignores cancellation");
            Assert.Equal(scope.BufferPool.ArrayLengthFor(FileBytes), heldDuringTheStall); // the stalled download keeps its buffer ...
            await UntilAsync(() => scope.BufferPool.InUseBytes == 0, Liveness, "the buffer given back after the stall"); // ... until it ends
            await WithinAsync(stop, Liveness, "the stop");
            download.File.Dispose();
        }

        [Fact]
        public async Task StopAsync_FileWaitingToEnterAFullResultQueue_DisposesItAndGivesItsBufferBack()
        {
            // Arrange: the reader stopped reading with its result queue full; the next file has been downloaded
            using DatabricksMemoryLease lease = CreateScope();
            DatabricksMemoryScope scope = lease.Scope;
            byte[] content = Lz4Frame(Compressible(FileBytes, seed: 21), IndependentBlocks4MiB());
            ICloudFetchMemoryBufferManager memory = GrantingMemoryManager();
            using BlockingCollection<IDownloadResult> downloadQueue = BoundedQueue(4);
            using BlockingCollection<IDownloadResult> resultQueue = BoundedQueue(1);
            DownloadResult unread = Link(0, 1000, 1, memory);
            resultQueue.Add(unread);
            CloudFetchDownloader downloader = Downloader(downloadQueue, resultQueue, memory, InMemoryFileServer.Serving(content), ScopedConfiguration(scope));
            DownloadResult file = Link(1, 1000, content.Length, memory);
            downloadQueue.Add(file);
            await downloader.StartAsync(CancellationToken.None);
            await WithinAsync(file.DownloadCompletedTask, Liveness, "the download");
            Assert.Equal(scope.BufferPool.ArrayLengthFor(content.Length), scope.BufferPool.InUseBytes);
            Assert.Single(resultQueue); // the downloaded file waits for room behind the unread one

            // Act
            await WithinAsync(downloader.StopAsync(), StopBound, "the stop");

            // Assert
            Assert.Equal(0, scope.BufferPool.InUseBytes);
            Assert.Throws<ObjectDisposedException>(() => file.DataStream);
            unread.Dispose();
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
