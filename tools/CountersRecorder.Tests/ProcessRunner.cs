using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Text;

namespace CountersRecorder.Tests
{
    /// <summary>What a finished recorder process left behind.</summary>
    internal sealed record RunResult(int ExitCode, string StandardOutput, string StandardError);

    /// <summary>Runs the real recorder (and through it the Subject app) as separate processes, with a bounded wait.</summary>
    internal static class ProcessRunner
    {
        /// <summary>Far above a run's few seconds; only a hang reaches it, and then the test fails instead of hanging.</summary>
        private static readonly TimeSpan Limit = TimeSpan.FromSeconds(90);

        public static string Dotnet => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host) ? host : "dotnet";

        public static string RecorderDll => Beside("CountersRecorder.dll");

        public static string SubjectDll => Beside("CountersRecorder.Tests.Subject.dll");

        /// <summary><c>dotnet CountersRecorder.dll ARGS</c>, optionally with extra environment variables.</summary>
        /// <param name="onOutputLine">Called with the recorder process and each line of its stdout as it arrives.</param>
        public static RunResult Recorder(IEnumerable<string> args, IReadOnlyDictionary<string, string>? environment = null,
            Action<Process, string>? onOutputLine = null)
        {
            var start = new ProcessStartInfo(Dotnet)
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            start.ArgumentList.Add(RecorderDll);
            foreach (string arg in args)
            {
                start.ArgumentList.Add(arg);
            }

            foreach (KeyValuePair<string, string> variable in environment ?? new Dictionary<string, string>())
            {
                start.Environment[variable.Key] = variable.Value;
            }

            var stdout = new StringBuilder();
            var stderr = new StringBuilder();
            using var process = new Process { StartInfo = start };
            process.OutputDataReceived += (_, e) =>
            {
                if (e.Data != null)
                {
                    lock (stdout)
                    {
                        stdout.AppendLine(e.Data);
                    }

                    onOutputLine?.Invoke(process, e.Data);
                }
            };
            process.ErrorDataReceived += (_, e) => { if (e.Data != null) { lock (stderr) { stderr.AppendLine(e.Data); } } };
            if (!process.Start())
            {
                throw new InvalidOperationException("the recorder did not start");
            }

            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            if (!process.WaitForExit(Limit))
            {
                process.Kill(entireProcessTree: true);
                throw new TimeoutException($"the recorder did not finish within {Limit.TotalSeconds} s; stderr so far:\n{stderr}");
            }

            process.WaitForExit(); // lets the asynchronous readers reach the end of both streams
            lock (stdout)
            {
                lock (stderr)
                {
                    return new RunResult(process.ExitCode, stdout.ToString(), stderr.ToString());
                }
            }
        }

        private static string Beside(string file)
        {
            string path = Path.Combine(AppContext.BaseDirectory, file);
            return File.Exists(path) ? path : throw new FileNotFoundException($"{file} is not next to the tests (project reference missing?)", path);
        }
    }
}
