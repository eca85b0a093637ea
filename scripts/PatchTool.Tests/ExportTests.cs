using System.Text;

namespace PatchTool.Tests;

public class ExportTests
{
    [Fact]
    public void Export_OfUnchangedCommits_IsByteIdentical()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        Dictionary<string, byte[]> before = FakeAdbc.Snapshot(fake.SeriesFolder(FakeAdbc.Tag21));
        Assert.Equal(0, fake.Tool("apply").ExitCode);

        ToolResult check = fake.Tool("export", "--check");
        ToolResult export = fake.Tool("export");

        Assert.True(check.ExitCode == 0, check.ToString());
        Assert.Contains("Patches are up to date", check.Stdout);
        Assert.True(export.ExitCode == 0, export.ToString());
        Assert.Contains("Nothing to write", export.Stdout);
        Assert.Equal(before, FakeAdbc.Snapshot(fake.SeriesFolder(FakeAdbc.Tag21)));
    }

    [Fact]
    public void ExportedPatches_AreDeterministicFormatPatchFiles_WithoutTheFilenameTrailer()
    {
        using FakeAdbc fake = FakeAdbc.Create();

        string patch = File.ReadAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), FakeAdbc.DisposePatch));

        Assert.StartsWith("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n", patch);
        Assert.Contains($"From: {FakeAdbc.PatchAuthor}\nDate: Thu, 2 Jan 2025 03:04:05 +0000\n", patch);
        Assert.Contains("Subject: Give DatabricksDatabase a Dispose that releases the memory scope\n", patch);
        Assert.Contains("Upstream-Status: superseded upstream by #3654 in tag 22\nBase: apache-arrow-adbc-21\n\ndiff --git", patch);
        Assert.Matches(@"\nindex [0-9a-f]{40}\.\.[0-9a-f]{40} 100644\n", patch);
        Assert.DoesNotContain("Patch-Filename", patch);
        Assert.DoesNotContain("\n-- \n", patch);
        Assert.DoesNotContain(FakeAdbc.OverlayDir, patch);
        Assert.Equal(
            $"# Test series for the fake tag 21.\n{FakeAdbc.DisposePatch}\n{FakeAdbc.ConnectionPatch}\n",
            File.ReadAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "series")));
    }

    [Fact]
    public void ExportCheck_FailsListingAHandEditedPatch_AndWritesNothing()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        string path = Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), FakeAdbc.ConnectionPatch);
        string edited = File.ReadAllText(path).Replace("Why: connections lease", "Why: (edited by hand) connections lease");
        File.WriteAllText(path, edited);

        ToolResult check = fake.Tool("export", "--check");

        Assert.Equal(7, check.ExitCode);
        Assert.Contains($"error: 1 file(s) in {fake.SeriesFolder(FakeAdbc.Tag21)} differ", check.Stderr);
        Assert.Contains("  M  " + FakeAdbc.ConnectionPatch, check.Stderr);
        Assert.Contains("run `scripts/patch export`", check.Stderr);
        Assert.Equal(edited, File.ReadAllText(path));

        Assert.Equal(0, fake.Tool("export").ExitCode);
        Assert.DoesNotContain("(edited by hand)", File.ReadAllText(path));
        Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
    }

    [Fact]
    public void Export_OfNewCommits_AddsPatchesNamedFromTheSubjectOrThePatchFilenameTrailer_ThatApplyFromScratch()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        fake.WriteFile(FakeAdbc.ConnectionFile, fake.ReadFile(FakeAdbc.ConnectionFile) + "// call-site swap\n");
        fake.CommitAll(FakeAdbc.PatchMessage("Swap the LZ4 call sites (inline reader)", "use the overlay's decoder."));
        fake.WriteFile(FakeAdbc.DatabaseFile, fake.ReadFile(FakeAdbc.DatabaseFile) + "// stamp\n");
        fake.CommitAll(FakeAdbc.PatchMessage("Stamp the series version", "provenance in the binary.") + "Patch-Filename: stamp-version.patch\n");

        ToolResult check = fake.Tool("export", "--check");
        ToolResult export = fake.Tool("export");

        Assert.Equal(7, check.ExitCode);
        Assert.Contains("  A  swap-the-lz4-call-sites-inline-reader.patch", check.Stderr);
        Assert.Contains("  A  stamp-version.patch", check.Stderr);
        Assert.Contains("  M  series", check.Stderr);
        Assert.True(export.ExitCode == 0, export.ToString());
        string folder = fake.SeriesFolder(FakeAdbc.Tag21);
        Assert.EndsWith($"{FakeAdbc.ConnectionPatch}\nswap-the-lz4-call-sites-inline-reader.patch\nstamp-version.patch\n", File.ReadAllText(Path.Combine(folder, "series")));
        string stamp = File.ReadAllText(Path.Combine(folder, "stamp-version.patch"));
        Assert.DoesNotContain("Patch-Filename", stamp);
        Assert.Contains("Base: apache-arrow-adbc-21\n\ndiff --git", stamp);

        Dictionary<string, byte[]> exported = FakeAdbc.Snapshot(folder);
        fake.Git("reset", "-q", "--hard", FakeAdbc.Tag21);
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
        Assert.Equal(exported, FakeAdbc.Snapshot(folder));
    }

    [Fact]
    public void Export_DeletesPatchFilesOfDroppedCommits_AndSkipsOverlayOnlyCommits()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        fake.Git("reset", "-q", "--hard", "HEAD~1");
        fake.WriteFile(FakeAdbc.OverlayDir + "/DatabricksMemoryScope.cs", "// overlay edit in the checkout\n");
        fake.CommitAll("Overlay tweak");

        ToolResult export = fake.Tool("export");

        Assert.True(export.ExitCode == 0, export.ToString());
        Assert.Contains("  D  " + FakeAdbc.ConnectionPatch, export.Stdout);
        Assert.Contains("Overlay tweak: not exported (changes only the overlay folder: copy them to driver-overlay/)", export.Stderr);
        Assert.False(File.Exists(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), FakeAdbc.ConnectionPatch)));
        Assert.Equal($"# Test series for the fake tag 21.\n{FakeAdbc.DisposePatch}\n", File.ReadAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "series")));
    }

    [Fact]
    public void Export_OfACheckoutThatWasNotApplied_SaysWhatToDo()
    {
        using FakeAdbc fake = FakeAdbc.Create();

        ToolResult result = fake.Tool("export");

        Assert.Equal(5, result.ExitCode);
        Assert.Contains("was not patched by `scripts/patch apply`", result.Stderr);
        Assert.Contains("hint: run `scripts/patch apply`", result.Stderr);
    }

    [Theory]
    [InlineData("Give DatabricksDatabase a Dispose", "give-databricksdatabase-a-dispose.patch")]
    [InlineData("  LZ4: swap call-sites (inline/CloudFetch)!  ", "lz4-swap-call-sites-inline-cloudfetch.patch")]
    [InlineData("!!!", "patch.patch")]
    public void NameFromSubject_IsLowerCaseWordsJoinedByDashes(string subject, string expected)
    {
        Assert.Equal(expected, PatchFile.NameFromSubject(subject));
    }

    [Fact]
    public void FilenameTrailer_RoundTripsByteForByte_ForBodyAndSubjectOnlyMessages()
    {
        const string Headers = "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nDate: Thu, 2 Jan 2025 03:04:05 +0000\nSubject: S\n\n";
        foreach (string original in new[] { Headers + "Why: w\nBase: b\n\ndiff --git a/x b/x\n", Headers + "\ndiff --git a/x b/x\n" })
        {
            string with = Encoding.UTF8.GetString(PatchFile.WithFilenameTrailer(Encoding.UTF8.GetBytes(original), "n.patch"));
            byte[] back = PatchFile.WithoutFilenameTrailer(Encoding.UTF8.GetBytes(with), out string? name);

            Assert.Contains("\nPatch-Filename: n.patch\n", with);
            Assert.True(with.IndexOf("Patch-Filename", StringComparison.Ordinal) > with.IndexOf("\n\n", StringComparison.Ordinal), "the trailer must be in the body, not the mail headers");
            Assert.Equal("n.patch", name);
            Assert.Equal(original, Encoding.UTF8.GetString(back));
        }
    }
}
