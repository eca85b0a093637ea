using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Diagnostics.NETCore.Client;

namespace CountersRecorder
{
    /// <summary>How the recorder reaches the child's runtime (--attach).</summary>
    internal enum AttachMode
    {
        /// <summary>
        /// The default, and what dotnet-counters does for <c>-- COMMAND</c>: the child is started with
        /// <c>DOTNET_DiagnosticPorts=SOCKET,suspend</c>, so its runtime connects to the recorder and waits before running
        /// any managed code; the recorder opens the session, then resumes it.
        /// </summary>
        Startup,

        /// <summary>
        /// Attach to the running child by its pid (its default diagnostic socket), retrying until it is there. Kept for
        /// COMMANDs that start further .NET processes (they would inherit the suspend setting of the default mode), but
        /// prone to the runtime's startup deadlocks: enabling System.Runtime or System.Diagnostics.Metrics from the
        /// diagnostic thread while the app's main thread initializes the thread pool or ArrayPool can hang the app for
        /// good (dotnet/runtime#105682, #118014, #119014). The memory probe hung that way in about half of the tries here.
        /// </summary>
        Pid,
    }

    /// <summary>The started child and, if attaching worked, its counter session; disposing releases the diagnostic port.</summary>
    internal sealed class AttachedChild : IAsyncDisposable
    {
        private readonly DiagnosticsClientConnector? _connector;
        private readonly string? _socketPath;

        public AttachedChild(ChildProcess child, CounterSession? session, DiagnosticsClientConnector? connector = null, string? socketPath = null)
        {
            Child = child;
            Session = session;
            _connector = connector;
            _socketPath = socketPath;
        }

        public ChildProcess Child { get; }

        public CounterSession? Session { get; }

        public async ValueTask DisposeAsync()
        {
            if (_connector != null)
            {
                await _connector.DisposeAsync().ConfigureAwait(false);
            }

            if (_socketPath != null)
            {
                try
                {
                    File.Delete(_socketPath);
                }
                catch (IOException)
                {
                    // A leftover socket file in the temp folder is harmless.
                }
            }
        }
    }

    /// <summary>Starts the child and attaches to it in the chosen <see cref="AttachMode"/>.</summary>
    internal static class ChildAttacher
    {
        private const string DiagnosticPortsVariable = "DOTNET_DiagnosticPorts";

        /// <summary>Bounds on single diagnostic commands, so that an unresponsive child cannot hang the recorder.</summary>
        private static readonly TimeSpan CommandTimeout = TimeSpan.FromSeconds(30);

        public static Task<AttachedChild> StartAsync(RecorderOptions options, CsvCounterWriter writer, Action<string> warn) =>
            options.Attach == AttachMode.Startup ? StartSuspendedAsync(options, writer, warn) : StartAndAttachByPidAsync(options, writer, warn);

        private static async Task<AttachedChild> StartSuspendedAsync(RecorderOptions options, CsvCounterWriter writer, Action<string> warn)
        {
            // Unix socket paths are limited to about 100 bytes: a short name in the temp folder.
            string socket = Path.Combine(Path.GetTempPath(), $"counters-recorder-{Environment.ProcessId}-{Guid.NewGuid().ToString("N")[..8]}.sock");
            using var stopWaiting = new CancellationTokenSource();

            // The listening socket exists when this returns (the connector starts its server before its first await).
            Task<DiagnosticsClientConnector> connecting = DiagnosticsClientConnector.FromDiagnosticPort(socket, stopWaiting.Token);
            if (connecting.IsFaulted)
            {
                warn($"cannot listen on {socket} ({connecting.Exception?.GetBaseException().Message}); starting the child without recording");
                return new AttachedChild(ChildProcess.Start(options.Command, warn), null);
            }

            string? existing = Environment.GetEnvironmentVariable(DiagnosticPortsVariable);
            string ports = (string.IsNullOrEmpty(existing) ? string.Empty : existing + ";") + socket + ",suspend";
            ChildProcess child;
            try
            {
                child = ChildProcess.Start(options.Command, warn, new Dictionary<string, string> { [DiagnosticPortsVariable] = ports });
            }
            catch
            {
                stopWaiting.Cancel();
                await Settle(connecting).ConfigureAwait(false);
                throw;
            }

            Task exited = child.Process.WaitForExitAsync();
            Task first = await Task.WhenAny(connecting, exited, Task.Delay(TimeSpan.FromSeconds(options.AttachTimeoutSeconds))).ConfigureAwait(false);
            if (first != connecting && first != exited)
            {
                // A .NET child waits suspended until it connects, so waiting longer costs nothing; anything else just runs.
                warn($"the child (pid {child.Process.Id}) has not connected to the diagnostic port after {options.AttachTimeoutSeconds:0.#} s " +
                    "(not a .NET process, or DOTNET_EnableDiagnostics=0?); still waiting, it is not held up by this");
                first = await Task.WhenAny(connecting, exited).ConfigureAwait(false);
            }

            if (first != connecting)
            {
                stopWaiting.Cancel();
                await Settle(connecting).ConfigureAwait(false);
                warn($"could not attach: the child (pid {child.Process.Id}) exited without connecting to the diagnostic port " +
                    "(not a .NET process, or DOTNET_EnableDiagnostics=0?)");
                return new AttachedChild(child, null, null, socket);
            }

            DiagnosticsClientConnector connector;
            try
            {
                connector = await connecting.ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                warn($"could not attach: accepting the child's connection failed ({ex.GetType().Name}: {ex.Message})");
                return new AttachedChild(child, null, null, socket);
            }

            CounterSession? session = null;
            try
            {
                using var timeout = new CancellationTokenSource(CommandTimeout);
                session = await CounterSession.OpenAsync(connector.Instance, options, writer, warn, timeout.Token).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                warn($"could not open the counter session ({ex.GetType().Name}: {ex.Message})");
            }
            finally
            {
                Resume(connector.Instance, child, warn);
            }

            return new AttachedChild(child, session, connector, socket);
        }

        /// <summary>The child waits at startup until resumed; if that fails it would wait forever, so it is killed instead.</summary>
        private static void Resume(DiagnosticsClient client, ChildProcess child, Action<string> warn)
        {
            try
            {
                if (!Task.Run(client.ResumeRuntime).Wait(CommandTimeout))
                {
                    throw new TimeoutException($"no answer within {CommandTimeout.TotalSeconds:0} s");
                }
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                warn($"could not resume the child's startup ({ex.GetBaseException().Message}); killing it rather than leaving it suspended");
                child.Kill();
            }
        }

        private static async Task<AttachedChild> StartAndAttachByPidAsync(RecorderOptions options, CsvCounterWriter writer, Action<string> warn)
        {
            ChildProcess child = ChildProcess.Start(options.Command, warn);
            var client = new DiagnosticsClient(child.Process.Id);
            var clock = Stopwatch.StartNew();
            TimeSpan timeout = TimeSpan.FromSeconds(options.AttachTimeoutSeconds);
            Exception? last = null;

            // The runtime opens its diagnostic socket a few tens of milliseconds into the process: retry until then.
            while (clock.Elapsed < timeout && !child.HasExited)
            {
                TimeSpan remaining = timeout - clock.Elapsed;
                using var attempt = new CancellationTokenSource(remaining < TimeSpan.FromSeconds(5) ? remaining : TimeSpan.FromSeconds(5));
                try
                {
                    return new AttachedChild(child, await CounterSession.OpenAsync(client, options, writer, warn, attempt.Token).ConfigureAwait(false));
                }
                catch (Exception ex) when (ex is ServerNotAvailableException || ex is IOException || ex is TimeoutException
                    || ex is OperationCanceledException || ex is UnauthorizedAccessException || ex is System.Net.Sockets.SocketException
                    || ex is ServerErrorException)
                {
                    last = ex;
                }

                await Task.Delay(TimeSpan.FromMilliseconds(100)).ConfigureAwait(false);
            }

            warn(child.HasExited
                ? $"could not attach: the child (pid {child.Process.Id}) exited before its diagnostic IPC could be reached"
                : $"could not attach to the child (pid {child.Process.Id}) within {options.AttachTimeoutSeconds:0.#} s " +
                  $"(is it a .NET process, with DOTNET_EnableDiagnostics not 0?): {last?.GetType().Name}: {last?.Message}; " +
                  "the child keeps running");
            return new AttachedChild(child, null);
        }

        /// <summary>Waits for a cancelled accept to wind down (it returns null or throws; either way nothing is left listening).</summary>
        private static async Task Settle(Task<DiagnosticsClientConnector> connecting)
        {
            try
            {
                DiagnosticsClientConnector? late = await connecting.ConfigureAwait(false);
                if (late != null)
                {
                    await late.DisposeAsync().ConfigureAwait(false);
                }
            }
            catch (Exception ex) when (ex is OperationCanceledException || ex is IOException || ex is System.Net.Sockets.SocketException || ex is ObjectDisposedException)
            {
                // Cancelled, as asked.
            }
        }
    }
}
