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
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Xunit;
using Xunit.Abstractions;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemCloudFetch;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The real <see cref="CloudFetchDownloader"/> waits on its queues without holding thread-pool threads: its
    /// download loop waiting for a link or for room in the result queue, and a reader waiting in
    /// <see cref="CloudFetchDownloader.GetNextDownloadedFileAsync"/> (what the reader's download manager calls). Upstream
    /// parked one thread in each blocking <c>Take</c>/<c>Add</c>; on a small host a fresh process then stalls until the
    /// pool adds threads.
    /// </summary>
    /// <remarks>
    /// What is measured is the work the thread pool is doing or owes (threads busy with a work item plus queued work
    /// items), as the least seen over a one-second window, so that transient work (a timer, the test runner) does not
    /// count and a thread parked in a wait does. The window is an observation period, not a speed bound.
    /// </remarks>
    public class CloudFetchDownloaderQueueWaitTest
    {
        private const int Pipelines = 16;

        private readonly ITestOutputHelper _output;

        public CloudFetchDownloaderQueueWaitTest(ITestOutputHelper output)
        {
            _output = output;
        }

        [Fact]
        public async Task GetNextDownloadedFileAsync_EmptyQueues_WaitsWithoutHoldingThreadsAndEndsWhenTheEndArrives()
        {
            // Arrange
            int before = await SettledThreadPoolLoadAsync();
            List<Pipeline> pipelines = Enumerable.Range(0, Pipelines).Select(_ => new Pipeline(resultCapacity: 4, InMemoryFileServer.Serving(Array.Empty<byte>()))).ToList();
            try
            {
                foreach (Pipeline pipeline in pipelines)
                {
                    await pipeline.Downloader.StartAsync(CancellationToken.None);
                }

                // Act: each reader waits for a file while each download loop waits for a link
                List<Task<IDownloadResult?>> reads = pipelines.Select(p => p.Downloader.GetNextDownloadedFileAsync(CancellationToken.None)).ToList();
                int waiting = await SettledThreadPoolLoadAsync();
                _output.WriteLine($"thread-pool load: {before} before, {waiting} with {Pipelines} readers and download loops waiting");

                // Assert
                Assert.True(waiting - before < Pipelines / 2, $"{Pipelines} waiting pipelines hold {waiting - before} thread-pool threads or work items");
                Assert.All(reads, read => Assert.False(read.IsCompleted));
                foreach (Pipeline pipeline in pipelines)
                {
                    pipeline.DownloadQueue.Add(EndOfResultsGuard.Instance);
                }

                Assert.All(await WithinAsync(Task.WhenAll(reads), Liveness, "the reads"), Assert.Null);
            }
            finally
            {
                await Task.WhenAll(pipelines.Select(p => p.DisposeAsync()));
            }
        }

        [Fact]
        public async Task DownloadLoop_FullResultQueue_WaitsForRoomWithoutHoldingThreadsAndGoesOnWhenARead()
        {
            // Arrange: every reader has one file it has not read; the next one is downloaded and waits for room
            byte[] body = DbxmemArrowData.IpcStream(1, 10);
            int before = await SettledThreadPoolLoadAsync();
            List<Pipeline> pipelines = Enumerable.Range(0, Pipelines).Select(_ => new Pipeline(resultCapacity: 1, InMemoryFileServer.Serving(body))).ToList();
            try
            {
                List<DownloadResult> unread = new List<DownloadResult>();
                List<DownloadResult> next = new List<DownloadResult>();
                foreach (Pipeline pipeline in pipelines)
                {
                    unread.Add(pipeline.Enqueue(chunk: 0, bytes: 1, intoResults: true));
                    next.Add(pipeline.Enqueue(chunk: 1, bytes: body.Length, intoResults: false));
                    await pipeline.Downloader.StartAsync(CancellationToken.None);
                }

                // Act
                await WithinAsync(Task.WhenAll(next.Select(file => file.DownloadCompletedTask)), Liveness, "the downloads");
                int waiting = await SettledThreadPoolLoadAsync();
                _output.WriteLine($"thread-pool load: {before} before, {waiting} with {Pipelines} download loops waiting for room");

                // Assert
                Assert.True(waiting - before < Pipelines / 2, $"{Pipelines} download loops waiting for room hold {waiting - before} thread-pool threads or work items");
                for (int i = 0; i < pipelines.Count; i++)
                {
                    Assert.Same(unread[i], await WithinAsync(pipelines[i].Downloader.GetNextDownloadedFileAsync(CancellationToken.None), Liveness, "the unread file"));
                    IDownloadResult? downloaded = await WithinAsync(pipelines[i].Downloader.GetNextDownloadedFileAsync(CancellationToken.None), Liveness, "the file that waited for room");
                    Assert.Same(next[i], downloaded);
                    Assert.Equal(body, ReadAll(downloaded!.DataStream, 4096));
                    unread[i].Dispose();
                    downloaded.Dispose();
                }
            }
            finally
            {
                await Task.WhenAll(pipelines.Select(p => p.DisposeAsync()));
            }
        }

        /// <summary>Threads busy with a work item plus queued work items, the least seen in 20 looks over one second.</summary>
        private static async Task<int> SettledThreadPoolLoadAsync()
        {
            int least = int.MaxValue;
            for (int look = 0; look < 20; look++)
            {
                ThreadPool.GetMaxThreads(out int maxWorkers, out _);
                ThreadPool.GetAvailableThreads(out int availableWorkers, out _);
                int busy = maxWorkers - availableWorkers;
#if NETCOREAPP3_0_OR_GREATER
                busy += (int)ThreadPool.PendingWorkItemCount; // .NET Framework cannot tell; its threads parked in a wait still count
#endif
                least = Math.Min(least, busy);
                await Task.Delay(50).ConfigureAwait(false);
            }

            return least;
        }

        /// <summary>One reader's downloader with its queues (plain, uncompressed files).</summary>
        private sealed class Pipeline
        {
            private readonly ICloudFetchMemoryBufferManager _memory = GrantingMemoryManager();
            private readonly BlockingCollection<IDownloadResult> _resultQueue;

            public Pipeline(int resultCapacity, InMemoryFileServer server)
            {
                DownloadQueue = BoundedQueue(4);
                _resultQueue = BoundedQueue(resultCapacity);
                Downloader = DbxmemCloudFetch.Downloader(DownloadQueue, _resultQueue, _memory, server, Configuration(lz4: false));
            }

            public BlockingCollection<IDownloadResult> DownloadQueue { get; }

            public CloudFetchDownloader Downloader { get; }

            public DownloadResult Enqueue(int chunk, int bytes, bool intoResults)
            {
                DownloadResult file = Link(chunk, 10, bytes, _memory);
                (intoResults ? _resultQueue : DownloadQueue).Add(file);
                return file;
            }

            public async Task DisposeAsync()
            {
                await Downloader.StopAsync().ConfigureAwait(false);
                DownloadQueue.Dispose();
                _resultQueue.Dispose();
            }
        }
    }
}
