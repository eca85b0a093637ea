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
using System.Threading.Tasks;
using AdbcDrivers.Databricks.Reader.CloudFetch;
using Xunit;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemCloudFetch;
using static AdbcDrivers.Databricks.Tests.Unit.Dbxmem.DbxmemTestData;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// <see cref="CloudFetchDownloader.StopAsync"/> at the end of a result: the loop has taken every link and waits for
    /// the last downloads. A download whose body read ignores cancellation (.NET Framework's HTTP streams) must not hold
    /// the stop, and with it the reader's Dispose, for as long as it stalls: that wait observes the stop too.
    /// </summary>
    public class CloudFetchDownloaderEndOfResultsStopTest
    {
        private const int FileBytes = 64 * KiB;

        /// <summary>Generous for a stop, far below the 30 s stall: a liveness bound, not a speed one.</summary>
        private static readonly TimeSpan StopBound = TimeSpan.FromSeconds(10);

        [Fact]
        public async Task StopAsync_WhileTheLoopWaitsForTheLastDownloadWhichIgnoresCancellation_ReturnsBeforeTheStallEnds()
        {
            // Arrange: one file, then the end of results; the file's body stalls and ignores cancellation
            using StalledDownload download = await StalledDownload.StartAsync(honoursCancellation: false, FileBytes, Configuration(lz4: false), endOfResults: true);
            await UntilAsync(() => download.DownloadQueue.Count == 0, Liveness, "the loop taking the end of results");

            // Act
            Task stop = download.Downloader.StopAsync();
            bool stoppedBeforeTheStallEnded = await Task.WhenAny(stop, Task.Delay(StopBound)) == stop;

            // Assert
            download.Body.EndStall(); // the network stall ends (otherwise after 30 s)
            Assert.True(stoppedBeforeTheStallEnded, "the stop waited at the end of results for a download that ignores cancellation");
            await WithinAsync(stop, Liveness, "the stop");
            await WithinAsync(download.Body.ReadEnded, Liveness, "the stalled read");
            download.File.Dispose();
        }
    }
}
