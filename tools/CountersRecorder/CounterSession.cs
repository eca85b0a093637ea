using System;
using System.Collections.Generic;
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

        /// <summary>Opens the session on a connected client; the caller handles the exceptions (and resumes a suspended child).</summary>
        public static async Task<CounterSession> OpenAsync(DiagnosticsClient client, RecorderOptions options, CsvCounterWriter writer, Action<string> warn,
            CancellationToken cancellation)
        {
            string sessionId = Guid.NewGuid().ToString();

            // No rundown: it only describes loaded code, which counters do not need, and it slows the session's end.
            EventPipeSession session = await client.StartEventPipeSessionAsync(Providers(options, sessionId), requestRundown: false, circularBufferMB: 16,
                cancellation).ConfigureAwait(false);
            return new CounterSession(session, new CounterEventParser(sessionId, options.IntervalSeconds, warn), writer, warn);
        }

        /// <summary>
        /// Ends the recording once the child has exited: its runtime flushed and closed the stream, so this waits for the
        /// parser to reach the end (bounded), then releases the session.
        /// </summary>
        public async Task StopAsync(TimeSpan drainTimeout)
        {
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
