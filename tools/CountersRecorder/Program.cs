using System;
using System.ComponentModel;
using System.IO;
using System.Threading.Tasks;

namespace CountersRecorder
{
    /// <summary>
    /// Records one child process's counters to CSV, like <c>dotnet-counters collect --format csv -- COMMAND</c>
    /// (dotnet-counters itself is not available here; see README.md). The child's exit code is the recorder's exit code,
    /// whether or not the recording worked: a recording problem is a warning on stderr, never a failure of the run.
    /// </summary>
    public static class Program
    {
        /// <summary>Exit code for a command line that cannot run (as for every script of this repository).</summary>
        public const int UsageExitCode = 2;

        /// <summary>Exit code when the command cannot be started at all (as a shell reports a missing command).</summary>
        public const int CannotStartExitCode = 127;

        /// <summary>How long to wait, after the child's exit, for the last events to be parsed.</summary>
        private static readonly TimeSpan DrainTimeout = TimeSpan.FromSeconds(10);

        public static async Task<int> Main(string[] args)
        {
            RecorderOptions options;
            try
            {
                options = RecorderOptions.Parse(args);
            }
            catch (UsageException ex)
            {
                Console.Error.WriteLine("counters-recorder: " + ex.Message);
                Console.Error.WriteLine(RecorderOptions.Usage);
                return UsageExitCode;
            }

            CsvCounterWriter writer;
            try
            {
                writer = new CsvCounterWriter(options.Output);
            }
            catch (Exception ex) when (ex is IOException || ex is UnauthorizedAccessException || ex is ArgumentException || ex is NotSupportedException)
            {
                Console.Error.WriteLine($"counters-recorder: cannot write {options.Output}: {ex.Message}");
                return UsageExitCode;
            }

            using (writer)
            {
                AttachedChild attached;
                try
                {
                    attached = await ChildAttacher.StartAsync(options, writer, Warn).ConfigureAwait(false);
                }
                catch (Exception ex) when (ex is Win32Exception || ex is InvalidOperationException)
                {
                    Console.Error.WriteLine($"counters-recorder: cannot start '{options.Command[0]}': {ex.Message}");
                    return CannotStartExitCode;
                }

                await using (attached.ConfigureAwait(false))
                using (attached.Child)
                {
                    return await RecordAsync(attached, options, writer).ConfigureAwait(false);
                }
            }
        }

        private static async Task<int> RecordAsync(AttachedChild attached, RecorderOptions options, CsvCounterWriter writer)
        {
            int exitCode = await attached.Child.WaitForExitAsync().ConfigureAwait(false);
            if (attached.Session != null)
            {
                await attached.Session.StopAsync(DrainTimeout).ConfigureAwait(false);
            }

            writer.Dispose();
            if (attached.Session == null)
            {
                Console.Error.WriteLine($"counters-recorder: WARNING: no counters recorded, {options.Output} has only its header; the child's exit code ({exitCode}) is passed on");
            }
            else
            {
                Console.Error.WriteLine($"counters-recorder: {writer.Rows} rows in {options.Output}; child exit code {exitCode}");
            }

            return exitCode;
        }

        private static void Warn(string message) => Console.Error.WriteLine("counters-recorder: warning: " + message);
    }
}
