using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;

namespace CountersRecorder
{
    /// <summary>
    /// One EventPipe session on the child: the EventCounters of System.Runtime and/or the requested meters, parsed as
    /// they arrive and written as CSV rows.
    /// </summary>
    internal sealed class CounterSession
    {
        public const string RuntimeProvider = "System.Runtime";

        /// <summary>MetricsEventSource's TimeSeriesValues keyword: the periodic values (and the instrument lifetime events).</summary>
        private const long TimeSeriesValuesKeyword = 0x2;

        /// <summary>dotnet-counters' defaults for the two limits (--maxTimeSeries, --maxHistograms).</summary>
        private const int MaxTimeSeries = 1000;
        private const int MaxHistograms = 10;

        private readonly EventPipeSession _session;
        private readonly Task _processing;
        private readonly Action<string> _warn;

        private CounterSession(EventPipeSession session, CounterEventParser parser, CsvCounterWriter writer, Action<string> warn)
        {
            _session = session;
            _warn = warn;
            _processing = Task.Factory.StartNew(() => Process(session, parser, writer, warn), CancellationToken.None,
                TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }

        /// <summary>
        /// The providers, with the arguments dotnet-counters passes: <c>EventCounterIntervalSec</c> for EventCounters; for
        /// System.Diagnostics.Metrics <c>SessionId</c>, <c>Metrics</c> (comma-separated meter names), <c>RefreshInterval</c>
        /// (seconds), <c>MaxTimeSeries</c>, <c>MaxHistograms</c>, all as invariant-culture text.
        /// </summary>
        internal static IReadOnlyList<EventPipeProvider> Providers(RecorderOptions options, string sessionId)
        {
            string interval = options.IntervalSeconds.ToString(CultureInfo.InvariantCulture);
            var providers = new List<EventPipeProvider>();
            if (options.RuntimeCounters)
            {
                providers.Add(new EventPipeProvider(RuntimeProvider, EventLevel.Informational, 0,
                    new Dictionary<string, string> { ["EventCounterIntervalSec"] = interval }));
            }

            if (options.Meters.Count > 0)
            {
                providers.Add(new EventPipeProvider(CounterEventParser.MetricsProvider, EventLevel.Informational, TimeSeriesValuesKeyword,
                    new Dictionary<string, string>
                    {
                        ["SessionId"] = sessionId,
                        ["Metrics"] = string.Join(',', options.Meters),
                        ["RefreshInterval"] = interval,
                        ["MaxTimeSeries"] = MaxTimeSeries.ToString(CultureInfo.InvariantCulture),
                        ["MaxHistograms"] = MaxHistograms.ToString(CultureInfo.InvariantCulture),
                    }));
            }

            return providers;
        }

        /// <summary>
        /// Opens the session, retrying while the child's runtime brings up its diagnostic IPC (it is not there for the
        /// first tens of milliseconds of a process). Null if it could not be opened before the timeout or the child's exit.
        /// </summary>
        public static async Task<CounterSession?> TryStartAsync(Process child, RecorderOptions options, CsvCounterWriter writer, Action<string> warn)
        {
            string sessionId = Guid.NewGuid().ToString();
            IReadOnlyList<EventPipeProvider> providers = Providers(options, sessionId);
            var client = new DiagnosticsClient(child.Id);
            var clock = Stopwatch.StartNew();
            TimeSpan timeout = TimeSpan.FromSeconds(options.AttachTimeoutSeconds);
            Exception? last = null;
            while (clock.Elapsed < timeout && !child.HasExited)
            {
                TimeSpan remaining = timeout - clock.Elapsed;
                using var attempt = new CancellationTokenSource(remaining < TimeSpan.FromSeconds(5) ? remaining : TimeSpan.FromSeconds(5));
                try
                {
                    // No rundown: it only describes loaded code, which counters do not need, and it slows the session's end.
                    EventPipeSession session = await client.StartEventPipeSessionAsync(providers, requestRundown: false, circularBufferMB: 16, attempt.Token)
                        .ConfigureAwait(false);
                    return new CounterSession(session, new CounterEventParser(sessionId, options.IntervalSeconds, warn), writer, warn);
                }
                catch (Exception ex) when (ex is ServerNotAvailableException || ex is System.IO.IOException || ex is TimeoutException
                    || ex is OperationCanceledException || ex is UnauthorizedAccessException || ex is System.Net.Sockets.SocketException
                    || ex is ServerErrorException)
                {
                    last = ex;
                }

                await Task.Delay(TimeSpan.FromMilliseconds(100)).ConfigureAwait(false);
            }

            warn(child.HasExited
                ? $"the child (pid {child.Id}) exited before its diagnostic IPC could be reached; no counters recorded"
                : $"could not attach to the child (pid {child.Id}) within {options.AttachTimeoutSeconds:0.#} s " +
                  $"(is it a .NET process, with DOTNET_EnableDiagnostics not 0?): {last?.GetType().Name}: {last?.Message}; " +
                  "no counters recorded, the child keeps running");
            return null;
        }

        /// <summary>
        /// Ends the recording. When the child has exited its runtime has already closed the stream, so this only waits
        /// for the parser to reach its end; when it is still running (Ctrl-C), the session is stopped first, which makes
        /// the runtime flush what it buffered.
        /// </summary>
        public async Task StopAsync(bool childRunning, TimeSpan drainTimeout)
        {
            if (childRunning)
            {
                try
                {
                    await Task.Run(() => _session.Stop()).WaitAsync(drainTimeout).ConfigureAwait(false);
                }
                catch (Exception ex) when (ex is not OutOfMemoryException)
                {
                    _warn($"could not stop the session cleanly ({ex.GetType().Name}: {ex.Message})");
                }
            }

            if (await Task.WhenAny(_processing, Task.Delay(drainTimeout)).ConfigureAwait(false) != _processing)
            {
                _warn($"the event stream did not end within {drainTimeout.TotalSeconds:0} s of the child's exit; closing it");
            }

            // Closing the stream ends a parser that is still waiting; rows already written are on disk.
            _session.Dispose();
            await Task.WhenAny(_processing, Task.Delay(TimeSpan.FromSeconds(2))).ConfigureAwait(false);
        }

        private static void Process(EventPipeSession session, CounterEventParser parser, CsvCounterWriter writer, Action<string> warn)
        {
            try
            {
                using var source = new EventPipeEventSource(session.EventStream);
                source.Dynamic.All += traceEvent =>
                {
                    foreach (CounterRow row in parser.Parse(traceEvent))
                    {
                        writer.Write(row);
                    }
                };
                source.Process();
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                // A stream cut off mid-block (the child killed, or the session disposed while draining) ends here;
                // every complete event before it has been written.
                warn($"the event stream ended abruptly ({ex.GetType().Name}: {ex.Message}); rows up to that point are kept");
            }
        }
    }
}
