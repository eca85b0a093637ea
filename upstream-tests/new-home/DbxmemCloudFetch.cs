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
using System.Net;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Apache.Arrow.Adbc.Tracing;
using Moq;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The CloudFetch pieces the wired-in tests build the driver's real downloader and reader from: a statement for
    /// tracing, a configuration, links, queues, and an HTTP handler that serves bodies from memory (nothing leaves the
    /// process). Only upstream's API here, so that a test of one patch compiles on that patch's own branch.
    /// </summary>
    internal static class DbxmemCloudFetch
    {
        /// <summary>A statement that traces nowhere (the downloader and reader need one for their activities).</summary>
        public static ITracingStatement Statement()
        {
            Mock<ITracingStatement> statement = new Mock<ITracingStatement>();
            statement.Setup(s => s.Trace).Returns(new ActivityTrace("AdbcDrivers.Databricks.Tests.Unit.Dbxmem"));
            statement.Setup(s => s.TraceParent).Returns((string?)null);
            statement.Setup(s => s.AssemblyVersion).Returns("1.0.0");
            statement.Setup(s => s.AssemblyName).Returns("AdbcDrivers.Databricks.Tests");
            return statement.Object;
        }

        /// <summary>
        /// One download at a time and a single attempt per file (a failure must not retry for minutes in a test). The
        /// scope-bound tests set its <c>MemoryScope</c> to the scope they watch, as the reader factory does.
        /// </summary>
        public static CloudFetchConfiguration Configuration(bool lz4) => new CloudFetchConfiguration
        {
            Schema = DbxmemArrowData.Schema,
            IsLz4Compressed = lz4,
            ParallelDownloads = 1,
            PrefetchCount = 1,
            MaxRetries = 1,
            RetryTimeoutSeconds = 1,
            RetryDelayMs = 10,
        };

        /// <summary>A memory manager that grants every file at once, as upstream's downloader tests set theirs up.</summary>
        public static ICloudFetchMemoryBufferManager GrantingMemoryManager()
        {
            Mock<ICloudFetchMemoryBufferManager> manager = new Mock<ICloudFetchMemoryBufferManager>();
            manager.Setup(m => m.TryAcquireMemory(It.IsAny<long>())).Returns(true);
            manager.Setup(m => m.AcquireMemoryAsync(It.IsAny<long>(), It.IsAny<CancellationToken>())).Returns(Task.CompletedTask);
            return manager.Object;
        }

        /// <summary>A link to one file, valid for an hour (so no refresh is attempted).</summary>
        public static DownloadResult Link(int chunk, long rows, long bytes, ICloudFetchMemoryBufferManager memoryManager) =>
            new DownloadResult(chunk, $"https://cloudfetch.invalid/chunk{chunk}", chunk * 1_000_000L, rows, bytes, DateTime.UtcNow.AddHours(1), memoryManager);

        /// <summary>A download manager that hands the reader <paramref name="files"/> in order, then the end of results.</summary>
        public static ICloudFetchDownloadManager Manager(Queue<IDownloadResult> files)
        {
            Mock<ICloudFetchDownloadManager> manager = new Mock<ICloudFetchDownloadManager>();
            manager.Setup(m => m.GetNextDownloadedFileAsync(It.IsAny<CancellationToken>()))
                .Returns(() => Task.FromResult<IDownloadResult?>(files.Count > 0 ? files.Dequeue() : null));
            manager.Setup(m => m.GetChunkMetrics()).Returns(new ChunkMetrics());
            return manager.Object;
        }

        public static BlockingCollection<IDownloadResult> BoundedQueue(int capacity) =>
            new BlockingCollection<IDownloadResult>(new ConcurrentQueue<IDownloadResult>(), capacity);

        public static CloudFetchDownloader Downloader(
            BlockingCollection<IDownloadResult> downloadQueue,
            BlockingCollection<IDownloadResult> resultQueue,
            ICloudFetchMemoryBufferManager memoryManager,
            HttpMessageHandler handler,
            CloudFetchConfiguration config) =>
            new CloudFetchDownloader(Statement(), downloadQueue, resultQueue, memoryManager, new HttpClient(handler), new Mock<ICloudFetchResultFetcher>().Object, config);

        /// <summary>A 200 response whose body is <paramref name="body"/>, with its Content-Length, as cloud storage sends.</summary>
        public static HttpResponseMessage Ok(Stream body, long length)
        {
            StreamContent content = new StreamContent(body);
            content.Headers.ContentLength = length;
            return new HttpResponseMessage(HttpStatusCode.OK) { Content = content };
        }
    }

    /// <summary>An HTTP handler that answers every request from memory (nothing leaves the process) and counts them.</summary>
    internal sealed class InMemoryFileServer : HttpMessageHandler
    {
        private readonly Func<HttpRequestMessage, HttpResponseMessage> _respond;
        private int _requests;

        public InMemoryFileServer(Func<HttpRequestMessage, HttpResponseMessage> respond)
        {
            _respond = respond;
        }

        public int Requests => Volatile.Read(ref _requests);

        /// <summary>Serves <paramref name="body"/> to every request.</summary>
        public static InMemoryFileServer Serving(byte[] body) =>
            new InMemoryFileServer(_ => DbxmemCloudFetch.Ok(new MemoryStream(body, writable: false), body.Length));

        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            Interlocked.Increment(ref _requests);
            return Task.FromResult(_respond(request));
        }
    }

    /// <summary>
    /// A started downloader with one file queued whose body stalls (<see cref="StalledBody"/>), the body read under way:
    /// where the tests of a stop during a download start. Disposing it disposes the queues; the file is the test's.
    /// </summary>
    internal sealed class StalledDownload : IDisposable
    {
        private readonly BlockingCollection<IDownloadResult> _resultQueue;

        private StalledDownload(StalledBody body, BlockingCollection<IDownloadResult> downloadQueue, BlockingCollection<IDownloadResult> resultQueue, CloudFetchDownloader downloader, DownloadResult file)
        {
            Body = body;
            DownloadQueue = downloadQueue;
            _resultQueue = resultQueue;
            Downloader = downloader;
            File = file;
        }

        public StalledBody Body { get; }

        public BlockingCollection<IDownloadResult> DownloadQueue { get; }

        public CloudFetchDownloader Downloader { get; }

        public DownloadResult File { get; }

        /// <param name="honoursCancellation">Whether the stalled read ends when cancelled (<see cref="StalledBody.HonoursCancellation"/>).</param>
        /// <param name="fileBytes">The file's declared size.</param>
        /// <param name="config">The downloader's configuration.</param>
        /// <param name="endOfResults">Whether the end of results follows the file in the download queue (the result's last file).</param>
        public static async Task<StalledDownload> StartAsync(bool honoursCancellation, int fileBytes, CloudFetchConfiguration config, bool endOfResults = false)
        {
            StalledBody body = new StalledBody(honoursCancellation);
            ICloudFetchMemoryBufferManager memory = DbxmemCloudFetch.GrantingMemoryManager();
            BlockingCollection<IDownloadResult> downloadQueue = DbxmemCloudFetch.BoundedQueue(4);
            BlockingCollection<IDownloadResult> resultQueue = DbxmemCloudFetch.BoundedQueue(4);
            CloudFetchDownloader downloader = DbxmemCloudFetch.Downloader(downloadQueue, resultQueue, memory, new InMemoryFileServer(_ => DbxmemCloudFetch.Ok(body, fileBytes)), config);
            DownloadResult file = DbxmemCloudFetch.Link(0, 1000, fileBytes, memory);
            downloadQueue.Add(file);
            if (endOfResults)
            {
                downloadQueue.Add(EndOfResultsGuard.Instance);
            }

            await downloader.StartAsync(CancellationToken.None).ConfigureAwait(false);
            await DbxmemTestData.WithinAsync(body.ReadStarted, DbxmemTestData.Liveness, "the body read").ConfigureAwait(false);
            return new StalledDownload(body, downloadQueue, resultQueue, downloader, file);
        }

        public void Dispose()
        {
            DownloadQueue.Dispose();
            _resultQueue.Dispose();
        }
    }

    /// <summary>
    /// A response body whose first read stalls: until cancelled (<see cref="HonoursCancellation"/>, as .NET's socket
    /// streams do), or, ignoring cancellation (as .NET Framework's do), until <see cref="EndStall"/> or 30 s, after which
    /// it fails as a reset connection would. Reports when the read started and when it ended.
    /// </summary>
    internal sealed class StalledBody : ResponseBodyStream
    {
        private readonly TaskCompletionSource<bool> _started = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource<bool> _ended = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource<bool> _endStall = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        public StalledBody(bool honoursCancellation)
        {
            HonoursCancellation = honoursCancellation;
        }

        public bool HonoursCancellation { get; }

        /// <summary>Completes when the downloader is reading the body (its buffer is rented by then).</summary>
        public Task ReadStarted => _started.Task;

        /// <summary>Completes when the read has ended, however.</summary>
        public Task ReadEnded => _ended.Task;

        /// <summary>Ends a stall that ignores cancellation (what the end of a network stall would do).</summary>
        public void EndStall() => _endStall.TrySetResult(true);

        public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
        {
            _started.TrySetResult(true);
            try
            {
                if (HonoursCancellation)
                {
                    try
                    {
                        await Task.Delay(Timeout.Infinite, cancellationToken).ConfigureAwait(false);
                    }
                    catch (OperationCanceledException)
                    {
                        // A socket read ends a little after its cancellation: 100 ms, well inside the downloader's 1 s
                        // drain bound, and long enough that a stop which did not wait for it would return first.
                        await Task.Delay(100).ConfigureAwait(false);
                        throw;
                    }
                }

                using (CancellationTokenSource safety = new CancellationTokenSource())
                {
                    await Task.WhenAny(_endStall.Task, Task.Delay(TimeSpan.FromSeconds(30), safety.Token)).ConfigureAwait(false);
                    safety.Cancel();
                }

                throw new IOException("The connection was reset after a stall.");
            }
            finally
            {
                _ended.TrySetResult(true);
            }
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException("the downloader reads bodies asynchronously");
    }
}
