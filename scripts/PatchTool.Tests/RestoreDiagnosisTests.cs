namespace PatchTool.Tests;

/// <summary>
/// The restore output of a tag-21 checkout on a partial NuGet source (captured 2026-11-23): the hint names the packages
/// and only options publish and pack accept.
/// </summary>
public class RestoreDiagnosisTests
{
    private const string Substituted =
        "/src/csharp/src/Drivers/Databricks/Apache.Arrow.Adbc.Drivers.Databricks.csproj : error NU1603: Warning As Error: Apache.Arrow.Adbc.Drivers.Apache depends on ApacheThrift (>= 0.22.0) but ApacheThrift 0.22.0 was not found. ApacheThrift 0.25.0 was resolved instead.\n" +
        "/src/csharp/src/Drivers/Databricks/Apache.Arrow.Adbc.Drivers.Databricks.csproj : error NU1603: Warning As Error: ApacheThrift 0.25.0 depends on System.Net.Http.WinHttpHandler (>= 10.0.10) but System.Net.Http.WinHttpHandler 10.0.10 was not found. System.Net.Http.WinHttpHandler 10.0.14 was resolved instead.\n";

    private const string NotServed =
        "/src/csharp/src/Drivers/Apache/Apache.Arrow.Adbc.Drivers.Apache.csproj : error NU1101: Unable to find package System.IO.Pipes.AccessControl. No packages exist with this id in source(s): nuget.org [/src/x.csproj]\n";

    [Fact]
    public void ASubstitutedPinnedVersion_IsNamed_WithTheWayToAcceptIt()
    {
        string? hint = RestoreDiagnosis.Hint(Substituted, "net8.0");

        Assert.Contains("resolved ApacheThrift 0.25.0 for the pinned 0.22.0; System.Net.Http.WinHttpHandler 10.0.14 for the pinned 10.0.10", hint);
        Assert.Contains("`-p WarningsNotAsErrors=NU1603`", hint);
        Assert.Contains("`--fit-nuget-source`", hint);
        Assert.DoesNotContain("TargetFrameworks", hint);
    }

    [Fact]
    public void APackageNotServed_IsNamed_WithASourceOrFewerTargetsAsTheWayOut()
    {
        string? hint = RestoreDiagnosis.Hint(NotServed + Substituted, "net8.0");

        Assert.Equal(["System.IO.Pipes.AccessControl"], RestoreDiagnosis.MissingPackages(NotServed));
        Assert.Contains("do not serve System.IO.Pipes.AccessControl.", hint);
        Assert.Contains("`-p RestoreAdditionalProjectSources=URL_OR_FOLDER`", hint);
        Assert.Contains("`-p TargetFrameworks=net8.0`", hint);
        Assert.Contains("`-p WarningsNotAsErrors=NU1603`", hint);
    }

    [Fact]
    public void OtherRestoreErrors_GetNoPackageHint()
    {
        Assert.Null(RestoreDiagnosis.Hint("error NU1301: Unable to load the service index for source https://api.nuget.org/v3/index.json.", "net8.0"));
    }

    [Fact]
    public void TheSubstitutionsARestoreRecorded_AreReadFromItsAssetsFile_AndWordedAsTheReportWordsThem()
    {
        using var folder = new TempDirectory();
        string assets = folder.Combine("project.assets.json");
        // The shape NuGet writes (captured from a csharp/v1.1.7 restore, 2026-11-24): warnings stay in "logs".
        File.WriteAllText(assets, """
            {"version": 3, "logs": [
              {"code": "NU1603", "level": "Warning", "message": "ApacheThrift 0.25.0 depends on System.Net.Http.WinHttpHandler (>= 10.0.10) but System.Net.Http.WinHttpHandler 10.0.10 was not found. System.Net.Http.WinHttpHandler 10.0.14 was resolved instead."},
              {"code": "NU1605", "level": "Warning", "message": "Detected package downgrade: System.Diagnostics.DiagnosticSource from 10.0.0 to 9.0.6."}
            ]}
            """);

        Substitution found = Assert.Single(RestoreDiagnosis.SubstitutionsIn(assets));

        Assert.Equal(new Substitution("System.Net.Http.WinHttpHandler", "10.0.10", "10.0.14", "ApacheThrift 0.25.0"), found);
        Assert.Equal("built against System.Net.Http.WinHttpHandler 10.0.14; ApacheThrift 0.25.0 asks for 10.0.10", RestoreDiagnosis.Describe(found));
        Assert.Equal("built against ApacheThrift 0.25.0; the tag pins 0.22.0", RestoreDiagnosis.Describe(new Substitution("ApacheThrift", "0.22.0", "0.25.0", "Apache.Arrow.Adbc.Drivers.Apache")));
        Assert.Empty(RestoreDiagnosis.SubstitutionsIn(folder.Combine("missing.json")));
    }

    [Fact]
    public void APackageNotServed_IsFoundInTheAssetsFile_WithTheTargetsWhoseGraphsNeedIt_AndItsDependents()
    {
        using var folder = new TempDirectory();
        string assets = folder.Combine("project.assets.json");
        // The shape NuGet writes for a failed restore of csharp/v1.1.7 with IsWindows=true (captured 2026-11-28): the
        // package is missing from the net472 and netstandard2.0 graphs only, ApacheThrift 0.25.0 asks for it there.
        File.WriteAllText(assets, """
            {"version": 4,
             "targets": {
               "net472": {"ApacheThrift/0.25.0": {"type": "package", "dependencies": {"Microsoft.Extensions.Logging.Abstractions": "10.0.10", "System.IO.Pipes.AccessControl": "5.0.0"}}},
               "netstandard2.0": {"ApacheThrift/0.25.0": {"type": "package", "dependencies": {"System.IO.Pipes.AccessControl": "5.0.0"}}},
               "net8.0": {"ApacheThrift/0.25.0": {"type": "package", "dependencies": {"Microsoft.Extensions.Logging.Abstractions": "10.0.10"}}}
             },
             "logs": [
               {"code": "NU1603", "level": "Warning", "message": "AdbcDrivers.HiveServer2 depends on ApacheThrift (>= 0.22.0) but ApacheThrift 0.22.0 was not found. ApacheThrift 0.25.0 was resolved instead."},
               {"code": "NU1101", "level": "Error", "message": "Unable to find package System.IO.Pipes.AccessControl. No packages exist with this id in source(s): nuget.org", "libraryId": "System.IO.Pipes.AccessControl", "targetGraphs": ["net472", "netstandard2.0"]}
             ]}
            """);

        IReadOnlyDictionary<string, IReadOnlyList<string>> missing = RestoreDiagnosis.MissingIn(assets);

        Assert.Equal(["net472", "netstandard2.0"], Assert.Single(missing, m => m.Key == "System.IO.Pipes.AccessControl").Value);
        Assert.Equal(["ApacheThrift 0.25.0"], RestoreDiagnosis.Dependents(assets, "System.IO.Pipes.AccessControl"));
        Assert.Empty(RestoreDiagnosis.Dependents(assets, "ApacheThrift"));
        Assert.Empty(RestoreDiagnosis.MissingIn(folder.Combine("missing.json")));
        Substitution standIn = new("System.IO.Pipes.AccessControl", "5.0.0", "5.0.0", "ApacheThrift 0.25.0", "REASON");
        Assert.Equal(
            "built against an empty stand-in for System.IO.Pipes.AccessControl 5.0.0 (ApacheThrift 0.25.0 asks for it; the NuGet source does not serve it): REASON",
            RestoreDiagnosis.Describe(standIn));
    }
}
