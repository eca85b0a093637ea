using System.Globalization;

namespace PatchTool.Tests;

public class ApplyTests
{
    [Fact]
    public void Apply_CommitsTheOverlayThenEachPatch_PreservingAuthorDateAndMessage()
    {
        using FakeAdbc fake = FakeAdbc.Create();

        ToolResult result = fake.Tool("apply");

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("applied " + FakeAdbc.DisposePatch, result.Stdout);
        string[] log = fake.Git("log", "--format=%an <%ae>%x09%aI%x09%s", "--reverse", fake.BaseCommit + "..HEAD").Split('\n');
        Assert.Equal("dbxmem patch tool <patch-tool@dbxmem.invalid>\t2024-06-01T10:00:00+00:00\tchore(csharp): add the dbxmem memory overlay (series 1.0.0)", log[0]);
        Assert.Equal($"{FakeAdbc.PatchAuthor}\t{FakeAdbc.DisposePatchDate}\tGive DatabricksDatabase a Dispose that releases the memory scope", log[1]);
        Assert.EndsWith("\tPass the memory scope to DatabricksConnection", log[2]);
        Assert.Equal(3, log.Length);
        // The message keeps the DEP-3 header and gains the trailer that pins the export name.
        string message = fake.Git("log", "-1", "--format=%B", "HEAD~1");
        Assert.Contains("Upstream-Status: superseded upstream by #3654 in tag 22", message);
        Assert.Contains("Patch-Filename: " + FakeAdbc.DisposePatch, message);
        // The overlay commit holds the overlay sources and the generated file; the README and the nested project stay out.
        Assert.Equal(
            ["DatabricksMemoryScope.cs", "Lz4/Lz4Helper.cs", "PatchSeriesInfo.cs"],
            fake.Git("show", "--name-only", "--format=", "HEAD~2").Split('\n').Select(f => f[(FakeAdbc.OverlayDir.Length + 1)..]).Order(StringComparer.Ordinal));
        Assert.Equal(File.ReadAllText(Path.Combine(fake.Overlay, "Lz4", "Lz4Helper.cs")), fake.ReadFile(FakeAdbc.OverlayDir + "/Lz4/Lz4Helper.cs"));
        Assert.Contains("public void Dispose()", fake.ReadFile(FakeAdbc.DatabaseFile));
        Assert.Contains("MemoryScope", fake.ReadFile(FakeAdbc.ConnectionFile));
        Assert.Equal("", fake.Git("status", "--porcelain"));
        Assert.Equal("main", fake.Git("rev-parse", "--abbrev-ref", "HEAD"));

        string info = fake.ReadFile(FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs");
        string hash = JsonDocument.Parse(File.ReadAllText(fake.ProvenancePath)).RootElement.GetProperty("seriesHash").GetString()!;
        Assert.Contains("namespace Apache.Arrow.Adbc.Drivers.Databricks\n", info);
        Assert.Contains("public const string SeriesVersion = \"1.0.0\";", info);
        Assert.Contains($"public const string BaseTag = \"{FakeAdbc.Tag21}\";", info);
        Assert.Contains($"public const string BaseCommit = \"{fake.BaseCommit}\";", info);
        Assert.Contains($"public const string SeriesHash = \"{hash}\";", info);
        Assert.Contains("Series-Hash: " + hash, fake.Git("log", "-1", "--format=%B", "HEAD~2"));
    }

    [Fact]
    public void Apply_RecordsProvenanceWithEveryField()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        DateTimeOffset before = DateTimeOffset.UtcNow.AddSeconds(-2);

        Assert.Equal(0, fake.Tool("apply").ExitCode);

        JsonElement p = JsonDocument.Parse(File.ReadAllText(fake.ProvenancePath)).RootElement;
        Assert.Equal(
            ["schema", "toolVersion", "state", "baseTag", "baseCommit", "seriesVersion", "seriesHash", "driverDir", "overlayDir", "driverProject", "overlayCommit", "patchedHead", "threeWay", "patches", "overlayFiles", "appliedAtUtc"],
            p.EnumerateObject().Select(o => o.Name));
        Assert.Equal(
            ["dbxmem-patch-provenance/1", "2.1.0", "applied", FakeAdbc.Tag21, fake.BaseCommit, "1.0.0", FakeAdbc.DriverDir, FakeAdbc.OverlayDir, FakeAdbc.DriverProject, fake.Git("rev-parse", "HEAD~2"), fake.Head],
            new[] { "schema", "toolVersion", "state", "baseTag", "baseCommit", "seriesVersion", "driverDir", "overlayDir", "driverProject", "overlayCommit", "patchedHead" }.Select(n => p.GetProperty(n).GetString()));
        Assert.Matches("^sha256:[0-9a-f]{64}$", p.GetProperty("seriesHash").GetString());
        Assert.False(p.GetProperty("threeWay").GetBoolean());
        JsonElement[] patches = p.GetProperty("patches").EnumerateArray().ToArray();
        Assert.Equal([FakeAdbc.DisposePatch, FakeAdbc.ConnectionPatch], patches.Select(e => e.GetProperty("name").GetString()));
        Assert.Equal(["Give DatabricksDatabase a Dispose that releases the memory scope", "Pass the memory scope to DatabricksConnection"], patches.Select(e => e.GetProperty("subject").GetString()));
        Assert.Equal([fake.Git("rev-parse", "HEAD~1"), fake.Head], patches.Select(e => e.GetProperty("commit").GetString()));
        Assert.All(patches, e => Assert.Equal(Hashing.Sha256Hex(File.ReadAllBytes(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), e.GetProperty("name").GetString()!))), e.GetProperty("sha256").GetString()));
        JsonElement[] overlay = p.GetProperty("overlayFiles").EnumerateArray().ToArray();
        Assert.Equal(
            [FakeAdbc.OverlayDir + "/DatabricksMemoryScope.cs", FakeAdbc.OverlayDir + "/Lz4/Lz4Helper.cs", FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs"],
            overlay.Select(o => o.GetProperty("path").GetString()));
        Assert.All(overlay, o => Assert.Equal(Hashing.Sha256Hex(File.ReadAllBytes(Path.Combine(fake.Checkout, o.GetProperty("path").GetString()!))), o.GetProperty("sha256").GetString()));
        Assert.Equal([false, false, true], overlay.Select(o => o.GetProperty("generated").GetBoolean()));
        DateTimeOffset applied = DateTimeOffset.Parse(p.GetProperty("appliedAtUtc").GetString()!, CultureInfo.InvariantCulture);
        Assert.InRange(applied, before, DateTimeOffset.UtcNow.AddSeconds(2));
    }

    [Fact]
    public void Apply_Twice_IsANoOp_AndAfterAResetToTheTag_ReproducesTheSameCommits()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        string head = fake.Head;
        string provenance = File.ReadAllText(fake.ProvenancePath);

        ToolResult again = fake.Tool("apply");

        Assert.True(again.ExitCode == 0, again.ToString());
        Assert.Contains("Already patched", again.Stdout);
        Assert.Contains("nothing to do", again.Stdout);
        Assert.Equal(head, fake.Head);
        Assert.Equal(provenance, File.ReadAllText(fake.ProvenancePath));

        // How a patched checkout is undone: git itself. The record of the earlier apply is then stale, and dropped.
        fake.Git("reset", "-q", "--hard", FakeAdbc.Tag21);
        ToolResult afresh = fake.Tool("apply");

        Assert.True(afresh.ExitCode == 0, afresh.ToString());
        Assert.Contains("no longer contains the commits of an earlier apply", afresh.Stderr);
        // A fixed tool identity and author dates as committer dates: the same series on the same base gives the same ids anywhere.
        Assert.Equal(head, fake.Head);
    }

    [Fact]
    public void Apply_WhenTheRepositorysSeriesChangedSince_SaysHowToApplyItAgain()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        File.WriteAllText(Path.Combine(fake.Patches, "VERSION"), "1.0.1\n");

        ToolResult result = fake.Tool("apply");

        Assert.Equal(5, result.ExitCode);
        Assert.Contains("already patched (apache-arrow-adbc-21), but not by this exact series: it was patched by series 1.0.0", result.Stderr);
        Assert.Contains($"reset --hard {fake.BaseCommit[..12]}` ({FakeAdbc.Tag21}) and `scripts/patch apply` again", result.Stderr);
    }

    [Fact]
    public void Apply_OnACommitThatIsNotABase_FailsWithTheSupportedBasesAndWhatToDo()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        fake.WriteFile("README.md", "local change\n");
        string head = fake.CommitAll("local commit");

        ToolResult result = fake.Tool("apply");

        Assert.Equal(5, result.ExitCode);
        Assert.Contains("is not a supported base. It is 1 commit(s) after " + FakeAdbc.Tag21, result.Stderr);
        Assert.Contains($"Supported bases: {FakeAdbc.Tag21} ({fake.BaseCommit[..12]})", result.Stderr);
        Assert.Contains($"hint: check out a supported tag first, e.g. `git -C \"{fake.Checkout}\" checkout {FakeAdbc.Tag21}`", result.Stderr);
        Assert.Equal(head, fake.Head);
        Assert.False(File.Exists(fake.ProvenancePath));
    }

    [Fact]
    public void Apply_RefusesUncommittedChanges_ButNotUntrackedFilesOutsideTheDriver()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        fake.WriteFile(FakeAdbc.ConnectionFile, FakeAdbc.ConnectionSource + "// local edit\n");
        fake.WriteFile(FakeAdbc.DriverDir + "/Untracked.cs", "// untracked in the driver folder\n");
        fake.WriteFile("notes.txt", "untracked outside the driver folder does not count\n");

        ToolResult refused = fake.Tool("apply");

        Assert.Equal(5, refused.ExitCode);
        Assert.Contains(" M " + FakeAdbc.ConnectionFile, refused.Stderr);
        Assert.Contains("?? " + FakeAdbc.DriverDir + "/Untracked.cs", refused.Stderr);
        Assert.DoesNotContain("notes.txt", refused.Stderr);
        Assert.Contains("stash push --include-untracked", refused.Stderr);
        Assert.Equal(fake.BaseCommit, fake.Head);
        Assert.False(File.Exists(fake.ProvenancePath));

        fake.GitIn(fake.Checkout, FakeAdbc.Identity("Dev", "dev@example.com", "2024-06-01T10:00:00+00:00"), "stash", "push", "-q", "--include-untracked", "--", FakeAdbc.DriverDir);
        Assert.True(fake.Tool("apply").ExitCode == 0);
        Assert.True(File.Exists(Path.Combine(fake.Checkout, "notes.txt")));
    }
}
