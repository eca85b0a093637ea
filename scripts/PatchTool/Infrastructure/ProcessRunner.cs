using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading.Tasks;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>The outcome of one child process.</summary>
    internal sealed class ProcessResult
    {
        public ProcessResult(int exitCode, byte[] stdoutBytes, string stderr)
        {
            ExitCode = exitCode;
            StdoutBytes = stdoutBytes;
            Stderr = stderr;
        }

        public int ExitCode { get; }

        /// <summary>Raw bytes: patches must round-trip byte for byte, whatever encoding upstream files use.</summary>
        public byte[] StdoutBytes { get; }

        public string Stdout => Encoding.UTF8.GetString(StdoutBytes);

        public string Stderr { get; }

        public bool Succeeded => ExitCode == 0;
    }

    /// <summary>
    /// Runs a child process with both streams captured. Streams are drained concurrently so a chatty
    /// child (dotnet build, git am) can never block on a full pipe.
    /// </summary>
    internal static class ProcessRunner
    {
        public static ProcessResult Run(
            string executable,
            IEnumerable<string> arguments,
            string workingDirectory,
            IReadOnlyDictionary<string, string?> environment,
            byte[]? stdin = null)
        {
            var startInfo = new ProcessStartInfo(executable)
            {
                WorkingDirectory = workingDirectory,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                RedirectStandardInput = true,
                UseShellExecute = false,
                CreateNoWindow = true,
                StandardErrorEncoding = Encoding.UTF8,
            };
            foreach (string argument in arguments)
            {
                startInfo.ArgumentList.Add(argument);
            }

            foreach (KeyValuePair<string, string?> pair in environment)
            {
                if (pair.Value == null)
                {
                    startInfo.Environment.Remove(pair.Key);
                }
                else
                {
                    startInfo.Environment[pair.Key] = pair.Value;
                }
            }

            using var process = new Process { StartInfo = startInfo };
            try
            {
                process.Start();
            }
            catch (Exception ex) when (ex is System.ComponentModel.Win32Exception || ex is FileNotFoundException)
            {
                throw new ToolException(
                    ExitCodes.Environment,
                    $"could not start '{executable}': {ex.Message}",
                    "check that it is installed and on PATH");
            }

            Task<byte[]> stdoutTask = ReadAllBytesAsync(process.StandardOutput.BaseStream);
            Task<string> stderrTask = process.StandardError.ReadToEndAsync();

            // Write stdin after the readers started, then close it so the child sees end of input.
            if (stdin != null)
            {
                process.StandardInput.BaseStream.Write(stdin, 0, stdin.Length);
            }

            process.StandardInput.Close();
            process.WaitForExit();
            return new ProcessResult(process.ExitCode, stdoutTask.GetAwaiter().GetResult(), stderrTask.GetAwaiter().GetResult());
        }

        private static async Task<byte[]> ReadAllBytesAsync(Stream stream)
        {
            using var buffer = new MemoryStream();
            await stream.CopyToAsync(buffer).ConfigureAwait(false);
            return buffer.ToArray();
        }
    }
}
