using System.Linq;
using System.Net;
using System.Net.Http;
using System.Reflection;
using System.Runtime.Versioning;
using DriverOverlay.Tests.Memory;
using Lz4Reference;
using static DriverOverlay.Tests.Memory.MemoryTestData;

namespace DriverOverlay.Tests
{
    /// <summary>
    /// The overlay's code written for .NET Framework (where Power BI Desktop runs the driver), run where it compiles in:
    /// the net472 build of these tests, which scripts/test runs under Mono 6.8 (the .NET Framework stand-in here). On .NET
    /// each test checks the .NET side of the same behaviour, or skips with the reason where only the .NET Framework side
    /// has anything to show.
    /// </summary>
    public class NetFrameworkPathTests
    {
        [SkippableFact]
        public void WithoutGcMemoryInfoTheBudgetIsTheDocumented48MiB()
        {
            Skip.IfNot(TargetRuntime.IsNetFramework, "on .NET the default follows GC.GetGCMemoryInfo (the series' DatabricksMemoryOptionsTest)");
            Assert.Null(typeof(GC).GetMethod("GetGCMemoryInfo", Type.EmptyTypes)); // the runtime really lacks it

            DatabricksMemoryOptions options = DatabricksMemoryOptions.FromProperties(null);
            using DatabricksMemoryLease lease = CreateScope();

            Assert.Equal(48L * MiB, DatabricksMemoryOptions.DefaultBudgetBytes());
            Assert.Equal(48L * MiB, options.BudgetBytes);
            Assert.Equal(96L * MiB, options.BufferPoolMaxRetainedBytes);
            Assert.Equal(48L * MiB, lease.Scope.Budget.Limit);
        }

        [Fact]
        public async Task EndingARegistrationWaitsForItsRunningCallbackOnlyWhereThereIsNoUnregister()
        {
            // .NET Framework has only CancellationTokenRegistration.Dispose, which waits for a run of the callback under
            // way on another thread; .NET Core's Unregister does not wait. The overlay never ends a registration under a
            // lock its callback takes (issue 32), so the wait, where there is one, is for a callback that can finish.
            using var source = new CancellationTokenSource();
            using var callbackMayReturn = new ManualResetEventSlim();
            using var callbackRunning = new ManualResetEventSlim();
            CancellationTokenRegistration registration = source.Token.Register(() =>
            {
                callbackRunning.Set();
                callbackMayReturn.Wait(Liveness);
            });
            Task cancelling = Task.Run(() => source.Cancel());
            Assert.True(callbackRunning.Wait(Liveness), "the callback did not start");

            Task ending = Task.Run(() => registration.DisposeWithoutWaiting());
            if (TargetRuntime.IsNetFramework)
            {
                Assert.NotSame(ending, await Task.WhenAny(ending, Task.Delay(500))); // Dispose waits for the running callback
            }
            else
            {
                await ending.WaitAsync(Liveness); // Unregister returns with the callback still running
                Assert.False(callbackMayReturn.IsSet);
            }

            callbackMayReturn.Set();
            await ending.WaitAsync(Liveness);
            await cancelling.WaitAsync(Liveness);
        }

        [Fact]
        public async Task AGrantThatEndsAWaitWhileItsTokenIsBeingCancelledDoesNotWaitForTheCancellation()
        {
            // The budget's registration path without Unregister: a release grants a wait and ends its registration while
            // another thread is cancelling the wait's token (still running a callback registered after the wait's, which
            // runs first). Dispose may only wait for the wait's own callback, which has not started: the release must
            // return with the cancellation still under way, and the wait end granted, once.
            var budget = new MemoryBudget(10);
            MemoryBudgetAccount holder = budget.OpenAccount(10);
            MemoryBudgetAccount waiting = budget.OpenAccount(10);
            Assert.True(holder.TryAcquire(10));
            using var source = new CancellationTokenSource();
            Task wait = waiting.AcquireAsync(5, source.Token);
            using var laterCallbackMayReturn = new ManualResetEventSlim();
            using var laterCallbackRunning = new ManualResetEventSlim();
            using CancellationTokenRegistration later = source.Token.Register(() =>
            {
                laterCallbackRunning.Set();
                laterCallbackMayReturn.Wait(Liveness);
            });
            Task cancelling = Task.Run(() => source.Cancel());
            Assert.True(laterCallbackRunning.Wait(Liveness), "the cancellation did not start");

            await Task.Run(() => holder.Release(10)).WaitAsync(Liveness); // a TimeoutException: it waited for the cancellation
            Assert.False(laterCallbackMayReturn.IsSet);
            await wait.WaitAsync(Liveness); // granted, not cancelled: its registration was ended before its callback ran
            laterCallbackMayReturn.Set();
            await cancelling.WaitAsync(Liveness);

            Assert.Equal(5, waiting.Held);
            Assert.Equal(5, budget.InUse);
            Assert.Equal(0, budget.Waiters);
            waiting.Dispose();
            holder.Dispose();
            Assert.Equal(0, budget.InUse);
        }

        [Theory]
        [InlineData(false)]
        [InlineData(true)]
        public async Task TheDrainGivesUpAtItsBoundOnABodyReadThatIgnoresCancellationAndTheBufferComesBackWhenTheReadEnds(bool endsWithError)
        {
            // .NET Framework's response streams ignore the token of a read in progress (DownloadDrain's remarks): the
            // download loop's drain must stop waiting at its bound, and the download, when its read finally ends, must give
            // its pooled buffer back whether it then completes or fails.
            using DatabricksMemoryLease lease = CreateScope();
            byte[] body = Compressible(3 * MiB, seed: 33);
            var content = new CancellationIgnoringContent(body, stallAfter: MiB);
            using var cancel = new CancellationTokenSource();
            Task<PooledBuffer> download = lease.Scope.Lz4.ReadContentAsync(content, cancel.Token);
            await content.Stalled.WaitAsync(Liveness);
            cancel.Cancel();

            bool drained = await DownloadDrain.WaitAsync(new Task[] { download }, TimeSpan.FromMilliseconds(200)).WaitAsync(Liveness);

            Assert.False(drained);
            Assert.False(download.IsCompleted, "the body read observed the cancellation: this test no longer plays .NET Framework's stream");
            Assert.NotEqual(0, lease.Scope.BufferPool.InUseBytes);
            content.EndStall(endsWithError);
            if (endsWithError)
            {
                await Assert.ThrowsAsync<IOException>(() => download.WaitAsync(Liveness));
            }
            else
            {
                using PooledBuffer buffer = await download.WaitAsync(Liveness); // its owner disposes it (the result queue's shutdown)
                Assert.True(buffer.Span.SequenceEqual(body));
            }

            Assert.Equal(0, lease.Scope.BufferPool.InUseBytes);
        }

        [SkippableFact]
        public void TheOverlaysDecodeAllocatesNothingPerFileWhereK4osStreamAllocatesItsBlockBuffers()
        {
            // Databricks sends LZ4 frames of 4 MiB blocks. K4os' stream decoder rents its block buffer from
            // ArrayPool<byte>.Shared, which off .NET Core keeps no array above 1 MiB (arrow-adbc #3682): a fresh 4 MiB
            // array per file there. The overlay decodes from its scope's pool: after the first file, nothing per file.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            (byte[] data, byte[] compressed) = Sample(9 * MiB, FrameOptions.Databricks, seed: 34);
            using DatabricksMemoryLease lease = CreateScope();
            byte[] decoded = new byte[data.Length];
            long overlay = 0, k4os = 0;
            for (int file = 0; file < 2; file++) // the first file of each fills its pools; the second is measured
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                using (Stream stream = lease.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(lease.Scope.BufferPool, compressed)))
                {
                    stream.ReadExactly(decoded);
                }

                overlay = GC.GetAllocatedBytesForCurrentThread() - before;
                Assert.True(data.AsSpan().SequenceEqual(decoded), "the overlay decoded different bytes");
                before = GC.GetAllocatedBytesForCurrentThread();
                using (Stream stream = K4os.Compression.LZ4.Streams.LZ4Stream.Decode(new MemoryStream(compressed, writable: false)))
                {
                    stream.ReadExactly(decoded);
                }

                k4os = GC.GetAllocatedBytesForCurrentThread() - before;
                Assert.True(data.AsSpan().SequenceEqual(decoded), "K4os decoded different bytes");
            }

            Assert.InRange(overlay, 0, 64 * KiB);
            string k4osBuild = typeof(K4os.Compression.LZ4.Streams.LZ4Stream).Assembly.GetCustomAttribute<TargetFrameworkAttribute>()!.FrameworkName;
            if (TargetRuntime.IsNetFramework)
            {
                Assert.StartsWith(".NETFramework", k4osBuild, StringComparison.Ordinal); // the build a .NET Framework host loads
                Assert.True(k4os >= 4 * MiB, $"K4os ({k4osBuild}) allocated {k4os:N0} bytes for its second file: it now pools its block buffers here");
            }
        }

        [Fact]
        public void ReadingRecordBatchesFillsThePooledBodiesWithoutATemporaryArrayPerBody()
        {
            // Off .NET Core, Apache.Arrow reads a body into memory it has no array of through a temporary array of the
            // body's size from ArrayPool<byte>.Shared, which keeps none above 1 MiB there: one fresh large object per
            // batch, the same size as the body (ScopedArrowAllocator.BatchMemory.TryGetArray). On .NET it reads through
            // Stream.Read(Span). Either way, once the pool holds a body, reading the next batches allocates far less than one body.
            byte[] stream = DbxmemArrowData.IpcStream(batches: 4, rows: 150_000);
            using DatabricksMemoryLease lease = CreateScope();
            using var reader = new ArrowStreamReader(new MemoryStream(stream, writable: false), lease.Scope.BatchAllocator);
            int bodyBytes;
            using (Apache.Arrow.RecordBatch first = reader.ReadNextRecordBatch())
            {
                DbxmemArrowData.AssertValues(first, 0, 150_000);
                bodyBytes = first.Arrays.Sum(array => array.Data.Buffers.Sum(buffer => buffer.Length));
            }

            Assert.True(bodyBytes > 2 * MiB, $"a body of {bodyBytes:N0} bytes is pooled by ArrayPool<byte>.Shared everywhere: the test needs a larger one");
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int batch = 1; batch < 4; batch++)
            {
                using Apache.Arrow.RecordBatch next = reader.ReadNextRecordBatch();
                Assert.Equal(150_000, next.Length);
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            Assert.True(allocated < bodyBytes / 4, $"reading 3 batches of {bodyBytes:N0}-byte bodies allocated {allocated:N0} bytes");
        }

        [SkippableFact]
        public void AReleasedScopeDropsWhatComesBackAndANewScopeReusesItsOwnArrays()
        {
            // Dispose and reuse of the scope: a reader still decoding when its database is disposed finishes with the right
            // bytes and its arrays are dropped, not kept; the next database's scope fills its pool once and then reuses it.
            Skip.IfNot(NativeLz4.IsAvailable, NativeLz4.UnavailableReason);
            (byte[] data, byte[] compressed) = Sample(6 * MiB, FrameOptions.Databricks, seed: 35);
            byte[] decoded = new byte[data.Length];
            DatabricksMemoryLease first = CreateScope();
            Lz4BufferPool firstPool = first.Scope.BufferPool;
            using (Stream stream = first.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(firstPool, compressed)))
            {
                stream.ReadExactly(decoded.AsSpan(0, MiB));
                first.Dispose(); // the database is disposed while its reader is mid-file
                Assert.True(first.Scope.IsReleased);
                stream.ReadExactly(decoded.AsSpan(MiB));
            }

            Assert.True(data.AsSpan().SequenceEqual(decoded), "the reader of a released scope decoded different bytes");
            Assert.Equal(0, firstPool.InUseBytes);
            Assert.Equal(0, firstPool.RetainedBytes);

            using DatabricksMemoryLease second = CreateScope();
            Lz4Decoding.DecodeAsRead(second.Scope.Lz4, second.Scope.BufferPool, compressed);
            Assert.NotEqual(0, second.Scope.BufferPool.RetainedBytes);
            long before = GC.GetAllocatedBytesForCurrentThread();
            using (Stream stream = second.Scope.Lz4.DecodeAsRead(Lz4Decoding.Download(second.Scope.BufferPool, compressed)))
            {
                stream.ReadExactly(decoded);
            }

            Assert.InRange(GC.GetAllocatedBytesForCurrentThread() - before, 0, 64 * KiB);
            Assert.True(data.AsSpan().SequenceEqual(decoded), "the new scope decoded different bytes");
        }

        /// <summary>
        /// A response body whose read, once it has sent <c>stallAfter</c> bytes, waits without looking at its token (as
        /// .NET Framework's socket streams do) until <see cref="EndStall"/>: then the rest, or a connection reset.
        /// </summary>
        private sealed class CancellationIgnoringContent : HttpContent
        {
            private readonly byte[] _body;
            private readonly int _stallAfter;
            private readonly TaskCompletionSource<bool> _stalled = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            private readonly TaskCompletionSource<bool> _stallEnded = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

            public CancellationIgnoringContent(byte[] body, int stallAfter)
            {
                _body = body;
                _stallAfter = stallAfter;
                Headers.ContentLength = body.Length;
            }

            public Task Stalled => _stalled.Task;

            /// <summary>Ends the stall: the read goes on with the rest of the body, or (<paramref name="withError"/>) fails as a reset connection.</summary>
            public void EndStall(bool withError) => _stallEnded.SetResult(withError);

            protected override Task<Stream> CreateContentReadStreamAsync() => Task.FromResult<Stream>(new Body(this));

            protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => throw new NotSupportedException();

            protected override bool TryComputeLength(out long length)
            {
                length = _body.Length;
                return true;
            }

            private sealed class Body(CancellationIgnoringContent content) : ResponseBodyStream
            {
                private int _position;

                public override int Read(byte[] buffer, int offset, int count) => ReadAsync(buffer, offset, count, CancellationToken.None).GetAwaiter().GetResult();

                public override async Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken)
                {
                    if (_position == content._stallAfter && !content._stallEnded.Task.IsCompleted)
                    {
                        content._stalled.TrySetResult(true);
                        if (await content._stallEnded.Task.ConfigureAwait(false))
                        {
                            throw new IOException("Unable to read data from the transport connection: Connection reset by peer.");
                        }
                    }

                    int limit = _position < content._stallAfter ? content._stallAfter : content._body.Length;
                    int read = Math.Min(count, limit - _position);
                    Buffer.BlockCopy(content._body, _position, buffer, offset, read);
                    _position += read;
                    return read;
                }
            }
        }
    }
}
