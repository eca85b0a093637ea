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
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemCloudFetch;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The download loop's set of in-flight downloads holds what is in flight: a file downloaded, read and disposed is no
    /// longer referenced by the loop while the loop goes on (before, each download's continuation removed the download
    /// task from a set keyed by continuation tasks, so nothing was removed and every file of a result stayed reachable).
    /// </summary>
    public class CloudFetchDownloaderFinishedDownloadsTest
    {
        private const int FileBytes = 16 * KiB;

        [Fact]
        public async Task DownloadLoop_FileDownloadedReadAndDisposed_IsNoLongerReferencedWhileTheLoopRuns()
        {
            // Arrange: two files and no end of results yet, so the loop keeps running after both
            ICloudFetchMemoryBufferManager memory = GrantingMemoryManager();
            using BlockingCollection<IDownloadResult> downloadQueue = BoundedQueue(4);
            using BlockingCollection<IDownloadResult> resultQueue = BoundedQueue(4);
            CloudFetchDownloader downloader = Downloader(downloadQueue, resultQueue, memory, InMemoryFileServer.Serving(new byte[FileBytes]), Configuration(lz4: false));
            WeakReference first = AddLink(downloadQueue, 0, memory);
            AddLink(downloadQueue, 1, memory);
            await downloader.StartAsync(CancellationToken.None);

            // Act
            await ReadAndDisposeAsync(downloader);
            await ReadAndDisposeAsync(downloader);
            await UntilAsync(() => downloadQueue.Count == 0, Liveness, "the loop waiting for the next link");
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();

            // Assert
            Assert.False(first.IsAlive, "the loop still references a file that was downloaded, read and disposed");
            downloadQueue.Add(EndOfResultsGuard.Instance);
            await WithinAsync(downloader.StopAsync(), Liveness, "the stop");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static WeakReference AddLink(BlockingCollection<IDownloadResult> downloadQueue, int chunk, ICloudFetchMemoryBufferManager memory)
        {
            DownloadResult file = Link(chunk, 1000, FileBytes, memory);
            downloadQueue.Add(file);
            return new WeakReference(file);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static async Task ReadAndDisposeAsync(CloudFetchDownloader downloader)
        {
            IDownloadResult? file = await WithinAsync(downloader.GetNextDownloadedFileAsync(CancellationToken.None), Liveness, "the next file");
            Assert.NotNull(file);
            await WithinAsync(file!.DownloadCompletedTask, Liveness, "the download");
            file.Dispose();
        }
    }
}
