using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace CountersRecorder
{
    /// <summary>
    /// The recorded command, started with the recorder's own stdin, stdout and stderr (nothing redirected, so its
    /// output reaches the terminal or the caller's log unchanged and unbuffered). SIGINT and SIGTERM sent to the
    /// recorder are passed on to the child; if it is still running a few seconds later it is killed, so the recorder
    /// never leaves an orphan behind.
    /// </summary>
    internal sealed class ChildProcess : IDisposable
    {
        private static readonly TimeSpan KillGrace = TimeSpan.FromSeconds(5);

        private readonly Process _process;
        private readonly List<PosixSignalRegistration> _signals = new List<PosixSignalRegistration>();
        private readonly Action<string> _warn;
        private int _signalled;

        private ChildProcess(Process process, Action<string> warn)
        {
            _process = process;
            _warn = warn;
            _signals.Add(PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal));
            _signals.Add(PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal));
        }

        public Process Process => _process;

        public bool HasExited => _process.HasExited;

        /// <param name="environment">Variables to set for the child on top of the recorder's own environment.</param>
        public static ChildProcess Start(IReadOnlyList<string> command, Action<string> warn, IReadOnlyDictionary<string, string>? environment = null)
        {
            var start = new ProcessStartInfo(command[0]) { UseShellExecute = false };
            for (int i = 1; i < command.Count; i++)
            {
                start.ArgumentList.Add(command[i]);
            }

            foreach (KeyValuePair<string, string> variable in environment ?? new Dictionary<string, string>())
            {
                start.Environment[variable.Key] = variable.Value;
            }

            Process process = Process.Start(start) ?? throw new InvalidOperationException($"could not start '{command[0]}'");
            return new ChildProcess(process, warn);
        }

        public async Task<int> WaitForExitAsync()
        {
            await _process.WaitForExitAsync().ConfigureAwait(false);
            return _process.ExitCode;
        }

        public void Dispose()
        {
            foreach (PosixSignalRegistration registration in _signals)
            {
                registration.Dispose();
            }

            _process.Dispose();
        }

        private void OnSignal(PosixSignalContext context)
        {
            // The recorder stays up to record the child's last interval and to return its exit code.
            context.Cancel = true;
            if (_process.HasExited)
            {
                return;
            }

            if (Interlocked.Exchange(ref _signalled, 1) == 1)
            {
                // A second Ctrl-C: the user does not want to wait.
                Kill();
                return;
            }

            // In a terminal the child is in the same process group and got the same SIGINT already; a SIGTERM sent to
            // the recorder alone (e.g. by a CI timeout) reaches the child only through this.
            if (!OperatingSystem.IsWindows())
            {
                _ = SendSignal(_process.Id, context.Signal == PosixSignal.SIGTERM ? 15 : 2);
            }

            _ = Task.Delay(KillGrace).ContinueWith(_ => Kill(), TaskScheduler.Default);
        }

        /// <summary>Kills the child's process tree if it is still running.</summary>
        public void Kill()
        {
            try
            {
                if (!_process.HasExited)
                {
                    _warn($"killing the child (pid {_process.Id}), which did not exit after the signal");
                    _process.Kill(entireProcessTree: true);
                }
            }
            catch (Exception ex) when (ex is InvalidOperationException || ex is System.ComponentModel.Win32Exception)
            {
                // It exited in the meantime.
            }
        }

        [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
        private static extern int SendSignal(int pid, int signal);
    }
}
