namespace PatchTool.Tests;

/// <summary>
/// Two tags whose driver sources are identical share one series (patches/shared/common/, included by both tags' series
/// files): either tag applies the same files, export writes a shared patch once, and a tag's own extra patch stays in
/// the tag's folder.
/// </summary>
public class SharedSeriesTests
{
    private const string Shared = "common";

    /// <summary>Upstream lines above the connection class in tag 22: the shared connection patch lands one line lower.</summary>
    private const string LineAboveTheConnection = "// upstream: a line above the connection class in tag 22\n";

    /// <summary>
    /// Moves tag 21's two patches into a shared series and adds tag "22" (same driver sources, or, with
    /// <paramref name="shiftTheConnection"/>, one more line above the connection class) including it; HEAD is at tag 22.
    /// </summary>
    private static string ShareTag21SeriesWithTag22(FakeAdbc fake, bool shiftTheConnection = false)
    {
        string tag21 = fake.SeriesFolder(FakeAdbc.Tag21);
        Directory.CreateDirectory(SharedFolder(fake));
        foreach (string name in new[] { FakeAdbc.DisposePatch, FakeAdbc.ConnectionPatch })
        {
            File.Move(Path.Combine(tag21, name), Path.Combine(SharedFolder(fake), name));
        }

        File.WriteAllText(Path.Combine(SharedFolder(fake), "series"), $"# Shared by both fake tags.\n{FakeAdbc.DisposePatch}\n{FakeAdbc.ConnectionPatch}\n");
        File.WriteAllText(Path.Combine(tag21, "series"), $"# Test series for the fake tag 21.\ninclude {Shared}\n");
        // Whoever moves patches runs export, which lists them in the series READMEs (shared and tag 21) as it does.
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        Assert.Equal(0, fake.Tool("export").ExitCode);
        fake.Git("reset", "-q", "--hard", FakeAdbc.Tag21);
        File.Delete(fake.ProvenancePath);
        // Tag 22 changes a file outside the driver only, as upstream tags 22 and 23 did for the Databricks driver.
        fake.AddBase(FakeAdbc.Tag22, f => f.WriteFile("README.md", "fake arrow-adbc, next release\n"));
        if (shiftTheConnection)
        {
            fake.WriteFile(FakeAdbc.ConnectionFile, LineAboveTheConnection + FakeAdbc.ConnectionSource);
            fake.GitIn(fake.Checkout, FakeAdbc.Identity("Upstream Dev", "dev@example.com", "2024-09-01T10:00:00+00:00"), "commit", "-q", "--amend", "--no-edit", "-a");
            fake.Git("tag", "-f", FakeAdbc.Tag22);
            fake.WriteBaseJson(FakeAdbc.Tag22, fake.Head);
        }

        return SharedFolder(fake);
    }

    /// <summary>The @@ lines of the shared connection patch.</summary>
    private static string HunkHeaders(string sharedFolder) =>
        string.Join("\n", File.ReadAllLines(Path.Combine(sharedFolder, FakeAdbc.ConnectionPatch)).Where(l => l.StartsWith("@@", StringComparison.Ordinal)));

    private static string SharedFolder(FakeAdbc fake) => Path.Combine(fake.Patches, "shared", Shared);

    /// <summary>Back to a fresh tag-21 checkout, applied: the other tag that includes the shared series.</summary>
    private static ToolResult ApplyTag21(FakeAdbc fake)
    {
        fake.Git("reset", "-q", "--hard", FakeAdbc.Tag21);
        return fake.Tool("apply");
    }

    [Fact]
    public void BothTagsApplyTheSharedPatches_AndExportCheckMatchesTheSharedFiles()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        Dictionary<string, byte[]> sharedBefore = FakeAdbc.Snapshot(ShareTag21SeriesWithTag22(fake));

        ToolResult apply22 = fake.Tool("apply");
        ToolResult check22 = fake.Tool("export", "--check");
        string[] bases = fake.Tool("bases").Stdout.Split('\n');

        Assert.True(apply22.ExitCode == 0, apply22.ToString());
        Assert.Contains("Dispose()", fake.ReadFile(FakeAdbc.DatabaseFile));
        Assert.True(check22.ExitCode == 0, check22.ToString());
        Assert.Contains(Path.Combine("shared", Shared), check22.Stdout);
        Assert.Empty(Directory.EnumerateFiles(fake.SeriesFolder(FakeAdbc.Tag22), "*.patch"));
        Assert.Contains(bases, l => l.StartsWith(FakeAdbc.Tag21, System.StringComparison.Ordinal) && l.Contains("      2  " + Shared));
        Assert.Contains(bases, l => l.StartsWith(FakeAdbc.Tag22, System.StringComparison.Ordinal) && l.Contains("      2  " + Shared));

        ToolResult apply21 = ApplyTag21(fake);

        Assert.True(apply21.ExitCode == 0, apply21.ToString());
        Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
        Assert.Equal(sharedBefore, FakeAdbc.Snapshot(SharedFolder(fake)));
    }

    [Fact]
    public void ChangingASharedPatchFromOneTag_WritesItOnce_AndTheOtherTagAppliesTheChange()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        ShareTag21SeriesWithTag22(fake);
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        fake.WriteFile(FakeAdbc.ConnectionFile, fake.ReadFile(FakeAdbc.ConnectionFile).Replace("MemoryScope { get; set; }", "MemoryScope { get; init; }"));
        fake.GitIn(fake.Checkout, FakeAdbc.Identity("Patch Author", "author@example.com", "2025-01-03T04:05:06+00:00"), "commit", "-q", "--amend", "--no-edit", "-a");

        ToolResult export = fake.Tool("export");

        Assert.True(export.ExitCode == 0, export.ToString());
        Assert.Contains($"M  shared/{Shared}/{FakeAdbc.ConnectionPatch}", export.Stdout);
        Assert.Contains($"shared series {Shared} is included by {FakeAdbc.Tag21}, {FakeAdbc.Tag22}", export.Stdout);
        Assert.DoesNotContain("M  series", export.Stdout);
        Assert.Empty(Directory.EnumerateFiles(fake.SeriesFolder(FakeAdbc.Tag22), "*.patch"));

        Assert.Equal(0, ApplyTag21(fake).ExitCode);
        Assert.Contains("MemoryScope { get; init; }", fake.ReadFile(FakeAdbc.ConnectionFile));
    }

    [Fact]
    public void ATagsOwnPatchAfterTheSharedOnes_IsExportedIntoTheTagsFolder_AndTheSeriesKeepsTheInclude()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        Dictionary<string, byte[]> sharedBefore = FakeAdbc.Snapshot(ShareTag21SeriesWithTag22(fake));
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        fake.WriteFile("README.md", "fake arrow-adbc, next release, patched\n");
        fake.CommitAll(FakeAdbc.PatchMessage("Note the patch in the README", "tag 22 only.", baseTag: FakeAdbc.Tag22), FakeAdbc.PatchAuthor, "2025-02-01T00:00:00+00:00");

        ToolResult export = fake.Tool("export");

        Assert.True(export.ExitCode == 0, export.ToString());
        Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
        Assert.True(File.Exists(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag22), "note-the-patch-in-the-readme.patch")));
        Assert.EndsWith($"include {Shared}\nnote-the-patch-in-the-readme.patch\n", File.ReadAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag22), "series")));
        Assert.Equal(sharedBefore, FakeAdbc.Snapshot(SharedFolder(fake)));
        Assert.Equal($"# Test series for the fake tag 21.\ninclude {Shared}\n", File.ReadAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "series")));
    }

    [Fact]
    public void ANewPatchNamedInTheSharedSeriesBeforeExport_IsExportedIntoTheSharedFolder_ForEveryTagThatIncludesIt()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        ShareTag21SeriesWithTag22(fake);
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        fake.WriteFile(FakeAdbc.ConnectionFile, fake.ReadFile(FakeAdbc.ConnectionFile) + "// shared follow-up\n");
        fake.CommitAll(FakeAdbc.PatchMessage("Mark the connection file", "both tags.", baseTag: FakeAdbc.Tag22), FakeAdbc.PatchAuthor, "2025-02-01T00:00:00+00:00");
        // How a new commit joins a shared series: its patch's name is listed there before the export.
        const string NewPatch = "mark-the-connection-file.patch";
        File.AppendAllText(Path.Combine(SharedFolder(fake), "series"), NewPatch + "\n");

        ToolResult export = fake.Tool("export");

        Assert.True(export.ExitCode == 0, export.ToString());
        Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
        Assert.Contains($"A  shared/{Shared}/{NewPatch}", export.Stdout);
        Assert.Empty(Directory.EnumerateFiles(fake.SeriesFolder(FakeAdbc.Tag22), "*.patch"));
        Assert.Equal($"# Shared by both fake tags.\n{FakeAdbc.DisposePatch}\n{FakeAdbc.ConnectionPatch}\n{NewPatch}\n", File.ReadAllText(Path.Combine(SharedFolder(fake), "series")));

        // The other tag gets the new patch through its include, with no edit of its own.
        Assert.Equal(0, ApplyTag21(fake).ExitCode);
        Assert.EndsWith("// shared follow-up\n", fake.ReadFile(FakeAdbc.ConnectionFile));
    }

    [Fact]
    public void ASharedPatchMadeOnAnotherTag_ThatDiffersOnlyInLineNumbersAndBlobIds_IsKeptByExport()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        Dictionary<string, byte[]> sharedBefore = FakeAdbc.Snapshot(ShareTag21SeriesWithTag22(fake, shiftTheConnection: true));
        Assert.Equal(0, fake.Tool("apply").ExitCode);

        ToolResult check = fake.Tool("export", "--check");
        ToolResult export = fake.Tool("export");

        Assert.True(check.ExitCode == 0, check.ToString());
        // "kept" is printed only where the bytes differ: tag 22's export of the connection patch has other index and @@ lines.
        Assert.Contains($"kept shared/{Shared}/{FakeAdbc.ConnectionPatch}", check.Stdout);
        Assert.DoesNotContain($"kept shared/{Shared}/{FakeAdbc.DisposePatch}", check.Stdout);
        Assert.True(export.ExitCode == 0, export.ToString());
        Assert.Equal(sharedBefore, FakeAdbc.Snapshot(SharedFolder(fake)));
        Assert.StartsWith(LineAboveTheConnection, fake.ReadFile(FakeAdbc.ConnectionFile));
        Assert.Contains("MemoryScope { get; set; }", fake.ReadFile(FakeAdbc.ConnectionFile));
    }

    [Fact]
    public void ASharedPatchWhoseChangedLinesDiffer_IsFlaggedAndRewritten_EvenAtOtherLineNumbers()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string tag21Hunk = HunkHeaders(ShareTag21SeriesWithTag22(fake, shiftTheConnection: true));
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        fake.WriteFile(FakeAdbc.ConnectionFile, fake.ReadFile(FakeAdbc.ConnectionFile).Replace("MemoryScope { get; set; }", "MemoryScope { get; init; }"));
        fake.GitIn(fake.Checkout, FakeAdbc.Identity("Patch Author", "author@example.com", "2025-01-03T04:05:06+00:00"), "commit", "-q", "--amend", "--no-edit", "-a");

        ToolResult check = fake.Tool("export", "--check");
        ToolResult export = fake.Tool("export");

        Assert.Equal(7, check.ExitCode);
        Assert.Contains($"M  shared/{Shared}/{FakeAdbc.ConnectionPatch}", check.Stderr);
        Assert.True(export.ExitCode == 0, export.ToString());
        string rewritten = File.ReadAllText(Path.Combine(SharedFolder(fake), FakeAdbc.ConnectionPatch));
        Assert.Contains("+        internal DatabricksMemoryScope? MemoryScope { get; init; }", rewritten);
        // The whole file is now this base's export, with tag 22's line numbers (one lower than tag 21's).
        Assert.StartsWith("@@ -3,5 +3,7 @@", tag21Hunk);
        Assert.StartsWith("@@ -4,5 +4,7 @@", HunkHeaders(SharedFolder(fake)));
        Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
    }

    [Fact]
    public void ATagsOwnPatchAtOtherLineNumbers_IsStillRewritten_OnlySharedPatchesAreKept()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        // Tag 22 with its own copy of tag 21's series (no shared series), the connection one line lower.
        fake.AddBase(FakeAdbc.Tag22, f => f.WriteFile(FakeAdbc.ConnectionFile, LineAboveTheConnection + FakeAdbc.ConnectionSource));
        Assert.Equal(0, fake.Tool("apply").ExitCode);

        ToolResult check = fake.Tool("export", "--check");

        Assert.Equal(7, check.ExitCode);
        Assert.Contains("M  " + FakeAdbc.ConnectionPatch, check.Stderr);
        Assert.DoesNotContain("kept", check.Stdout);
    }
}
