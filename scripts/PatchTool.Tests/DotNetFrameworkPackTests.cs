using static PatchTool.Tests.Support.FakePackages;

namespace PatchTool.Tests;

/// <summary>
/// What a .NET Framework host (Power BI Desktop) needs of publish, build and pack: the targets upstream builds only on
/// Windows, a stand-in for a package the NuGet source lacks that stays out of the NuGet cache and out of every package,
/// packages that declare the versions they were built against, and `build`'s per-target record for scripts/verify.
/// Real restores and builds of the fake driver; a NuGet cache of the test's own where a folder source plays the feed.
/// </summary>
public class DotNetFrameworkPackTests
{
    private const string Pipes = "System.IO.Pipes.AccessControl";
    private const string Thrift = "Dbxmem.Tests.Thrift";

    [Fact]
    public void PackAndPublish_BuildNet472AsUpstreamDoesOnWindows()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        // The new home's condition: net472 only where IsWindows, which its Directory.Build.props sets from the OS.
        fake.WriteFile(FakeAdbc.DriverProject, fake.ReadFile(FakeAdbc.DriverProject).Replace(
            "<TargetFramework>net10.0</TargetFramework>",
            "<TargetFrameworks Condition=\"'$(IsWindows)'=='true'\">net10.0;net472</TargetFrameworks>\n    <TargetFrameworks Condition=\"'$(TargetFrameworks)'==''\">net10.0</TargetFrameworks>\n    <LangVersion>latest</LangVersion>"));

        ToolResult pack = fake.Tool("pack", "-o", "packages");
        ToolResult publish = fake.Tool("publish", "-f", "net472", "-o", "net472");
        ToolResult notATarget = fake.Tool("publish", "-f", "net9.0", "-o", "net9.0");

        Assert.True(pack.ExitCode == 0, pack.ToString());
        Assert.Contains("override -p:IsWindows=true: upstream builds net472 only on Windows (its IsWindows condition)", pack.Stdout);
        string package = Path.Combine(fake.Root, "packages", "Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg");
        Assert.Equal(["lib/net10.0/Fake.Databricks.dll", "lib/net472/Fake.Databricks.dll"], Entries(package).Where(e => e.StartsWith("lib/", StringComparison.Ordinal)).Order());
        Assert.Contains("Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg: lib/net10.0, lib/net472", pack.Stdout);
        JsonElement provenance = JsonDocument.Parse(File.ReadAllText(Path.ChangeExtension(package, null) + ".provenance.json")).RootElement;
        Assert.Equal(["net10.0", "net472"], provenance.GetProperty("frameworks").EnumerateArray().Select(e => e.GetString()));
        Assert.Equal(["IsWindows=true"], provenance.GetProperty("msbuildProperties").EnumerateArray().Select(e => e.GetString()));
        Assert.True(publish.ExitCode == 0, publish.ToString());
        Assert.Contains("override -p:IsWindows=true", publish.Stdout);
        Assert.True(File.Exists(Path.Combine(fake.Root, "net472", "Fake.Databricks.dll")));
        Assert.Equal(2, notATarget.ExitCode);
        Assert.Contains("the driver does not target net9.0; it builds net10.0.", notATarget.Stderr);
    }

    [Fact]
    public void FitNuGetSource_StandsInForAListedPackageTheSourceLacks_OutOfTheNuGetCacheAndOfEveryPackage()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        // A package shaped like ApacheThrift 0.25.0 on netstandard2.0: it depends on System.IO.Pipes.AccessControl 5.0.0,
        // which the folder source (the only one) does not serve.
        string source = Path.Combine(fake.Root, "source");
        fake.WriteFile($"../thrift/{Thrift}.csproj", $"<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net10.0</TargetFramework>\n    <NuspecFile>{Thrift}.nuspec</NuspecFile>\n  </PropertyGroup>\n</Project>\n");
        fake.WriteFile($"../thrift/{Thrift}.nuspec", $"""
            <?xml version="1.0" encoding="utf-8"?>
            <package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
              <metadata>
                <id>{Thrift}</id>
                <version>1.0.0</version>
                <authors>tests</authors>
                <description>Depends on a package the source lacks.</description>
                <dependencies>
                  <group targetFramework="net10.0">
                    <dependency id="{Pipes}" version="5.0.0" />
                  </group>
                </dependencies>
              </metadata>
              <files>
                <file src="bin/Release/net10.0/{Thrift}.dll" target="lib/net10.0" />
              </files>
            </package>
            """);
        fake.WriteFile("../thrift/Thrift.cs", "namespace Dbxmem.Tests\n{\n    public static class Thrift\n    {\n    }\n}\n");
        PackInto(fake, "thrift", source);
        // NuGet prunes framework packages from net10.0 graphs; upstream's netstandard2.0 and net472 are not pruned.
        Reference(fake, Thrift, "<RestoreEnablePackagePruning>false</RestoreEnablePackagePruning>");
        string notes = Path.Combine(fake.Root, "build-notes.json");

        ToolResult stops = Tool(fake, "publish", "-f", "net10.0", "-o", "driver", "-p", "RestoreSources=" + source);
        ToolResult fits = Tool(fake, "publish", "-f", "net10.0", "-o", "driver", "-p", "RestoreSources=" + source, "--fit-nuget-source", "--build-notes", notes);
        ToolResult pack = Tool(fake, "pack", "-o", "packages", "-p", "RestoreSources=" + source, "--fit-nuget-source");

        Assert.Equal(8, stops.ExitCode);
        Assert.Contains($"do not serve {Pipes}.", stops.Stderr);
        Assert.True(fits.ExitCode == 0, fits.ToString());
        Assert.Contains($"override -p:RestoreAdditionalProjectFallbackFolders=<git-dir>/dbxmem-patch/stand-ins: the NuGet source does not serve {Pipes} 5.0.0: an empty stand-in (no assembly)", fits.Stdout);
        Assert.DoesNotContain("TargetFrameworks", fits.Stdout);
        Assert.True(File.Exists(Path.Combine(fake.Checkout, ".git", "dbxmem-patch", "stand-ins", Pipes.ToLowerInvariant(), "5.0.0", Pipes.ToLowerInvariant() + ".nuspec")));
        // Read in place: the cache every other restore of the machine shares never holds it.
        Assert.False(Directory.Exists(Path.Combine(fake.Root, "nuget-cache", Pipes.ToLowerInvariant())));
        Assert.True(File.Exists(Path.Combine(fake.Root, "driver", Thrift + ".dll")));
        Assert.False(File.Exists(Path.Combine(fake.Root, "driver", Pipes + ".dll")));
        JsonElement recorded = JsonDocument.Parse(File.ReadAllText(notes)).RootElement;
        Assert.Equal([Pipes], recorded.GetProperty("missingPackages").EnumerateArray().Select(e => e.GetString()));
        JsonElement standIn = Assert.Single(recorded.GetProperty("substitutions").EnumerateArray());
        Assert.Equal([Pipes, "5.0.0", "5.0.0", Thrift + " 1.0.0"], new[] { "package", "pinned", "resolved", "by" }.Select(n => standIn.GetProperty(n).GetString()));
        Assert.Contains("named-pipe server transport", standIn.GetProperty("standIn").GetString());

        Assert.True(pack.ExitCode == 0, pack.ToString());
        string package = Path.Combine(fake.Root, "packages", "Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg");
        Assert.Equal([$"net10.0: {Thrift} 1.0.0"], DeclaredDependencies(package));
        Assert.DoesNotContain(Entries(package), e => e.Contains(Pipes, StringComparison.OrdinalIgnoreCase));
        JsonElement provenance = JsonDocument.Parse(File.ReadAllText(Path.ChangeExtension(package, null) + ".provenance.json")).RootElement;
        Assert.Equal(standIn.GetRawText(), Assert.Single(provenance.GetProperty("substitutedDependencies").EnumerateArray()).GetRawText());
        Assert.Contains("RestoreAdditionalProjectFallbackFolders=<git-dir>/dbxmem-patch/stand-ins", provenance.GetProperty("msbuildProperties").EnumerateArray().Select(e => e.GetString()));
    }

    [Fact]
    public void Pack_UnderCentralPackageManagement_DeclaresTheVersionsItBuiltAgainst_AndRefusesAPackageThatDoesNot()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        string source = SourceServingDependency(fake, "1.0.1");
        // As upstream pins: Directory.Packages.props says 1.0.0, which the source lacks; warnings are errors.
        fake.WriteFile("Directory.Packages.props", $"<Project>\n  <PropertyGroup>\n    <ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally>\n  </PropertyGroup>\n  <ItemGroup>\n    <PackageVersion Include=\"{Dependency}\" Version=\"1.0.0\" />\n  </ItemGroup>\n</Project>\n");
        fake.WriteFile(FakeAdbc.DriverProject, fake.ReadFile(FakeAdbc.DriverProject).Replace(
            "  </PropertyGroup>\n", $"    <TreatWarningsAsErrors>true</TreatWarningsAsErrors>\n  </PropertyGroup>\n  <ItemGroup>\n    <PackageReference Include=\"{Dependency}\" />\n  </ItemGroup>\n"));
        string empty = Path.Combine(fake.Root, "empty.targets");
        File.WriteAllText(empty, "<Project />\n");

        ToolResult pack = Tool(fake, "pack", "-o", "packages", "-p", "RestoreSources=" + source, "--fit-nuget-source");
        ToolResult pinsReplaced = Tool(fake, "pack", "-o", "unpinned", "-p", "RestoreSources=" + source, "-p", "CustomBeforeMicrosoftCommonTargets=" + empty, "--fit-nuget-source");

        Assert.True(pack.ExitCode == 0, pack.ToString());
        Assert.Equal([$"net10.0: {Dependency} 1.0.1"], DeclaredDependencies(Path.Combine(fake.Root, "packages", "Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg")));
        Assert.Contains($"<PackageVersion Update=\"{Dependency}\" Version=\"1.0.1\" />", File.ReadAllText(Path.Combine(fake.Checkout, ".git", "dbxmem-patch", "built-against.targets")));
        Assert.Equal(8, pinsReplaced.ExitCode);
        Assert.Contains($"it declares {Dependency} >= 1.0.0 for net10.0 but was built against 1.0.1", pinsReplaced.Stderr);
    }

    [Fact]
    public void Build_CompilesOneTarget_AndRecordsItsOutcomePerDriverInTheNotes()
    {
        using FakeAdbc fake = FakeAdbc.Create();
        string notes = Path.Combine(fake.Root, "build-notes.json");
        File.WriteAllText(notes, """{"datasets": [{"statement": "kept"}]}""");

        ToolResult stock = fake.Tool("build", "-f", "net10.0", "--allow-unpatched", "--build-notes", notes);
        Assert.Equal(0, fake.Tool("apply").ExitCode);
        fake.WriteFile(FakeAdbc.DriverDir + "/Warned.cs", "#warning dbxmem test warning\n");
        ToolResult warned = fake.Tool("build", "-f", "net10.0", "--build-notes", notes);
        JsonElement afterWarned = JsonDocument.Parse(File.ReadAllText(notes)).RootElement.Clone();
        fake.WriteFile(FakeAdbc.DriverProject, fake.ReadFile(FakeAdbc.DriverProject).Replace("  </PropertyGroup>\n", "    <TreatWarningsAsErrors>true</TreatWarningsAsErrors>\n  </PropertyGroup>\n"));
        ToolResult failed = fake.Tool("build", "-f", "net10.0", "--build-notes", notes);

        Assert.True(stock.ExitCode == 0, stock.ToString());
        Assert.Contains("stock net10.0: built, 0 error(s), 0 warning(s)", stock.Stdout);
        Assert.True(warned.ExitCode == 0, warned.ToString());
        Assert.Contains("patched net10.0: built, 0 error(s), 1 warning(s) (CS1030 1)", warned.Stdout);
        Assert.Equal(1, afterWarned.GetProperty("targetBuilds")[1].GetProperty("warnings").GetProperty("CS1030").GetInt32());
        Assert.Equal(8, failed.ExitCode);
        Assert.Contains("dotnet build of the patched driver for net10.0 failed:", failed.Stderr);
        JsonElement recorded = JsonDocument.Parse(File.ReadAllText(notes)).RootElement;
        Assert.Equal("kept", recorded.GetProperty("datasets")[0].GetProperty("statement").GetString());
        List<JsonElement> builds = recorded.GetProperty("targetBuilds").EnumerateArray().ToList();
        Assert.Equal(["stock net10.0 True", "patched net10.0 False"], builds.Select(b => $"{b.GetProperty("driver").GetString()} {b.GetProperty("framework").GetString()} {b.GetProperty("succeeded").GetBoolean()}"));
        Assert.Contains(builds[1].GetProperty("errors").EnumerateArray(), e => e.GetString()!.Contains("error CS1030", StringComparison.Ordinal));
    }
}
