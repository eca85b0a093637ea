using System.Collections.Generic;
using System.IO;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    public class EnvironmentAndUsageTests
    {
        [Fact]
        public void MissingGit_IsReportedWithWhatToInstall_BeforeAnythingIsTouched()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            using var emptyPath = new TempDirectory();
            Dictionary<string, string?> environment = fake.Environment;
            environment["PATH"] = emptyPath.Path;

            ToolResult result = fake.ToolWithEnvironment(new[] { "apply", "--adbc", fake.Checkout, "--patches", fake.Patches, "--overlay", fake.Overlay }, environment);

            Assert.Equal(3, result.ExitCode);
            Assert.Contains("error: git was not found on PATH", result.Stderr);
            Assert.Contains("hint: install git", result.Stderr);
            Assert.Equal("", result.Stdout);
            Assert.Equal(fake.BaseCommit, fake.Head);
        }

        [Fact]
        public void AFolderThatIsNotAGitWorkTree_IsReported()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            using var plain = new TempDirectory();

            ToolResult result = fake.ToolWithEnvironment(new[] { "status", "--adbc", plain.Path, "--patches", fake.Patches, "--overlay", fake.Overlay }, fake.Environment);
            ToolResult missing = fake.ToolWithEnvironment(new[] { "status", "--adbc", plain.Combine("nope"), "--patches", fake.Patches, "--overlay", fake.Overlay }, fake.Environment);

            Assert.Equal(3, result.ExitCode);
            Assert.Contains($"{plain.Path} is not a git work tree", result.Stderr);
            Assert.Contains("hint: pass --adbc PATH pointing at an apache/arrow-adbc clone", result.Stderr);
            Assert.Equal(3, missing.ExitCode);
            Assert.Contains("does not exist", missing.Stderr);
        }

        [Fact]
        public void AnInvalidBaseJson_IsReportedWithTheFileAndField()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            fake.WriteBaseJson(FakeAdbc.Tag21, "not-a-commit");

            ToolResult result = fake.Tool("bases");

            Assert.Equal(4, result.ExitCode);
            Assert.Contains("base.json has \"commit\": \"not-a-commit\"; it must be the full 40-hex commit id", result.Stderr);
        }

        [Fact]
        public void WithoutOverrides_TheRepositorysOwnPatchesFolderIsUsed_WhateverTheCurrentDirectory()
        {
            using var elsewhere = new TempDirectory();
            using var stdout = new StringWriter();
            using var stderr = new StringWriter();

            int exit = Program.Run(new[] { "bases" }, stdout, stderr, null, elsewhere.Path);

            // The tool walks up from its binary (artifacts/...) to the repository root, not from the current directory.
            string root = DbxMem.PatchTool.Infrastructure.RepositoryLocator.FindRoot()!;
            Assert.True(exit == 0, stderr.ToString());
            Assert.True(File.Exists(Path.Combine(root, "scripts", "PatchTool", "PatchTool.csproj")));
            Assert.Contains("Series ", stdout.ToString());
            Assert.Contains(" in " + Path.Combine(root, "patches"), stdout.ToString());
            foreach (string tag in new[] { "apache-arrow-adbc-21", "apache-arrow-adbc-22", "apache-arrow-adbc-23", "apache-arrow-adbc-24" })
            {
                Assert.Contains("\n" + tag + " ", stdout.ToString());
            }
        }

        [Fact]
        public void UnknownCommandsAndOptions_AreUsageErrors()
        {
            using FakeAdbc fake = FakeAdbc.Create();

            ToolResult command = fake.Tool("frobnicate");
            ToolResult option = fake.Tool("apply", "--no-such-option");
            ToolResult value = fake.ToolWithEnvironment(new[] { "pack", "--output" }, fake.Environment);

            Assert.Equal(2, command.ExitCode);
            Assert.Contains("unknown command 'frobnicate'", command.Stderr);
            Assert.Equal(2, option.ExitCode);
            Assert.Contains("unknown option '--no-such-option' for 'apply'", option.Stderr);
            Assert.Contains("`patch apply --help`", option.Stderr);
            Assert.Equal(2, value.ExitCode);
            Assert.Contains("option --output needs a value", value.Stderr);
        }

        [Theory]
        [InlineData("bases", "--adbc PATH")]
        [InlineData("apply", "--3way")]
        [InlineData("check", "--all")]
        [InlineData("status", "--json")]
        [InlineData("revert", "--force")]
        [InlineData("export", "--check")]
        [InlineData("build", "--framework TFM")]
        [InlineData("pack", "--version-suffix SUFFIX")]
        public void EveryCommandHasHelp(string command, string mentions)
        {
            using var stdout = new StringWriter();
            using var stderr = new StringWriter();

            int exit = Program.Run(new[] { command, "--help" }, stdout, stderr);
            int viaHelp = Program.Run(new[] { "help", command }, new StringWriter(), new StringWriter());

            Assert.Equal(0, exit);
            Assert.Equal(0, viaHelp);
            Assert.StartsWith("usage: patch " + command, stdout.ToString());
            Assert.Contains(mentions, stdout.ToString());
            Assert.Equal("", stderr.ToString());
        }

        [Fact]
        public void GeneralHelp_ListsCommandsAndExitCodes()
        {
            using var stdout = new StringWriter();

            int exit = Program.Run(new[] { "--help" }, stdout, new StringWriter());

            Assert.Equal(0, exit);
            foreach (string command in new[] { "bases", "apply", "check", "status", "revert", "export", "build", "pack" })
            {
                Assert.Contains("  " + command + " ", stdout.ToString());
            }

            Assert.Contains("6 patch does not apply", stdout.ToString());
        }
    }
}
