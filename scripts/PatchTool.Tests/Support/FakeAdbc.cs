namespace PatchTool.Tests.Support;

/// <summary>
/// A temporary git repository shaped like apache/arrow-adbc (a Databricks driver folder, a net10.0 project, a release
/// tag), a patches folder whose two-patch series was made as maintainers make one (apply, commit, export), and an
/// overlay folder. Git runs with an empty global configuration and no system one, as on a CI machine without an identity.
/// </summary>
internal sealed class FakeAdbc : IDisposable
{
    public const string Tag21 = "apache-arrow-adbc-21";
    public const string Tag22 = "apache-arrow-adbc-22";
    public const string DriverDir = "csharp/src/Drivers/Databricks";
    public const string OverlayDir = DriverDir + "/Memory";
    public const string DriverProject = DriverDir + "/Fake.Databricks.csproj";
    public const string DatabaseFile = DriverDir + "/DatabricksDatabase.cs";
    public const string ConnectionFile = DriverDir + "/DatabricksConnection.cs";
    public const string DisposePatch = "give-databricksdatabase-a-dispose-that-releases-the-memory-scope.patch";
    public const string ConnectionPatch = "pass-the-memory-scope-to-databricksconnection.patch";
    public const string PatchAuthor = "Patch Author <author@example.com>";
    public const string DisposePatchDate = "2025-01-02T03:04:05+00:00";
    public const string DatabaseSource = "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    public sealed class DatabricksDatabase\n    {\n        public string Connect()\n        {\n            return \"connection\";\n        }\n    }\n}\n";
    public const string ConnectionSource = "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    public sealed class DatabricksConnection\n    {\n        public int Timeout { get; set; }\n    }\n}\n";
    public const string ProjectSource = "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net10.0</TargetFramework>\n    <VersionPrefix>0.21.0</VersionPrefix>\n    <IsPackable>true</IsPackable>\n    <Nullable>enable</Nullable>\n  </PropertyGroup>\n</Project>\n";

    // Building the fixture takes ~40 git processes: it is built once per test run and copied for each test.
    private static readonly Lazy<FakeAdbc> Template = new(Build);
    private readonly TempDirectory temp;

    private FakeAdbc(string? parent = null) => temp = new TempDirectory(parent: parent);

    public string Root => temp.Path;

    public string Checkout => temp.Combine("adbc");

    public string Patches => temp.Combine("patches");

    public string Overlay => temp.Combine("overlay");

    public string BaseCommit { get; private set; } = "";

    public string Head => Git("rev-parse", "HEAD");

    public string ProvenancePath => Path.Combine(Checkout, ".git", "dbxmem-patch", "provenance.json");

    /// <summary>Environment overrides for every git and tool run: an empty global configuration, no identity from the developer's machine.</summary>
    public Dictionary<string, string?> Environment => new()
    {
        ["GIT_CONFIG_GLOBAL"] = temp.Combine("empty.gitconfig"),
        ["GIT_CONFIG_NOSYSTEM"] = "1",
        ["GIT_TERMINAL_PROMPT"] = "0",
        ["GIT_AUTHOR_NAME"] = null,
        ["GIT_AUTHOR_EMAIL"] = null,
        ["GIT_COMMITTER_NAME"] = null,
        ["GIT_COMMITTER_EMAIL"] = null,
    };

    public static FakeAdbc Create()
    {
        var fake = new FakeAdbc { BaseCommit = Template.Value.BaseCommit };
        CopyDirectory(Template.Value.Root, fake.Root);
        return fake;
    }

    /// <summary>A fresh fixture with the fake series applied (the tool's apply, asserted to succeed).</summary>
    public static FakeAdbc CreateApplied()
    {
        FakeAdbc fake = Create();
        ToolResult apply = fake.Tool("apply");
        Assert.True(apply.ExitCode == 0, apply.ToString());
        return fake;
    }

    public string SeriesFolder(string tag) => Path.Combine(Patches, tag);

    /// <summary>Runs the tool in-process against this fixture's checkout, patches and overlay.</summary>
    public ToolResult Tool(params string[] args) => ToolWithEnvironment([.. args, "--adbc", Checkout, "--patches", Patches, "--overlay", Overlay], Environment);

    public ToolResult ToolWithEnvironment(string[] args, IReadOnlyDictionary<string, string?> environment)
    {
        using var stdout = new StringWriter();
        using var stderr = new StringWriter();
        int exit = Program.Run(args, stdout, stderr, environment, Root);
        return new ToolResult(exit, stdout.ToString(), stderr.ToString());
    }

    /// <summary>Runs git in the checkout; returns trimmed stdout, or fails the test with git's output.</summary>
    public string Git(params string[] args) => GitIn(Checkout, null, args);

    public string GitIn(string directory, Dictionary<string, string?>? extra, params string[] args)
    {
        ProcessResult result = ProcessRunner.Run("git", args, directory, Environment.Concat(extra ?? []).GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.Last().Value));
        return result.Succeeded ? result.Stdout.Trim() : throw new InvalidOperationException($"git {string.Join(" ", args)} failed ({result.ExitCode}): {result.Output}");
    }

    public void WriteFile(string relative, string content)
    {
        string path = Path.Combine(Checkout, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, content);
    }

    public string ReadFile(string relative) => File.ReadAllText(Path.Combine(Checkout, relative));

    /// <summary>Commits everything with a fixed author, committer and date, so ids are reproducible.</summary>
    public string CommitAll(string message, string author = "Upstream Dev <dev@example.com>", string date = "2024-06-01T10:00:00+00:00")
    {
        Git("add", "-A");
        string name = author[..author.IndexOf(" <", StringComparison.Ordinal)], email = author[(name.Length + 2)..^1];
        GitIn(Checkout, Identity(name, email, date), "commit", "-q", "--no-verify", "-m", message);
        return Head;
    }

    public static Dictionary<string, string?> Identity(string name, string email, string date) => new()
    {
        ["GIT_AUTHOR_NAME"] = name,
        ["GIT_AUTHOR_EMAIL"] = email,
        ["GIT_AUTHOR_DATE"] = date,
        ["GIT_COMMITTER_NAME"] = name,
        ["GIT_COMMITTER_EMAIL"] = email,
        ["GIT_COMMITTER_DATE"] = date,
    };

    /// <summary>A commit message with the DEP-3-like header every patch needs.</summary>
    public static string PatchMessage(string subject, string why, string upstreamStatus = "superseded upstream by #3654 in tag 22", string baseTag = Tag21) =>
        $"{subject}\n\nWhy: {why}\nUpstream-Status: {upstreamStatus}\nBase: {baseTag}\n";

    /// <summary>Every file of a folder, by name, as bytes (to compare before and after).</summary>
    public static Dictionary<string, byte[]> Snapshot(string folder) => Directory.EnumerateFiles(folder).ToDictionary(f => Path.GetFileName(f), File.ReadAllBytes);

    /// <summary>
    /// Another upstream "release": tag 21's commit changed by <paramref name="change"/>, tagged <paramref name="tag"/>,
    /// with a patches folder holding a copy of tag 21's series. HEAD is left at the new tag.
    /// </summary>
    public string AddBase(string tag, Action<FakeAdbc> change)
    {
        Git("checkout", "-q", "--detach", BaseCommit);
        change(this);
        string commit = CommitAll("Upstream release " + tag, date: "2024-09-01T10:00:00+00:00");
        Git("tag", tag);
        Directory.CreateDirectory(SeriesFolder(tag));
        foreach (string file in Directory.EnumerateFiles(SeriesFolder(Tag21)).Where(f => Path.GetFileName(f) != "base.json"))
        {
            File.Copy(file, Path.Combine(SeriesFolder(tag), Path.GetFileName(file)));
        }

        WriteBaseJson(tag, commit);
        return commit;
    }

    public void WriteBaseJson(string tag, string commit, Dictionary<string, object>? extra = null)
    {
        var baseJson = new Dictionary<string, object> { ["tag"] = tag, ["commit"] = commit, ["driverDir"] = DriverDir, ["overlayDir"] = OverlayDir, ["driverProject"] = DriverProject };
        foreach ((string key, object value) in extra ?? [])
        {
            baseJson[key] = value;
        }

        Directory.CreateDirectory(SeriesFolder(BaseInfo.FolderName(tag)));
        File.WriteAllText(Path.Combine(SeriesFolder(BaseInfo.FolderName(tag)), "base.json"), JsonSerializer.Serialize(baseJson));
    }

    public void Dispose() => temp.Dispose();

    private static FakeAdbc Build()
    {
        // Beside the test binaries: a test host killed before ProcessExit leaves it in artifacts/, not in the temp folder.
        var fake = new FakeAdbc(AppContext.BaseDirectory);
        AppDomain.CurrentDomain.ProcessExit += (_, _) => fake.Dispose();
        File.WriteAllText(fake.temp.Combine("empty.gitconfig"), "");
        Directory.CreateDirectory(fake.Checkout);
        fake.Git("init", "-q", "-b", "main");
        fake.WriteFile(".gitignore", "bin/\nobj/\n");
        fake.WriteFile(DatabaseFile, DatabaseSource);
        fake.WriteFile(ConnectionFile, ConnectionSource);
        fake.WriteFile(DriverProject, ProjectSource);
        fake.BaseCommit = fake.CommitAll("chore: update versions for 21");
        fake.Git("tag", Tag21);

        Directory.CreateDirectory(Path.Combine(fake.Overlay, "Lz4"));
        File.WriteAllText(Path.Combine(fake.Overlay, "DatabricksMemoryScope.cs"), "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    internal sealed class DatabricksMemoryScope\n    {\n        public string Version => PatchSeriesInfo.SeriesVersion;\n    }\n}\n");
        File.WriteAllText(Path.Combine(fake.Overlay, "Lz4", "Lz4Helper.cs"), "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    internal static class Lz4Helper\n    {\n        public const int BlockSize = 4 * 1024 * 1024;\n    }\n}\n");
        // Not overlay source: a README and a folder with its own project (the overlay's tests) must not be copied.
        File.WriteAllText(Path.Combine(fake.Overlay, "README.md"), "overlay readme\n");
        Directory.CreateDirectory(Path.Combine(fake.Overlay, "Tests"));
        File.WriteAllText(Path.Combine(fake.Overlay, "Tests", "Tests.csproj"), "<Project />\n");
        File.WriteAllText(Path.Combine(fake.Overlay, "Tests", "ScopeTests.cs"), "// a test, not driver source\n");

        fake.WriteBaseJson(Tag21, fake.BaseCommit);
        File.WriteAllText(Path.Combine(fake.Patches, "VERSION"), "1.0.0\n");
        File.WriteAllText(Path.Combine(fake.SeriesFolder(Tag21), "series"), "# Test series for the fake tag 21.\n");
        Require(fake.Tool("apply"), "apply (empty series)");
        fake.WriteFile(DatabaseFile, DatabaseSource.Replace("        }\n    }", "        }\n\n        public void Dispose()\n        {\n        }\n    }"));
        fake.CommitAll(PatchMessage("Give DatabricksDatabase a Dispose that releases the memory scope", "the database owns the memory scope; disposing it must release the pooled memory."), PatchAuthor, DisposePatchDate);
        fake.WriteFile(ConnectionFile, ConnectionSource.Replace("{ get; set; }\n", "{ get; set; }\n\n        internal DatabricksMemoryScope? MemoryScope { get; set; }\n"));
        fake.CommitAll(PatchMessage("Pass the memory scope to DatabricksConnection", "connections lease the database's scope instead of finding it through casts.", "not-needed (vendor patch)"), PatchAuthor, "2025-01-03T04:05:06+00:00");
        Require(fake.Tool("export"), "export");
        // As a fresh clone: at the tag, no record of an apply.
        fake.Git("reset", "-q", "--hard", Tag21);
        File.Delete(fake.ProvenancePath);
        return fake;
    }

    private static void Require(ToolResult result, string step)
    {
        if (result.ExitCode != 0)
        {
            throw new InvalidOperationException($"fixture step '{step}' failed: {result}");
        }
    }

    private static void CopyDirectory(string source, string target)
    {
        Directory.CreateDirectory(target);
        foreach (string file in Directory.EnumerateFiles(source))
        {
            File.Copy(file, Path.Combine(target, Path.GetFileName(file)));
        }

        foreach (string directory in Directory.EnumerateDirectories(source))
        {
            CopyDirectory(directory, Path.Combine(target, Path.GetFileName(directory)));
        }
    }
}
