using System;
using System.Diagnostics;
using System.IO;
using System.Threading.Tasks;

namespace Lz4Reference
{
    /// <summary>
    /// The lz4 command-line tool (Debian package lz4): a second, process-isolated reference decoder that handles
    /// concatenated and skippable frames exactly as users meet them.
    /// </summary>
    public static class Lz4Cli
    {
        private static readonly Lazy<string?> s_unavailableReason = new Lazy<string?>(Probe);

        public static bool IsAvailable => s_unavailableReason.Value == null;

        public static string? UnavailableReason => s_unavailableReason.Value;

        /// <summary>Runs <c>lz4 -d -c</c> over <paramref name="input"/>; returns stdout, or throws with lz4's stderr.</summary>
        public static byte[] Decompress(byte[] input)
        {
            var (exitCode, output, error) = Run("-d -c -q", input);
            if (exitCode != 0)
            {
                throw new InvalidDataException($"lz4 -d exited with {exitCode}: {error.Trim()}");
            }

            return output;
        }

        /// <summary>Runs <c>lz4 -c</c> with extra flags (e.g. "-B4 -BD --content-size") over <paramref name="input"/>.</summary>
        public static byte[] Compress(byte[] input, string flags)
        {
            var (exitCode, output, error) = Run("-c -q " + flags, input);
            if (exitCode != 0)
            {
                throw new InvalidOperationException($"lz4 {flags} exited with {exitCode}: {error.Trim()}");
            }

            return output;
        }

        private static (int ExitCode, byte[] Output, string Error) Run(string arguments, byte[] input)
        {
            var start = new ProcessStartInfo("lz4", arguments)
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            using Process process = Process.Start(start) ?? throw new InvalidOperationException("could not start lz4");
            using var output = new MemoryStream();
            Task copyOut = process.StandardOutput.BaseStream.CopyToAsync(output);
            Task<string> readError = process.StandardError.ReadToEndAsync();
            try
            {
                process.StandardInput.BaseStream.Write(input, 0, input.Length);
                process.StandardInput.Close();
            }
            catch (IOException)
            {
                // lz4 may stop reading early on corrupt input; its exit code and stderr say why.
            }

            if (!process.WaitForExit(60_000))
            {
                process.Kill();
                throw new TimeoutException("lz4 did not finish within 60 s");
            }

            copyOut.GetAwaiter().GetResult();
            return (process.ExitCode, output.ToArray(), readError.GetAwaiter().GetResult());
        }

        private static string? Probe()
        {
            try
            {
                var (exitCode, _, error) = Run("-V", Array.Empty<byte>());
                return exitCode == 0 ? null : "lz4 -V failed: " + error;
            }
            catch (Exception ex) when (ex is System.ComponentModel.Win32Exception || ex is InvalidOperationException)
            {
                return "the lz4 command-line tool is not installed (Debian: apt-get install lz4): " + ex.Message;
            }
        }
    }
}
