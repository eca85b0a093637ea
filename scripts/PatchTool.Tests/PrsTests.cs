namespace PatchTool.Tests;

/// <summary>
/// prs: a base's series as PR-sized branches (patches/&lt;base&gt;/prs.json), on the new-home-shaped fake base. The map
/// lists the dependent PR first, so "dependency order" is the tool's doing, not the file's.
/// </summary>
public class PrsTests
{
    private const string Dispose = "dbxmem/dispose-releases-the-scope";
    private const string Connection = "dbxmem/pass-the-scope";
    private const string DisposeTitle = "fix(csharp): release the memory scope when the database is disposed";
    private const string ConnectionTitle = "feat(csharp): pass the memory scope to connections";
    private const string DisposeText = "Disposing the database releases the pooled memory.\n\nMeasured: heap after dispose 0.1 MB (stock 125.7 MB).\n";
    private const string ConnectionText = "Connections lease the database's scope.\n";

    private static Dictionary<string, object> Pr(string id, string branch, string title, string[] patches, string[] overlay, string[] tests, string[] dependsOn, string[] overlaps) => new()
    {
        ["id"] = id, ["branch"] = branch, ["title"] = title, ["patches"] = patches, ["overlay"] = overlay, ["tests"] = tests,
        ["dependsOn"] = dependsOn, ["overlaps"] = overlaps, ["description"] = $"prs/{id}.md",
    };

    private static List<Dictionary<string, object>> DefaultPrs() =>
    [
        Pr("connection", Connection, ConnectionTitle, [FakeAdbc.ConnectionPatch], [NewHomeSeries.ScopeFile], [NewHomeSeries.ScopeTests], ["dispose"], ["#575"]),
        Pr("dispose", Dispose, DisposeTitle, [FakeAdbc.DisposePatch], [], [], [], ["#610"]),
    ];

    private static void WriteMap(FakeAdbc fake, List<Dictionary<string, object>> prs, string[] notForwarded)
    {
        string folder = fake.SeriesFolder(NewHomeSeries.Folder);
        File.WriteAllText(Path.Combine(folder, "prs.json"), JsonSerializer.Serialize(new Dictionary<string, object> { ["target"] = "example/databricks main", ["prs"] = prs, ["notForwarded"] = notForwarded }));
        Directory.CreateDirectory(Path.Combine(folder, "prs"));
        File.WriteAllText(Path.Combine(folder, "prs", "dispose.md"), DisposeText);
        File.WriteAllText(Path.Combine(folder, "prs", "connection.md"), ConnectionText);
    }

    /// <summary>The new-home base with the default map; HEAD at the base.</summary>
    private static string Setup(FakeAdbc fake)
    {
        string baseCommit = NewHomeSeries.Add(fake);
        WriteMap(fake, DefaultPrs(), [NewHomeSeries.Lz4File, NewHomeSeries.Lz4Tests]);
        return baseCommit;
    }

    private static string[] Lines(string text) => text.Split('\n', StringSplitOptions.RemoveEmptyEntries);

    [Fact]
    public void Prs_MakesOneCommitPerPr_InDependencyOrder_WithItsFilesAndDescription_AndLeavesTheCheckoutAlone()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string baseCommit = Setup(fake);

        ToolResult prs = fake.Tool("prs", "-o", "out");

        Assert.True(prs.ExitCode == 0, prs.ToString());
        Assert.True(prs.Stdout.IndexOf($" {Dispose} = ", StringComparison.Ordinal) < prs.Stdout.IndexOf($" {Connection} = ", StringComparison.Ordinal), prs.Stdout);
        string dispose = fake.Git("rev-parse", Dispose), connection = fake.Git("rev-parse", Connection);

        // dispose: one commit on the base, the title as subject and the description as body, its patch's file only.
        Assert.Equal(baseCommit, fake.Git("rev-parse", Dispose + "~1"));
        Assert.Equal(DisposeTitle + "\n\n" + DisposeText.TrimEnd(), fake.Git("log", "-1", "--format=%B", Dispose));
        Assert.Equal(FakeAdbc.DatabaseFile, fake.Git("diff-tree", "--no-commit-id", "--name-only", "-r", Dispose));
        Assert.Contains("public void Dispose()", fake.Git("show", Dispose + ":" + FakeAdbc.DatabaseFile));

        // connection: dispose's very commit, then its own: its patch, its overlay file and its test, as apply writes them.
        Assert.Equal(dispose, fake.Git("rev-parse", Connection + "~1"));
        Assert.Equal(ConnectionTitle + "\n\n" + ConnectionText.TrimEnd(), fake.Git("log", "-1", "--format=%B", Connection));
        Assert.Equal(
            [FakeAdbc.ConnectionFile, $"{FakeAdbc.OverlayDir}/{NewHomeSeries.ScopeFile}", $"{NewHomeSeries.TestOverlayDir}/{NewHomeSeries.ScopeTests}"],
            Lines(fake.Git("diff-tree", "--no-commit-id", "--name-only", "-r", Connection)).Order(StringComparer.Ordinal));
        Assert.Equal(NewHomeSeries.InDriver(NewHomeSeries.ScopeBody).TrimEnd(), fake.Git("show", $"{Connection}:{FakeAdbc.OverlayDir}/{NewHomeSeries.ScopeFile}"));
        Assert.Equal((NewHomeSeries.Header + "\n\n" + NewHomeSeries.TestBody("ScopeTests")).TrimEnd(), fake.Git("show", $"{Connection}:{NewHomeSeries.TestOverlayDir}/{NewHomeSeries.ScopeTests}"));
        Assert.DoesNotContain("Lz4", fake.Git("ls-tree", "-r", "--name-only", Connection));
        Assert.DoesNotContain("PatchSeriesInfo", fake.Git("ls-tree", "-r", "--name-only", Connection));

        string disposeMd = File.ReadAllText(Path.Combine(fake.Root, "out", "dispose.md"));
        string connectionMd = File.ReadAllText(Path.Combine(fake.Root, "out", "connection.md"));
        Assert.StartsWith($"# {DisposeTitle}\n\n- Branch: `{Dispose}` ({dispose})\n- Base: example/databricks main, commit {baseCommit} ({NewHomeSeries.Tag})\n- Depends on: none\n- Overlaps: #610\n", disposeMd);
        Assert.EndsWith("\n" + DisposeText, disposeMd);
        Assert.Contains($"- Depends on: dispose (`{Dispose}`, \"{DisposeTitle}\"); merge first", connectionMd);
        Assert.Contains($"- Carries: patches {FakeAdbc.ConnectionPatch}; overlay {NewHomeSeries.ScopeFile}; tests {NewHomeSeries.ScopeTests}\n", connectionMd);
        Assert.Contains("- Overlaps: #575\n", connectionMd);

        Assert.Equal(baseCommit, fake.Head);
        Assert.Equal("", fake.Git("status", "--porcelain"));

        // Repeatable: a branch moved since is made again, to the same commits and files.
        fake.Git("branch", "-f", Dispose, baseCommit);
        ToolResult again = fake.Tool("prs", "-o", "out");

        Assert.True(again.ExitCode == 0, again.ToString());
        Assert.Equal([dispose, connection], new[] { fake.Git("rev-parse", Dispose), fake.Git("rev-parse", Connection) });
        Assert.Equal(disposeMd, File.ReadAllText(Path.Combine(fake.Root, "out", "dispose.md")));
    }

    [Fact]
    public void AnythingInNoPr_OrInTwo_IsAnErrorNamingIt_InPrsAndInCheck()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string baseCommit = Setup(fake);
        List<Dictionary<string, object>> prs = DefaultPrs();
        prs[1]["patches"] = Array.Empty<string>();
        prs[1]["overlay"] = new[] { NewHomeSeries.Lz4File };
        prs[0]["tests"] = new[] { NewHomeSeries.ScopeTests, NewHomeSeries.Lz4Tests };
        WriteMap(fake, prs, [NewHomeSeries.Lz4Tests]);

        ToolResult run = fake.Tool("prs", "-o", "out");
        ToolResult check = fake.Tool("check");

        Assert.Equal(4, run.ExitCode);
        Assert.Contains($"the patch '{FakeAdbc.DisposePatch}' is in no PR and not in \"notForwarded\"", run.Stderr);
        Assert.Contains($"the test file '{NewHomeSeries.Lz4Tests}' is in PR 'connection' and notForwarded; it belongs in exactly one", run.Stderr);
        Assert.Equal("", fake.Git("branch", "--list", "dbxmem/*"));
        Assert.False(Directory.Exists(Path.Combine(fake.Root, "out")));
        Assert.Equal(4, check.ExitCode);
        Assert.Contains($"INVALID  {NewHomeSeries.Folder}/prs.json: the patch '{FakeAdbc.DisposePatch}' is in no PR", check.Stderr);

        // A name the series does not have is stale too.
        WriteMap(fake, DefaultPrs(), [NewHomeSeries.Lz4File, NewHomeSeries.Lz4Tests, "gone.patch"]);
        ToolResult stale = fake.Tool("check");

        Assert.Equal(4, stale.ExitCode);
        Assert.Contains("\"notForwarded\" names 'gone.patch', which is no patch, overlay file or test file", stale.Stderr);
        Assert.Equal(baseCommit, fake.Head);
    }

    [Fact]
    public void ADependencyCycle_AnUnknownId_OrATitleThatIsNoConventionalCommit_IsAnError()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        Setup(fake);
        List<Dictionary<string, object>> cycle = DefaultPrs();
        cycle[1]["dependsOn"] = new[] { "connection" };
        WriteMap(fake, cycle, [NewHomeSeries.Lz4File, NewHomeSeries.Lz4Tests]);

        ToolResult cyclic = fake.Tool("prs", "-o", "out");

        Assert.Equal(4, cyclic.ExitCode);
        Assert.Contains("the dependencies form a cycle: connection -> dispose -> connection", cyclic.Stderr);

        List<Dictionary<string, object>> unknown = DefaultPrs();
        unknown[0]["dependsOn"] = new[] { "disposal" };
        unknown[1]["title"] = "Release the scope on dispose";
        WriteMap(fake, unknown, [NewHomeSeries.Lz4File, NewHomeSeries.Lz4Tests]);

        ToolResult wrong = fake.Tool("prs", "-o", "out");

        Assert.Equal(4, wrong.ExitCode);
        Assert.Contains("PR 'connection' depends on 'disposal', which is no PR's id", wrong.Stderr);
        Assert.Contains("PR 'dispose': \"title\" 'Release the scope on dispose' is not a Conventional Commits subject", wrong.Stderr);
        Assert.Equal("", fake.Git("branch", "--list", "dbxmem/*"));
    }

    [Fact]
    public void APatchThatNeedsAnotherPrsChanges_DoesNotApply_AndTheErrorNamesItAndThePr()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string baseCommit = Setup(fake);
        // A third patch that edits what the dispose patch adds, made as maintainers make one: apply, commit, export.
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        fake.WriteFile(FakeAdbc.DatabaseFile, fake.ReadFile(FakeAdbc.DatabaseFile).Replace("public void Dispose()\n        {\n", "public void Dispose()\n        {\n            // release the scope\n"));
        fake.CommitAll(FakeAdbc.PatchMessage("Release the scope in Dispose", "the scope must go with the database.", baseTag: NewHomeSeries.Tag));
        Assert.Equal(0, fake.Tool("export").ExitCode);
        fake.Git("checkout", "-q", "--detach", baseCommit);
        List<Dictionary<string, object>> prs = DefaultPrs();
        prs.Add(Pr("release", "dbxmem/release", "fix(csharp): release the scope in Dispose", ["release-the-scope-in-dispose.patch"], [], [], [], []));
        WriteMap(fake, prs, [NewHomeSeries.Lz4File, NewHomeSeries.Lz4Tests]);
        File.WriteAllText(Path.Combine(fake.SeriesFolder(NewHomeSeries.Folder), "prs", "release.md"), "Release it.\n");

        ToolResult alone = fake.Tool("prs", "-o", "out");

        Assert.Equal(6, alone.ExitCode);
        Assert.Contains("PR 'release': patch release-the-scope-in-dispose.patch does not apply on the base", alone.Stderr);
        Assert.Contains("add that PR to dependsOn", alone.Stderr);
        Assert.Equal(baseCommit, fake.Head);
        Assert.Equal("", fake.Git("status", "--porcelain"));

        prs[2]["dependsOn"] = new[] { "dispose" };
        WriteMap(fake, prs, [NewHomeSeries.Lz4File, NewHomeSeries.Lz4Tests]);
        ToolResult stacked = fake.Tool("prs", "-o", "out");

        Assert.True(stacked.ExitCode == 0, stacked.ToString());
        Assert.Equal(fake.Git("rev-parse", Dispose), fake.Git("rev-parse", "dbxmem/release~1"));
        Assert.Contains("// release the scope", fake.Git("show", "dbxmem/release:" + FakeAdbc.DatabaseFile));
    }

    [Fact]
    public void Prs_NeedsACleanCheckoutAtTheBase_AndABaseWithAMap()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string baseCommit = Setup(fake);
        Assert.Equal(0, fake.Tool("apply").ExitCode);

        ToolResult patched = fake.Tool("prs", "-o", "out");

        Assert.Equal(5, patched.ExitCode);
        Assert.Contains("is patched (csharp/v9.9.9 + series 1.0.0); prs builds its branches from the base commit itself", patched.Stderr);
        Assert.Contains($"checkout --detach {baseCommit[..12]}", patched.Stderr);

        fake.Git("checkout", "-q", "--detach", baseCommit);
        fake.WriteFile(FakeAdbc.ConnectionFile, "// dirty\n");
        ToolResult dirty = fake.Tool("prs", "-o", "out");

        Assert.Equal(5, dirty.ExitCode);
        Assert.Contains("has uncommitted changes (prs needs a clean tree", dirty.Stderr);

        fake.Git("checkout", "-q", "--", ".");
        fake.Git("checkout", "-q", "--detach", FakeAdbc.Tag21);
        ToolResult noMap = fake.Tool("prs", "-o", "out");

        Assert.Equal(4, noMap.ExitCode);
        Assert.Contains($"{FakeAdbc.Tag21} has no PR map", noMap.Stderr);
    }

    [Fact]
    public void Verify_WithoutATestProjectAboveTestOverlayDir_FailsBeforeAnyBranchIsMade()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string baseCommit = Setup(fake);
        NewHomeSeries.WriteBaseJson(fake, baseCommit, new() { ["testOverlayDir"] = "csharp/unit/Dbxmem" });

        ToolResult verify = fake.Tool("prs", "-o", "out", "--verify");

        Assert.Equal(4, verify.ExitCode);
        Assert.Contains("no folder above \"testOverlayDir\": \"csharp/unit/Dbxmem\" holds one test project", verify.Stderr);
        Assert.Equal("", fake.Git("branch", "--list", "dbxmem/*"));
    }

    [UnixFact]
    public void Verify_BuildsAndTestsEachBranchWithUpstreamsTestCommand_CountsTheSeriesTests_AndPutsHeadBack()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string baseCommit = Setup(fake);
        fake.Git("checkout", "-q", "-b", "work");
        (Dictionary<string, string?> environment, string log) = FakeDotnet(fake);

        ToolResult verify = Run(fake, environment, "prs", "-o", "out", "--verify");

        Assert.True(verify.ExitCode == 0, verify.ToString());
        string dispose = fake.Git("rev-parse", Dispose), connection = fake.Git("rev-parse", Connection);
        string driver = Path.Combine(fake.Checkout, FakeAdbc.DriverProject), tests = Path.Combine(fake.Checkout, NewHomeSeries.TestProject);
        const string Properties = "-nologo --disable-build-servers -p:TargetFrameworks=net8.0 -p:WarningsNotAsErrors=NU1603%3BNU1605 -p:WarningsAsErrors=";
        string results = Path.Combine(fake.Root, "out");
        Assert.Equal(
            [
                $"{dispose} restore {driver} {Properties}", $"{dispose} build {driver} {Properties}", $"{dispose} build {tests} {Properties}",
                $"{dispose} test {tests} --no-build {Properties} --filter FullyQualifiedName~AdbcDrivers.Databricks.Tests.Unit --logger trx;LogFileName=dispose.trx --results-directory {results}",
                $"{connection} restore {driver} {Properties}", $"{connection} build {driver} {Properties}", $"{connection} build {tests} {Properties}",
                $"{connection} test {tests} --no-build {Properties} --filter FullyQualifiedName~AdbcDrivers.Databricks.Tests.Unit --logger trx;LogFileName=connection.trx --results-directory {results}",
            ],
            Lines(File.ReadAllText(log)));
        // The fake runner reports one upstream test, plus one per namespace of the series' tests on the branch.
        Assert.Contains("ok     `dotnet test --filter FullyQualifiedName~AdbcDrivers.Databricks.Tests.Unit`: 1 passed, 0 failed, 0 skipped\n", verify.Stdout);
        Assert.Contains("2 passed, 0 failed, 0 skipped (the series' tests: 1 passed, 0 failed, 0 skipped)", verify.Stdout);
        Assert.Contains("- Checked (`scripts/patch prs --verify`, net8.0): `dotnet test --filter FullyQualifiedName~AdbcDrivers.Databricks.Tests.Unit`: 2 passed, 0 failed, 0 skipped (the series' tests: 1 passed",
            File.ReadAllText(Path.Combine(results, "connection.md")));
        Assert.True(File.Exists(Path.Combine(results, "connection.trx")));
        Assert.Equal("work", fake.Git("symbolic-ref", "--short", "HEAD"));
        Assert.Equal(baseCommit, fake.Head);
        Assert.Equal("", fake.Git("status", "--porcelain"));
    }

    [UnixFact]
    public void Verify_ABranchThatDoesNotBuild_FailsTheRunWithExit8_AfterCheckingEveryBranch()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string baseCommit = Setup(fake);
        File.WriteAllText(Path.Combine(fake.Overlay, NewHomeSeries.ScopeFile), NewHomeSeries.AsfHeader + "\n// BREAK_BUILD\n" + NewHomeSeries.ScopeBody);
        (Dictionary<string, string?> environment, _) = FakeDotnet(fake);

        ToolResult verify = Run(fake, environment, "prs", "-o", "out", "--verify", "--filter", "FullyQualifiedName~Fake");

        Assert.Equal(8, verify.ExitCode);
        Assert.Contains("dispose                  ok     `dotnet test --filter FullyQualifiedName~Fake`: 1 passed", verify.Stdout);
        Assert.Contains($"connection               FAILED dotnet build failed for {FakeAdbc.DriverProject}: X.cs(1,1): error CS1002: ; expected\n", verify.Stdout);
        Assert.Contains("1 of 2 branch(es) failed to build or test: connection", verify.Stderr);
        Assert.Contains("- Checked (`scripts/patch prs --verify`, net8.0): FAILED: dotnet build failed", File.ReadAllText(Path.Combine(fake.Root, "out", "connection.md")));
        Assert.Equal(baseCommit, fake.Head);
        Assert.Equal("", fake.Git("status", "--porcelain"));
    }

    [Fact]
    public void TestCounts_ComeFromTheTrxCounters_AndTheSeriesTestsFromTheirNamespaces()
    {
        using var temp = new TempDirectory();
        string trx = temp.Combine("x.trx");
        File.WriteAllText(trx, """
            <?xml version="1.0" encoding="utf-8"?>
            <TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
              <Results>
                <UnitTestResult testId="a" outcome="Passed" />
                <UnitTestResult testId="b" outcome="NotExecuted" />
                <UnitTestResult testId="c" outcome="Failed" />
                <UnitTestResult testId="d" outcome="Passed" />
              </Results>
              <TestDefinitions>
                <UnitTest id="a"><TestMethod className="Up.Tests.Unit.Dbxmem.ScopeTests" name="A" /></UnitTest>
                <UnitTest id="b"><TestMethod className="Up.Tests.Unit.Dbxmem.Lz4.Lz4Tests" name="B" /></UnitTest>
                <UnitTest id="c"><TestMethod className="Up.Tests.Unit.Other" name="C" /></UnitTest>
                <UnitTest id="d"><TestMethod className="Up.Tests.Unit.DbxmemLookalike" name="D" /></UnitTest>
              </TestDefinitions>
              <ResultSummary outcome="Failed"><Counters total="5" executed="4" passed="2" failed="1" error="1" notExecuted="1" /></ResultSummary>
            </TestRun>
            """);

        (TestCounts all, TestCounts series) = BranchVerifier.Count(trx, ["Up.Tests.Unit.Dbxmem"]);

        Assert.Equal(new TestCounts(2, 2, 1), all);
        Assert.Equal(new TestCounts(1, 0, 1), series);
        Assert.Equal(["Up.Tests.Unit.Dbxmem", "Up.Tests.Unit.Dbxmem.Lz4"], BranchVerifier.DeclaredNamespaces(System.Text.Encoding.UTF8.GetBytes("namespace Up.Tests.Unit.Dbxmem\n{\n}\n  namespace Up.Tests.Unit.Dbxmem.Lz4;\n// namespace Not.This\n")));
    }

    private static ToolResult Run(FakeAdbc fake, Dictionary<string, string?> environment, params string[] args) =>
        fake.ToolWithEnvironment([.. args, "--adbc", fake.Checkout, "--patches", fake.Patches, "--overlay", fake.Overlay], environment);

    /// <summary>
    /// A stand-in for the dotnet CLI first on PATH: it logs each call with the commit checked out, fails a build where
    /// the driver's sources say BREAK_BUILD, and for `test` writes a TRX file with one passing upstream test plus one
    /// per namespace the series' test files on the branch declare.
    /// </summary>
    private static (Dictionary<string, string?> Environment, string Log) FakeDotnet(FakeAdbc fake)
    {
        string bin = Path.Combine(fake.Root, "fake-dotnet");
        Directory.CreateDirectory(bin);
        string script = Path.Combine(bin, "dotnet");
        File.WriteAllText(script, $$"""
            #!/usr/bin/env bash
            printf '%s %s\n' "$(git rev-parse HEAD)" "$*" >> "$FAKE_DOTNET_LOG"
            case "$1" in
              build)
                if grep -rqs BREAK_BUILD csharp/src; then echo "X.cs(1,1): error CS1002: ; expected"; exit 1; fi ;;
              test)
                previous=""
                for argument in "$@"; do
                  case "$previous" in --results-directory) folder="$argument" ;; --logger) name="${argument#trx;LogFileName=}" ;; esac
                  previous="$argument"
                done
                definitions='<UnitTest id="u1"><TestMethod className="Fake.Tests.Unit.UpstreamTests" name="Works" /></UnitTest>'
                results='<UnitTestResult testId="u1" outcome="Passed" />'
                count=1
                for namespace in $(sed -n 's/^namespace \([A-Za-z0-9_.]*\).*/\1/p' $(find {{NewHomeSeries.TestOverlayDir}} -name '*.cs' 2>/dev/null) /dev/null); do
                  count=$((count + 1))
                  definitions="$definitions<UnitTest id=\"u$count\"><TestMethod className=\"$namespace.SeriesTests\" name=\"Works\" /></UnitTest>"
                  results="$results<UnitTestResult testId=\"u$count\" outcome=\"Passed\" />"
                done
                printf '<?xml version="1.0" encoding="utf-8"?>\n<TestRun xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010"><Results>%s</Results><TestDefinitions>%s</TestDefinitions><ResultSummary outcome="Completed"><Counters total="%d" executed="%d" passed="%d" failed="0" error="0" notExecuted="0" /></ResultSummary></TestRun>\n' "$results" "$definitions" "$count" "$count" "$count" > "$folder/$name" ;;
            esac
            exit 0

            """.Replace("\r\n", "\n"));
        if (!OperatingSystem.IsWindows())
        {
            // Only [UnixFact]s use it: on Windows a bash script is no dotnet stand-in.
            File.SetUnixFileMode(script, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
        string log = Path.Combine(fake.Root, "dotnet.log");
        Dictionary<string, string?> environment = fake.Environment;
        environment["PATH"] = bin + Path.PathSeparator + System.Environment.GetEnvironmentVariable("PATH");
        environment["FAKE_DOTNET_LOG"] = log;
        return (environment, log);
    }
}
