namespace PatchTool.Tests;

/// <summary>The real scripts/patch wrapper, run as a user would: from another directory, as a separate process.</summary>
public class WrapperScriptTests
{
    [UnixFact]
    public void Wrapper_BuildsAndRunsTheTool_FromAnyDirectory_AndReportsMissingGit()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string wrapper = Path.Combine(ToolContext.RepositoryRoot()!, "scripts", "patch");
        string[] args = ["--adbc", fake.Checkout, "--patches", fake.Patches, "--overlay", fake.Overlay];

        // The wrapper builds the tool first when it is missing or older than its sources.
        ProcessResult apply = ProcessRunner.Run("/bin/bash", [wrapper, "apply", .. args], fake.Root, fake.Environment);

        Assert.True(apply.Succeeded, apply.Output);
        Assert.Contains($"Done: {FakeAdbc.Tag21} + series 1.0.0", apply.Stdout);
        Assert.Equal("3", fake.Git("rev-list", "--count", fake.BaseCommit + "..HEAD"));

        // A PATH with dotnet but without git: the tool, not bash, says git is missing.
        using var bin = new TempDirectory();
        File.CreateSymbolicLink(Path.Combine(bin.Path, "dotnet"), Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? ProcessRunner.Find("dotnet", Environment.GetEnvironmentVariable("PATH"))!);
        Dictionary<string, string?> noGit = fake.Environment;
        noGit["PATH"] = bin.Path;
        ProcessResult check = ProcessRunner.Run("/bin/bash", [wrapper, "check", .. args], fake.Root, noGit);

        Assert.True(check.ExitCode == 3, check.Output);
        Assert.Contains("error: git was not found on PATH", check.Stderr);
        Assert.Contains("hint: install git", check.Stderr);
    }
}
