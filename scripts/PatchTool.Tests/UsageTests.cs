namespace PatchTool.Tests;

/// <summary>What a user meets before anything runs: a missing git, a wrong path, bad patch data, bad arguments, and help.</summary>
public class UsageTests
{
    [Fact]
    public void MissingGit_IsReportedWithWhatToInstall_BeforeAnythingIsTouched()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        using var emptyPath = new TempDirectory();
        var environment = fake.Environment;
        environment["PATH"] = emptyPath.Path;

        ToolResult result = fake.ToolWithEnvironment(["apply", "--adbc", fake.Checkout, "--patches", fake.Patches, "--overlay", fake.Overlay], environment);

        Assert.Equal(3, result.ExitCode);
        Assert.Contains("error: git was not found on PATH", result.Stderr);
        Assert.Contains("hint: install git", result.Stderr);
        Assert.Equal("", result.Stdout);
        Assert.Equal(fake.BaseCommit, fake.Head);
    }

    [Fact]
    public void AFolderThatIsNotAGitWorkTree_OrDoesNotExist_IsReported()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        using var plain = new TempDirectory();

        ToolResult notGit = fake.ToolWithEnvironment(["check", "--adbc", plain.Path, "--patches", fake.Patches, "--overlay", fake.Overlay], fake.Environment);
        ToolResult missing = fake.ToolWithEnvironment(["check", "--adbc", plain.Combine("nope"), "--patches", fake.Patches, "--overlay", fake.Overlay], fake.Environment);

        Assert.Equal(3, notGit.ExitCode);
        Assert.Contains($"{plain.Path} is not a git work tree", notGit.Stderr);
        Assert.Contains("hint: pass --adbc PATH pointing at a git clone of apache/arrow-adbc or adbc-drivers/databricks", notGit.Stderr);
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

        int exit = Program.Run(["bases"], stdout, stderr, null, elsewhere.Path);

        // The tool walks up from its binary (under artifacts/) to the repository root, not from the current directory.
        Assert.True(exit == 0, stderr.ToString());
        Assert.Contains(" in " + Path.Combine(ToolContext.RepositoryRoot()!, "patches"), stdout.ToString());
        foreach (string tag in new[] { "apache-arrow-adbc-21", "apache-arrow-adbc-24", "csharp/v1.1.7" })
        {
            Assert.Contains("\n" + tag + " ", stdout.ToString());
        }
    }

    [Theory]
    [InlineData(new[] { "frobnicate" }, "Unrecognized command or argument 'frobnicate'", "run `scripts/patch --help`")]
    [InlineData(new[] { "apply", "--no-such-option" }, "Unrecognized command or argument '--no-such-option'", "run `scripts/patch apply --help`")]
    [InlineData(new[] { "pack", "--output" }, "Required argument missing for option: '--output'", "run `scripts/patch pack --help`")]
    [InlineData(new[] { "publish" }, "Option '--output' is required", "run `scripts/patch publish --help`")]
    [InlineData(new[] { "pack", "-p", "NuGetAudit" }, "--property 'NuGetAudit' is not NAME=VALUE", "e.g. -p TargetFrameworks=net8.0")]
    [InlineData(new[] { "prs", "--verify" }, "Option '--output' is required", "run `scripts/patch prs --help`")]
    public void BadArguments_AreUsageErrors_WithAHint(string[] args, string error, string hint)
    {
        using var stderr = new StringWriter();

        int exit = Program.Run(args, new StringWriter(), stderr);

        Assert.Equal(2, exit);
        Assert.Contains(error, stderr.ToString());
        Assert.Contains("hint: " + hint, stderr.ToString());
    }

    [Theory]
    [InlineData("bases", "--adbc <PATH>")]
    [InlineData("apply", "--3way")]
    [InlineData("check", "--all")]
    [InlineData("export", "--check")]
    [InlineData("publish", "--allow-unpatched")]
    [InlineData("pack", "--version-suffix <SUFFIX>")]
    [InlineData("prs", "--filter <TEST_FILTER>")]
    public void EveryCommandHasHelp(string command, string mentions)
    {
        using var stdout = new StringWriter();

        int exit = Program.Run([command, "--help"], stdout, new StringWriter());

        Assert.Equal(0, exit);
        Assert.Contains($" {command} [options]", stdout.ToString());
        Assert.Contains(mentions, stdout.ToString());
    }

    [Fact]
    public void GeneralHelp_ListsCommandsAndExitCodes_AndIsWhatNoArgumentsPrint()
    {
        using var stdout = new StringWriter();

        int exit = Program.Run([], stdout, new StringWriter());

        Assert.Equal(0, exit);
        foreach (string command in new[] { "bases", "apply", "check", "export", "publish", "pack", "prs" })
        {
            Assert.Contains("  " + command + " ", stdout.ToString());
        }

        Assert.Contains("6 a patch does not apply", stdout.ToString());
    }
}
