namespace PatchTool.Tests;

public class ConflictAndCheckTests
{
    private const string CloseMethod = "        }\n\n        public void Close()\n        {\n        }\n    }";

    /// <summary>Tag "22" adds a method exactly where the Dispose patch adds its own: a real conflict.</summary>
    private static string AddConflictingTag22(FakeAdbc fake) =>
        fake.AddBase(FakeAdbc.Tag22, f => f.WriteFile(FakeAdbc.DatabaseFile, FakeAdbc.DatabaseSource.Replace("        }\n    }", CloseMethod)));

    [Fact]
    public void Apply_WithAConflict_NamesThePatchAndFile_SuggestsThreeWay_AndLeavesTheTreeAsItWas()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string base22 = AddConflictingTag22(fake);

        ToolResult result = fake.Tool("apply");

        Assert.Equal(6, result.ExitCode);
        Assert.Contains($"patch {FakeAdbc.DisposePatch} (\"Give DatabricksDatabase a Dispose that releases the memory scope\") does not apply to {FakeAdbc.Tag22} in {FakeAdbc.DatabaseFile}. Nothing was changed", result.Stderr);
        Assert.Contains("error: patch failed: " + FakeAdbc.DatabaseFile, result.Stderr);
        Assert.Contains("`scripts/patch apply --3way`", result.Stderr);
        Assert.Equal(base22, fake.Head);
        Assert.Equal("", fake.Git("status", "--porcelain", "--untracked-files=all"));
        Assert.False(File.Exists(fake.ProvenancePath));
    }

    [Fact]
    public void Check_ReportsTheFailingPatchAndFile_ForAnyBase_WithoutTouchingTheCheckout()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        AddConflictingTag22(fake);
        fake.Git("checkout", "-q", FakeAdbc.Tag21);
        byte[] index = File.ReadAllBytes(Path.Combine(fake.Checkout, ".git", "index"));

        ToolResult here = fake.Tool("check");
        ToolResult all = fake.Tool("check", "--all");
        ToolResult other = fake.Tool("check", "--base", FakeAdbc.Tag22);

        Assert.True(here.ExitCode == 0, here.ToString());
        Assert.Contains("  ok       " + FakeAdbc.DisposePatch, here.Stdout);
        Assert.Contains($"=> the series applies to {FakeAdbc.Tag21}.", here.Stdout);
        Assert.Equal(6, all.ExitCode);
        Assert.Contains("Some series do not apply", all.Stdout);
        Assert.Equal(6, other.ExitCode);
        Assert.Contains($"  FAILS    {FakeAdbc.DisposePatch}: {FakeAdbc.DatabaseFile}", other.Stderr);
        Assert.Contains("(1 later patch(es) not checked)", other.Stderr);
        Assert.Contains("apply --3way", other.Stderr);
        Assert.Equal(fake.BaseCommit, fake.Head);
        Assert.Equal("", fake.Git("status", "--porcelain", "--untracked-files=all"));
        Assert.Equal(index, File.ReadAllBytes(Path.Combine(fake.Checkout, ".git", "index")));
        Assert.False(File.Exists(fake.ProvenancePath));
    }

    [Fact]
    public void ThreeWayRebase_StopsForResolution_ThenExportAndReapplyGiveACleanSeries()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        AddConflictingTag22(fake);

        ToolResult stopped = fake.Tool("apply", "--3way");

        Assert.Equal(6, stopped.ExitCode);
        Assert.Contains($"patch {FakeAdbc.DisposePatch} conflicts even with a 3-way merge, in: {FakeAdbc.DatabaseFile}", stopped.Stderr);
        Assert.Contains("am --continue", stopped.Stderr);
        Assert.Contains("UU " + FakeAdbc.DatabaseFile, fake.Git("status", "--porcelain"));
        Assert.Contains("a git am session is in progress", fake.Tool("apply").Stderr);

        // Resolved as a maintainer would: keep both methods, continue, export, prove the new series applies.
        fake.WriteFile(FakeAdbc.DatabaseFile, FakeAdbc.DatabaseSource.Replace("        }\n    }", CloseMethod.Replace("    }", "\n        public void Dispose()\n        {\n        }\n    }")));
        fake.Git("add", FakeAdbc.DatabaseFile);
        fake.GitIn(fake.Checkout, FakeAdbc.Identity("Maintainer", "m@example.com", "2025-02-01T00:00:00+00:00"), "am", "--continue");
        ToolResult finishedByHand = fake.Tool("publish", "-o", "out");
        ToolResult export = fake.Tool("export");

        Assert.Equal(5, finishedByHand.ExitCode);
        Assert.Contains("only partly patched", finishedByHand.Stderr);
        Assert.True(export.ExitCode == 0, export.ToString());
        Assert.Contains("  M  " + FakeAdbc.DisposePatch, export.Stdout);

        fake.Git("reset", "-q", "--hard", FakeAdbc.Tag22);
        ToolResult clean = fake.Tool("apply");

        Assert.True(clean.ExitCode == 0, clean.ToString());
        Assert.Contains("public void Close()", fake.ReadFile(FakeAdbc.DatabaseFile));
        Assert.Contains("public void Dispose()", fake.ReadFile(FakeAdbc.DatabaseFile));
        Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
    }

    [Fact]
    public void APatchWithoutItsHeader_IsReportedByCheck_AndRefusedByApply()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string path = Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), FakeAdbc.ConnectionPatch);
        File.WriteAllText(path, File.ReadAllText(path).Replace("Upstream-Status: not-needed (vendor patch)\nBase: apache-arrow-adbc-21\n", ""));

        ToolResult check = fake.Tool("check");
        ToolResult apply = fake.Tool("apply");

        Assert.Equal(4, check.ExitCode);
        Assert.Contains($"INVALID  {FakeAdbc.ConnectionPatch} lacks the header field(s) Upstream-Status:, Base: in its commit message", check.Stderr);
        Assert.DoesNotContain(FakeAdbc.DisposePatch + " lacks", check.Stderr);
        Assert.Contains("hint: every patch needs Why:, Upstream-Status: and Base:", check.Stderr);
        Assert.Equal(4, apply.ExitCode);
        Assert.Contains(FakeAdbc.ConnectionPatch + " lacks the header field(s) Upstream-Status:, Base:", apply.Stderr);
        Assert.Equal(fake.BaseCommit, fake.Head);
    }

    [Fact]
    public void ASeriesListingAMissingFile_OrAnUnlistedPatch_IsReported()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        File.AppendAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "series"), "# a comment\n\nmissing.patch\n");
        File.WriteAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "stray.patch"), "not listed\n");

        ToolResult check = fake.Tool("check");

        Assert.Equal(4, check.ExitCode);
        Assert.Contains("series lists 'missing.patch' but", check.Stderr);
        Assert.Contains($"{FakeAdbc.Tag21}/stray.patch is not listed in its series file; it is ignored", check.Stderr);
    }

    [Fact]
    public void Check_OfABaseWhoseCommitTheCloneLacks_SaysToFetchIt_AndAnOverlayFolderUpstreamUses_IsRefused()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        fake.WriteBaseJson("apache-arrow-adbc-99", new string('a', 40));
        File.WriteAllText(Path.Combine(fake.SeriesFolder("apache-arrow-adbc-99"), "series"), "");
        // A base of another repository, none of whose bases this clone holds, is left to a clone of that repository.
        fake.WriteBaseJson("v1.0", new string('b', 40), new() { ["repository"] = "other/driver" });

        ToolResult all = fake.Tool("check", "--all");

        Assert.Equal(5, all.ExitCode);
        Assert.Contains("Not checked here: v1.0, bases of other/driver, which this clone does not hold", all.Stdout);
        Assert.Contains($"  => the series applies to {FakeAdbc.Tag21}.", all.Stdout);
        Assert.Contains($"MISSING  commit {new string('a', 40)} (apache-arrow-adbc-99, apache/arrow-adbc) is not in this clone", all.Stderr);
        Assert.Contains("fetch origin tag apache-arrow-adbc-99", all.Stderr);

        // The overlay folder must be new: export leaves it out, so edits of upstream files there would be lost.
        File.WriteAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "base.json"), File.ReadAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "base.json")).Replace("/Memory\"", "\""));
        ToolResult apply = fake.Tool("apply");

        Assert.Equal(4, apply.ExitCode);
        Assert.Contains($"the overlay folder {FakeAdbc.DriverDir} already exists at {FakeAdbc.Tag21}", apply.Stderr);
        Assert.Equal(fake.BaseCommit, fake.Head);
    }

    [Fact]
    public void Bases_ListsTagsAndCommits_AndMarksTheCheckoutsBase()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string base22 = AddConflictingTag22(fake);

        string[] lines = fake.Tool("bases").Stdout.Split('\n');

        Assert.Single(lines, l => l.StartsWith(FakeAdbc.Tag21 + " ", StringComparison.Ordinal) && l.Contains(fake.BaseCommit + "       2  -") && !l.Contains("HEAD"));
        Assert.Single(lines, l => l.StartsWith(FakeAdbc.Tag22 + " ", StringComparison.Ordinal) && l.Contains(base22) && l.EndsWith("HEAD is here", StringComparison.Ordinal));
        Assert.Equal(2, lines.Count(l => l.StartsWith("apache-arrow-adbc-", StringComparison.Ordinal)));
    }
}
