namespace PatchTool.Tests;

/// <summary>
/// A base shaped like adbc-drivers/databricks: a tag with a '/' (csharp/v1.1.7 upstream), a driver in another namespace
/// than the overlay's, and a submodule the driver builds from (a second local repository, as csharp/hiveserver2 is).
/// The fake tag-21 series applies to it unchanged.
/// </summary>
public class NewHomeBaseTests
{
    private const string Tag = "csharp/v9.9.9";
    private const string Submodule = "csharp/hiveserver2";
    private const string DriverNamespace = "AdbcDrivers.Databricks";

    /// <summary>An overlay file that also spells the overlay's namespace in a string, as the meter name does.</summary>
    private const string MeterSource = "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    internal static class Meter\n    {\n        public const string Name = \"Apache.Arrow.Adbc.Drivers.Databricks.Memory\";\n    }\n}\n";

    /// <summary>
    /// Tag 21's commit plus a submodule whose repository has two commits (the second pinned), tagged <see cref="Tag"/>,
    /// with patches/csharp-v9.9.9/ holding tag 21's series. Returns the submodule's first commit, "another commit than pinned".
    /// </summary>
    private static string AddNewHomeBase(FakeAdbc fake)
    {
        string repository = Path.Combine(fake.Root, "hiveserver2");
        Dictionary<string, string?> identity = FakeAdbc.Identity("Upstream Dev", "dev@example.com", "2024-06-01T10:00:00+00:00");
        Directory.CreateDirectory(repository);
        fake.GitIn(repository, null, "init", "-q");
        File.WriteAllText(Path.Combine(repository, "HiveServer2.cs"), "// first\n");
        fake.GitIn(repository, null, "add", "-A");
        fake.GitIn(repository, identity, "commit", "-q", "-m", "first");
        string older = fake.GitIn(repository, null, "rev-parse", "HEAD");
        File.WriteAllText(Path.Combine(repository, "HiveServer2.cs"), "// second\n");
        fake.GitIn(repository, identity, "commit", "-q", "-am", "second");

        string commit = fake.AddBase("csharp-v9.9.9", f => f.GitIn(f.Checkout, null, "-c", "protocol.file.allow=always", "submodule", "add", "-q", repository, Submodule));
        fake.Git("tag", Tag);
        fake.WriteBaseJson(Tag, commit, new() { ["repository"] = "adbc-drivers/databricks", ["overlayNamespace"] = DriverNamespace, ["submodules"] = new[] { Submodule } });
        return older;
    }

    private static void UpdateSubmodules(FakeAdbc fake) =>
        fake.GitIn(fake.Checkout, null, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "--recursive", "-q");

    [Fact]
    public void Apply_DeclaresTheOverlayInTheDriversNamespaceOnly_AndCheckAndExportTakeThatCopyAsTheOverlay()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        File.WriteAllText(Path.Combine(fake.Overlay, "Meter.cs"), MeterSource);
        AddNewHomeBase(fake);

        ToolResult bases = fake.Tool("bases");
        ToolResult apply = fake.Tool("apply");

        Assert.True(apply.ExitCode == 0, apply.ToString());
        Assert.Contains($"Done: {Tag} + series 1.0.0", apply.Stdout);
        Assert.Contains(bases.Stdout.Split('\n'), l => l.StartsWith(Tag + " ", System.StringComparison.Ordinal) && l.Contains("adbc-drivers/databricks"));
        // Only the declaration moves; the string that spells the overlay's namespace (a meter name) stays as it was.
        Assert.Equal(MeterSource.Replace("namespace Apache.Arrow.Adbc.Drivers.Databricks\n", $"namespace {DriverNamespace}\n"), fake.ReadFile(FakeAdbc.OverlayDir + "/Meter.cs"));
        Assert.StartsWith($"namespace {DriverNamespace}\n", fake.ReadFile(FakeAdbc.OverlayDir + "/Lz4/Lz4Helper.cs"));
        Assert.Contains($"namespace {DriverNamespace}\n", fake.ReadFile(FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs"));
        Assert.Contains($"public const string BaseTag = \"{Tag}\";", fake.ReadFile(FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs"));

        ToolResult check = fake.Tool("check");
        ToolResult exportCheck = fake.Tool("export", "--check");
        ToolResult again = fake.Tool("apply");

        Assert.True(check.ExitCode == 0, check.ToString());
        Assert.True(exportCheck.ExitCode == 0, exportCheck.ToString());
        Assert.True(again.ExitCode == 0 && again.Stdout.Contains("Already patched"), again.ToString());
    }

    [Fact]
    public void OverlayExclude_LeavesThoseOverlayFilesOutOfThatBase_AndAStaleNameIsAnError()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        File.WriteAllText(Path.Combine(fake.Overlay, "Meter.cs"), MeterSource);
        string commit = fake.AddBase("csharp-v9.9.9", f => File.WriteAllText(Path.Combine(f.Checkout, "RELEASE"), "9.9.9\n"));
        fake.Git("tag", Tag);
        fake.WriteBaseJson(Tag, commit, new() { ["repository"] = "adbc-drivers/databricks", ["overlayNamespace"] = DriverNamespace, ["overlayExclude"] = new[] { "Meter.cs" } });

        ToolResult apply = fake.Tool("apply");

        Assert.True(apply.ExitCode == 0, apply.ToString());
        Assert.False(File.Exists(Path.Combine(fake.Checkout, FakeAdbc.OverlayDir, "Meter.cs")), "an excluded overlay file was copied");
        Assert.True(File.Exists(Path.Combine(fake.Checkout, FakeAdbc.OverlayDir, "Lz4", "Lz4Helper.cs")));

        fake.WriteBaseJson(Tag, commit, new() { ["repository"] = "adbc-drivers/databricks", ["overlayNamespace"] = DriverNamespace, ["overlayExclude"] = new[] { "Gone.cs" } });
        ToolResult check = fake.Tool("check");

        Assert.NotEqual(0, check.ExitCode);
        Assert.Contains("\"overlayExclude\" names 'Gone.cs', which is not an overlay file", check.Stderr);
    }

    [Fact]
    public void ACheckoutWithoutItsSubmodule_OrWithItAtAnotherCommit_IsToldToUpdateThem()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string older = AddNewHomeBase(fake);
        string baseCommit = fake.Head;
        fake.Git("submodule", "deinit", "-q", "-f", Submodule);

        ToolResult missing = fake.Tool("apply");
        ToolResult publish = fake.Tool("publish", "--allow-unpatched", "-o", "out");

        Assert.Equal(5, missing.ExitCode);
        Assert.Contains($"{Submodule} is not checked out", missing.Stderr);
        Assert.Contains("submodule update --init --recursive`", missing.Stderr);
        Assert.Equal(baseCommit, fake.Head);
        Assert.Equal(5, publish.ExitCode);
        Assert.Contains($"{Submodule} is not checked out", publish.Stderr);

        UpdateSubmodules(fake);
        fake.GitIn(Path.Combine(fake.Checkout, Submodule), null, "checkout", "-q", older);
        ToolResult elsewhere = fake.Tool("apply");

        Assert.Equal(5, elsewhere.ExitCode);
        Assert.Contains($"{Submodule} is at {older[..12]}, not at the commit {Tag} pins", elsewhere.Stderr);

        UpdateSubmodules(fake);
        Assert.Equal(0, fake.Tool("apply").ExitCode);
    }

    [Fact]
    public void ABaseFolderMustBeItsTagWithSlashesAsDashes()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        AddNewHomeBase(fake);
        Directory.Move(Path.Combine(fake.Patches, "csharp-v9.9.9"), Path.Combine(fake.Patches, "v9.9.9"));

        ToolResult bases = fake.Tool("bases");

        Assert.Equal(4, bases.ExitCode);
        Assert.Contains($"has \"tag\": \"{Tag}\" but lives in folder 'v9.9.9'; the folder name must be the tag, with '/' written as '-'", bases.Stderr);
    }
}
