using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    /// <summary>The real scripts/patch wrapper, run as a user would: from another directory, as a separate process.</summary>
    public class WrapperScriptTests
    {
        [UnixFact]
        public void Wrapper_BuildsAndRunsTheTool_FromAnyDirectory_AndReportsMissingGit()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            string wrapper = Path.Combine(FindRepositoryRoot(), "scripts", "patch");
            string dotnet = FindDotnet();

            // 1. A normal run (the wrapper builds the tool first when it is missing or stale).
            (int exit, string stdout, string stderr) = Run(
                wrapper,
                new[] { "apply", "--adbc", fake.Checkout, "--patches", fake.Patches, "--overlay", fake.Overlay },
                fake.Environment,
                workingDirectory: fake.Root);

            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            Assert.Contains($"Done: {FakeAdbc.Tag21} + series 1.0.0", stdout);
            Assert.Equal(3, int.Parse(fake.Git("rev-list", "--count", fake.BaseCommit + "..HEAD"), System.Globalization.CultureInfo.InvariantCulture));

            // 2. PATH with dotnet but without git: the tool (not bash) must say git is missing.
            using var bin = new TempDirectory();
            File.CreateSymbolicLink(Path.Combine(bin.Path, "dotnet"), dotnet);
            Dictionary<string, string?> noGit = fake.Environment;
            noGit["PATH"] = bin.Path;
            (int noGitExit, string noGitStdout, string noGitStderr) = Run(wrapper, new[] { "status", "--adbc", fake.Checkout, "--patches", fake.Patches, "--overlay", fake.Overlay }, noGit, fake.Root);

            Assert.True(noGitExit == 3, $"exit {noGitExit}\n{noGitStdout}\n{noGitStderr}");
            Assert.Contains("error: git was not found on PATH", noGitStderr);
            Assert.Contains("hint: install git", noGitStderr);
        }

        private static (int Exit, string Stdout, string Stderr) Run(string script, string[] args, IReadOnlyDictionary<string, string?> environment, string workingDirectory)
        {
            var start = new ProcessStartInfo("/bin/bash")
            {
                WorkingDirectory = workingDirectory,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            start.ArgumentList.Add(script);
            foreach (string arg in args)
            {
                start.ArgumentList.Add(arg);
            }

            foreach (KeyValuePair<string, string?> pair in environment)
            {
                if (pair.Value == null)
                {
                    start.Environment.Remove(pair.Key);
                }
                else
                {
                    start.Environment[pair.Key] = pair.Value;
                }
            }

            using Process process = Process.Start(start)!;
            var stdout = process.StandardOutput.ReadToEndAsync();
            var stderr = process.StandardError.ReadToEndAsync();
            // Bounded: a first run builds the tool (tens of seconds on a busy machine), never minutes more.
            if (!process.WaitForExit(TimeSpan.FromMinutes(8)))
            {
                process.Kill(entireProcessTree: true);
                throw new TimeoutException("scripts/patch did not finish within 8 minutes");
            }

            process.WaitForExit();
            return (process.ExitCode, stdout.GetAwaiter().GetResult(), stderr.GetAwaiter().GetResult());
        }

        private static string FindRepositoryRoot()
        {
            string? directory = AppContext.BaseDirectory;
            while (directory != null)
            {
                if (File.Exists(Path.Combine(directory, "scripts", "patch")) && Directory.Exists(Path.Combine(directory, "scripts", "PatchTool")))
                {
                    return directory;
                }

                directory = Path.GetDirectoryName(directory.TrimEnd(Path.DirectorySeparatorChar));
            }

            throw new InvalidOperationException("cannot find the repository root (scripts/patch) above " + AppContext.BaseDirectory);
        }

        private static string FindDotnet()
        {
            // dotnet test sets DOTNET_HOST_PATH for the test host; otherwise look on PATH.
            string? host = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH");
            if (!string.IsNullOrEmpty(host) && File.Exists(host))
            {
                return host;
            }

            foreach (string directory in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
            {
                string candidate = Path.Combine(directory, "dotnet");
                if (File.Exists(candidate))
                {
                    return candidate;
                }
            }

            throw new InvalidOperationException("dotnet is not on PATH and DOTNET_HOST_PATH is not set");
        }
    }
}
