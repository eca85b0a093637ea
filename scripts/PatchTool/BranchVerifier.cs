using System.Xml.Linq;

namespace PatchTool;

/// <summary>What `prs --verify` found on one branch; <see cref="Failure"/> is null when it built and every test passed.</summary>
internal sealed record BranchCheck(string? Failure, TestCounts? All, TestCounts? SeriesTests)
{
    public bool Passed => Failure == null;

    /// <summary>One line: the test counts (when the tests ran), then why it failed (when it did).</summary>
    public string Describe(string filter) => string.Join("; ", new[]
    {
        All == null ? null : $"`dotnet test --filter {filter}`: {All}" + (SeriesTests == null ? "" : $" (the series' tests: {SeriesTests})"),
        Failure == null ? null : Regex.Replace(Failure, @"\s*\n\s*", " "),
    }.Where(part => part != null));
}

internal sealed record TestCounts(int Passed, int Failed, int Skipped)
{
    public override string ToString() => $"{Passed} passed, {Failed} failed, {Skipped} skipped";
}

/// <summary>
/// `prs --verify` on one branch checked out in the checkout: the driver project and upstream's test project built as
/// upstream's test command in patches/csharp-v1.1.7/README.md builds them (net8.0, NU1603 and NU1605 not errors), with
/// what the NuGet source lacks fitted as `publish --fit-nuget-source` fits it, then `dotnet test` with the filter.
/// One instance serves every branch, so an override found on the first is reused on the next.
/// </summary>
internal sealed class BranchVerifier
{
    /// <summary>Upstream's test command's properties (a -p of the same name replaces one).</summary>
    private static readonly string[] UpstreamTestProperties = ["TargetFrameworks=net8.0", "WarningsNotAsErrors=NU1603%3BNU1605", "WarningsAsErrors="];

    private readonly DriverBuild build;
    private readonly string driverProject;
    private readonly string testProject;
    private readonly string filter;
    private readonly string resultsDirectory;
    private readonly bool fit;

    public BranchVerifier(ToolContext context, AdbcCheckout checkout, BaseInfo baseInfo, BuildOptions options, string filter, string resultsDirectory)
    {
        driverProject = Path.Combine(checkout.Root, baseInfo.DriverProject);
        testProject = FindTestProject(checkout, baseInfo);
        this.filter = filter;
        this.resultsDirectory = resultsDirectory;
        fit = options.Fit;
        IEnumerable<string> defaults = UpstreamTestProperties.Where(d => options.Properties.All(p => !p.StartsWith(d[..(d.IndexOf('=') + 1)], StringComparison.OrdinalIgnoreCase)));
        build = new DriverBuild(context, checkout, driverProject, options.Properties.Concat(defaults));
        context.Info($"Verifying each branch with {Path.GetRelativePath(checkout.Root, driverProject).Replace('\\', '/')} and {Path.GetRelativePath(checkout.Root, testProject).Replace('\\', '/')}, filter {filter}");
    }

    /// <summary>
    /// Restores and builds the driver, builds the test project, runs the tests. <paramref name="seriesTestNamespaces"/>
    /// are the namespaces of the series' test files on this branch: at least one of their tests must run, or the filter
    /// (or a namespace) silently leaves them out.
    /// </summary>
    public BranchCheck Verify(string id, IReadOnlyCollection<string> seriesTestNamespaces)
    {
        try
        {
            build.Restore("net8.0", fit);
            build.Build(driverProject);
            build.Build(testProject);
        }
        catch (ToolException ex) when (ex.ExitCode == ExitCodes.BuildFailed)
        {
            return new BranchCheck(ex.Message, null, null);
        }

        string trx = Path.Combine(resultsDirectory, id + ".trx");
        File.Delete(trx);
        ProcessResult test = build.Test(testProject, filter, trx);
        if (!File.Exists(trx))
        {
            return new BranchCheck($"dotnet test wrote no results ({trx}): {Git.FirstLines(test.Output, 12)}", null, null);
        }

        (TestCounts all, TestCounts series) = Count(trx, seriesTestNamespaces);
        string? failure =
            all.Failed > 0 ? $"{all.Failed} test(s) failed (see {trx})"
            : all.Passed == 0 ? $"no test ran under the filter {filter}"
            : seriesTestNamespaces.Count > 0 && series.Passed + series.Failed + series.Skipped == 0 ? $"none of the series' tests ({string.Join(", ", seriesTestNamespaces)}) ran under the filter {filter}"
            : !test.Succeeded ? $"dotnet test exited with {test.ExitCode}: {Git.FirstLines(test.Output, 8)}"
            : null;
        return new BranchCheck(failure, all, seriesTestNamespaces.Count == 0 ? null : series);
    }

    /// <summary>The namespaces a C# file declares (block or file-scoped).</summary>
    public static IEnumerable<string> DeclaredNamespaces(byte[] source) =>
        Regex.Matches(Encoding.UTF8.GetString(source), @"^[ \t]*namespace[ \t]+([A-Za-z_][A-Za-z0-9_.]*)", RegexOptions.Multiline).Select(m => m.Groups[1].Value);

    /// <summary>
    /// The TRX file's counters (failed includes errors, skipped is "not executed"), and the same for the tests whose class
    /// is in one of <paramref name="namespaces"/>.
    /// </summary>
    public static (TestCounts All, TestCounts Series) Count(string trxFile, IReadOnlyCollection<string> namespaces)
    {
        XDocument document = XDocument.Load(trxFile);
        XNamespace ns = "http://microsoft.com/schemas/VisualStudio/TeamTest/2010";
        XElement? counters = document.Descendants(ns + "Counters").FirstOrDefault();
        int Counter(string name) => int.TryParse(counters?.Attribute(name)?.Value, out int value) ? value : 0;
        var all = new TestCounts(Counter("passed"), Counter("failed") + Counter("error"), Counter("notExecuted"));
        HashSet<string> seriesTests = document.Descendants(ns + "UnitTest")
            .Where(t => t.Element(ns + "TestMethod")?.Attribute("className")?.Value is string type && namespaces.Any(n => type.StartsWith(n + ".", StringComparison.Ordinal)))
            .Select(t => (string?)t.Attribute("id") ?? "").ToHashSet(StringComparer.Ordinal);
        List<string> outcomes = document.Descendants(ns + "UnitTestResult").Where(r => seriesTests.Contains((string?)r.Attribute("testId") ?? "")).Select(r => (string?)r.Attribute("outcome") ?? "").ToList();
        var series = new TestCounts(
            outcomes.Count(o => o == "Passed"),
            outcomes.Count(o => o is "Failed" or "Error" or "Timeout" or "Aborted"),
            outcomes.Count(o => o is "NotExecuted" or "Inconclusive"));
        return (all, series);
    }

    /// <summary>
    /// Upstream's test project: the project in the nearest folder above testOverlayDir (csharp/test for
    /// csharp/test/Unit/Dbxmem), which is the project that compiles the copied tests.
    /// </summary>
    private static string FindTestProject(AdbcCheckout checkout, BaseInfo baseInfo)
    {
        if (baseInfo.TestOverlayDir == null)
        {
            throw new ToolException(
                ExitCodes.InvalidSeries,
                $"prs --verify runs upstream's test project, which the tool finds from \"testOverlayDir\"; {Path.Combine(baseInfo.Folder, "base.json")} has none.",
                "set testOverlay and testOverlayDir in base.json (patches/README.md), or run prs without --verify");
        }

        for (string? folder = Path.GetDirectoryName(baseInfo.TestOverlayDir); !string.IsNullOrEmpty(folder); folder = Path.GetDirectoryName(folder))
        {
            string full = Path.Combine(checkout.Root, folder);
            string[] projects = Directory.Exists(full) ? Directory.GetFiles(full, "*.csproj") : [];
            if (projects.Length == 1)
            {
                return projects[0];
            }
        }

        throw new ToolException(
            ExitCodes.InvalidSeries,
            $"no folder above \"testOverlayDir\": \"{baseInfo.TestOverlayDir}\" holds one test project, so the copied tests would not be compiled.",
            "set testOverlayDir to a folder inside upstream's test project (e.g. csharp/test/Unit/Dbxmem)");
    }
}
