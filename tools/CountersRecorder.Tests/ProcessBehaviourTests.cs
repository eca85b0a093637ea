using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using CountersRecorder.Tests.Subject;
using Xunit;

namespace CountersRecorder.Tests
{
    /// <summary>The recorder's contract as a process: usage errors, a child it cannot attach to, meters only.</summary>
    public sealed class ProcessBehaviourTests : IDisposable
    {
        private readonly ScratchFolder _folder = new ScratchFolder();

        public void Dispose() => _folder.Dispose();

        public static TheoryData<string[]> BadCommandLines() => new TheoryData<string[]>
        {
            new[] { "--output", "x.csv", "dotnet", "app.dll" },                      // no "--"
            new[] { "--output", "x.csv", "--" },                                      // no command
            new[] { "--output", "x.csv", "--interval", "0", "--", "dotnet" },         // interval not positive
            new[] { "--output", "x.csv", "--interval", "soon", "--", "dotnet" },      // interval not a number
            new[] { "--interval", "1", "--", "dotnet" },                              // no output
            new[] { "--output", "x.csv", "--no-runtime", "--", "dotnet" },            // nothing to record
            new[] { "--output", "x.csv", "--frobnicate", "--", "dotnet" },            // unknown option
        };

        [Theory]
        [MemberData(nameof(BadCommandLines))]
        public void A_usage_error_exits_2_with_the_usage_and_starts_nothing(string[] args)
        {
            RunResult result = ProcessRunner.Recorder(args);

            Assert.Equal(2, result.ExitCode);
            Assert.Contains("usage: CountersRecorder", result.StandardError, StringComparison.Ordinal);
            Assert.False(File.Exists("x.csv"), "a usage error must not create the output");
        }

        [Fact]
        public void A_command_that_cannot_start_exits_127()
        {
            string csv = _folder.File("missing.csv");

            RunResult result = ProcessRunner.Recorder(new[] { "--output", csv, "--", Path.Combine(_folder.Path, "no-such-program") });

            Assert.Equal(127, result.ExitCode);
            Assert.Contains("cannot start", result.StandardError, StringComparison.Ordinal);
        }

        [Theory]
        [InlineData("startup")]
        [InlineData("pid")]
        public void Without_a_diagnostic_ipc_the_child_still_runs_and_its_exit_code_is_passed_on(string attach)
        {
            string csv = _folder.File($"no-ipc-{attach}.csv");

            // DOTNET_EnableDiagnostics=0 (inherited by the child) keeps the runtime from opening its diagnostic IPC at all.
            RunResult result = ProcessRunner.Recorder(
                new[]
                {
                    "--output", csv, "--attach", attach, "--attach-timeout", "1", "--meter", SubjectFacts.MeterName,
                    "--", ProcessRunner.Dotnet, ProcessRunner.SubjectDll, "--exit-code", "5", "--listener-wait", "0", "--linger", "0",
                },
                new Dictionary<string, string> { ["DOTNET_EnableDiagnostics"] = "0" });

            Assert.Equal(5, result.ExitCode);
            Assert.Contains(SubjectFacts.DoneLine, result.StandardOutput, StringComparison.Ordinal);
            Assert.Contains("could not attach", result.StandardError, StringComparison.Ordinal);
            Assert.Contains("WARNING: no counters recorded", result.StandardError, StringComparison.Ordinal);
            Assert.Equal(new[] { CsvCounterWriter.Header }, File.ReadAllLines(csv));
        }

        [SkippableFact]
        public void A_sigterm_to_the_recorder_reaches_the_child_and_its_exit_code_comes_back()
        {
            Skip.If(OperatingSystem.IsWindows(), "SIGTERM forwarding is POSIX-only (on Windows the recorder has no signal to pass on)");
            string csv = _folder.File("sigterm.csv");
            int signalled = 0;

            // The subject would linger a minute; SIGTERM (what a CI timeout sends) is sent once the session is open.
            RunResult result = ProcessRunner.Recorder(
                new[] { "--output", csv, "--meter", SubjectFacts.MeterName, "--", ProcessRunner.Dotnet, ProcessRunner.SubjectDll, "--linger", "60" },
                onOutputLine: (recorder, line) =>
                {
                    if (line.StartsWith("subject: listener attached", StringComparison.Ordinal) && System.Threading.Interlocked.Exchange(ref signalled, 1) == 0)
                    {
                        using Process kill = Process.Start("kill", new[] { "-TERM", recorder.Id.ToString(System.Globalization.CultureInfo.InvariantCulture) });
                        kill.WaitForExit();
                    }
                });

            Assert.Equal(1, signalled);
            Assert.True(result.ExitCode == 128 + 15, $"exit {result.ExitCode}; stderr:\n{result.StandardError}");
            Assert.DoesNotContain(SubjectFacts.DoneLine, result.StandardOutput, StringComparison.Ordinal);
            Assert.Contains($"rows in {csv}; child exit code 143", result.StandardError, StringComparison.Ordinal);
            Assert.Equal(CsvCounterWriter.Header, File.ReadLines(csv).First());
        }

        [Fact]
        public void Meters_only_at_half_a_second_still_add_up()
        {
            string csv = _folder.File("meters-only.csv");

            RunResult result = ProcessRunner.Recorder(new[]
            {
                "--output", csv, "--no-runtime", "--interval", "0.5", "--meter", SubjectFacts.MeterName,
                "--", ProcessRunner.Dotnet, ProcessRunner.SubjectDll, "--linger", "1.5",
            });

            Assert.True(result.ExitCode == 0, result.StandardError);
            CsvRecording recording = CsvRecording.Read(csv);
            Assert.DoesNotContain(recording.Rows, r => r.Provider == "System.Runtime");
            Assert.Equal(SubjectFacts.MainTotal, recording.Named(SubjectFacts.MeterName, "subject.work ({item} / 0.5 sec)[pool=lz4_buffers;scope=1]").Sum(r => r.Value));
            Assert.Equal(SubjectFacts.OtherTotal, recording.Named(SubjectFacts.MeterName, "subject.work ({item} / 0.5 sec)[pool=other;scope=2]").Sum(r => r.Value));
            Assert.Equal(SubjectFacts.UpDownFinal, recording.Named(SubjectFacts.MeterName, "subject.in_use (By)[pool=lz4_buffers;scope=1]")[^1].Value);
        }
    }
}
