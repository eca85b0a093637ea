using System.IO.Compression;
using static PatchTool.Tests.Support.FakePackages;

namespace PatchTool.Tests;

/// <summary>
/// publish and pack of the fake driver (net10.0, so it restores offline), and what --fit-nuget-source does about a
/// NuGet source that lacks or substitutes a dependency: each case with a real restore against a folder source, and a
/// NuGet cache of its own so no earlier run's packages answer for the source.
/// </summary>
public class PublishAndPackTests
{
    private const string DependencyFolder = "csharp/deps/" + Dependency;

    [Fact]
    public void PublishAndPack_ThePatchedDriver_GiveALoadableFolderAndPackagesWithProvenance()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        DateTimeOffset before = DateTimeOffset.UtcNow.AddSeconds(-2);

        ToolResult publish = fake.Tool("publish", "-f", "net10.0", "-o", "driver");
        ToolResult pack = fake.Tool("pack", "-o", "packages");

        Assert.True(publish.ExitCode == 0, publish.ToString());
        Assert.Contains("NuGet: restored; no override needed", publish.Stdout);
        Assert.True(File.Exists(Path.Combine(fake.Root, "driver", "Fake.Databricks.dll")));
        Assert.True(pack.ExitCode == 0, pack.ToString());
        string package = Path.Combine(fake.Root, "packages", "Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg");
        using (ZipArchive zip = ZipFile.OpenRead(package))
        {
            Assert.Contains(zip.Entries, e => e.FullName == "lib/net10.0/Fake.Databricks.dll");
        }

        JsonElement p = JsonDocument.Parse(File.ReadAllText(Path.ChangeExtension(package, null) + ".provenance.json")).RootElement;
        JsonElement applied = JsonDocument.Parse(File.ReadAllText(fake.ProvenancePath)).RootElement;
        Assert.Equal(
            ["schema", "toolVersion", "baseTag", "baseCommit", "seriesVersion", "seriesHash", "patchedHead", "workingTreeClean", "versionSuffix", "configuration", "frameworks", "dotnetSdk", "msbuildProperties", "substitutedDependencies", "packages", "patches", "overlayFiles", "createdAtUtc"],
            p.EnumerateObject().Select(o => o.Name));
        Assert.Equal(
            ["dbxmem-pack-provenance/1", "2.1.0", FakeAdbc.Tag21, fake.BaseCommit, "1.0.0", applied.GetProperty("seriesHash").GetString(), fake.Head, "dbxmem.1.0.0", "Release"],
            new[] { "schema", "toolVersion", "baseTag", "baseCommit", "seriesVersion", "seriesHash", "patchedHead", "versionSuffix", "configuration" }.Select(n => p.GetProperty(n).GetString()));
        Assert.True(p.GetProperty("workingTreeClean").GetBoolean());
        Assert.Equal("net10.0", Assert.Single(p.GetProperty("frameworks").EnumerateArray()).GetString());
        Assert.Matches(@"^\d+\.\d+\.\d+", p.GetProperty("dotnetSdk").GetString());
        Assert.Empty(p.GetProperty("msbuildProperties").EnumerateArray());
        Assert.Empty(p.GetProperty("substitutedDependencies").EnumerateArray());
        JsonElement record = Assert.Single(p.GetProperty("packages").EnumerateArray());
        Assert.Equal(
            ["Fake.Databricks", "0.21.0-dbxmem.1.0.0", Path.GetFileName(package), Hashing.Sha256Hex(File.ReadAllBytes(package))],
            new[] { "id", "version", "file", "sha256" }.Select(n => record.GetProperty(n).GetString()));
        Assert.Equal("net10.0", Assert.Single(record.GetProperty("libFolders").EnumerateArray()).GetString());
        Assert.Equal(applied.GetProperty("patches").GetRawText(), p.GetProperty("patches").GetRawText());
        Assert.Equal(applied.GetProperty("overlayFiles").GetRawText(), p.GetProperty("overlayFiles").GetRawText());
        Assert.InRange(DateTimeOffset.Parse(p.GetProperty("createdAtUtc").GetString()!, System.Globalization.CultureInfo.InvariantCulture), before, DateTimeOffset.UtcNow.AddSeconds(2));
    }

    [Fact]
    public void AnUnpatchedCheckout_IsPublishedOnlyWithAllowUnpatched_AndPackPointsThere()
    {
        using FakeAdbc fake = FakeAdbc.Create();

        ToolResult publish = fake.Tool("publish", "-f", "net10.0", "-o", "stock");
        ToolResult pack = fake.Tool("pack");
        ToolResult stock = fake.Tool("publish", "-f", "net10.0", "-o", "stock", "--allow-unpatched");

        Assert.Equal(5, publish.ExitCode);
        Assert.Contains($"is not patched (it is at {FakeAdbc.Tag21})", publish.Stderr);
        Assert.Contains("or pass --allow-unpatched", publish.Stderr);
        Assert.Equal(5, pack.ExitCode);
        Assert.Contains("`scripts/patch publish --allow-unpatched`", pack.Stderr);
        Assert.True(stock.ExitCode == 0, stock.ToString());
        Assert.Contains($"Publishing the unpatched driver of {FakeAdbc.Tag21}", stock.Stdout);
        Assert.True(File.Exists(Path.Combine(fake.Root, "stock", "Fake.Databricks.dll")));

        Assert.Equal(0, fake.Tool("apply").ExitCode);
        ToolResult badSuffix = fake.Tool("pack", "--version-suffix", "bad suffix!");
        Assert.Equal(2, badSuffix.ExitCode);
        Assert.Contains("'bad suffix!' is not a valid NuGet version suffix", badSuffix.Stderr);
    }

    [Fact]
    public void FitNuGetSource_PacksAMissingPackageTheCheckoutHolds_AndNarrowsTheTargetsForOneItDoesNot()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        AddDependencyProject(fake, DependencyFolder, "1.0.0", "SNAPSHOT");
        Reference(fake, Dependency);
        string empty = Directory.CreateDirectory(Path.Combine(fake.Root, "empty-source")).FullName;
        string notes = Path.Combine(fake.Root, "build-notes.json");
        File.WriteAllText(notes, """{"overrides": [], "datasets": [{"statement": "kept"}]}""");

        ToolResult stops = Tool(fake, "publish", "-f", "net10.0", "-o", "driver", "-p", "RestoreSources=" + empty);
        ToolResult fits = Tool(fake, "publish", "-f", "net10.0", "-o", "driver", "-p", "RestoreSources=" + empty, "--fit-nuget-source", "--build-notes", notes);

        Assert.Equal(8, stops.ExitCode);
        Assert.Contains($"dotnet restore failed for {FakeAdbc.DriverProject}", stops.Stderr);
        Assert.Contains($"your NuGet sources do not serve {Dependency}.", stops.Stderr);
        Assert.Contains("`-p TargetFrameworks=net10.0`", stops.Stderr);
        Assert.Contains("`--fit-nuget-source` adds the smallest of these overrides", stops.Stderr);
        Assert.True(fits.ExitCode == 0, fits.ToString());
        Assert.Contains("override -p:RestoreAdditionalProjectSources=<git-dir>/dbxmem-patch/local-feed", fits.Stdout);
        // The project's own version, without its -SNAPSHOT suffix, is what the reference asks for.
        Assert.True(File.Exists(Path.Combine(fake.Checkout, ".git", "dbxmem-patch", "local-feed", Dependency + ".1.0.0.nupkg")));
        Assert.True(File.Exists(Path.Combine(fake.Root, "driver", Dependency + ".dll")));
        JsonElement recorded = JsonDocument.Parse(File.ReadAllText(notes)).RootElement;
        JsonElement added = Assert.Single(recorded.GetProperty("overrides").EnumerateArray());
        Assert.Equal("-p:RestoreAdditionalProjectSources=<git-dir>/dbxmem-patch/local-feed", added.GetProperty("argument").GetString());
        Assert.Contains($"packed from {DependencyFolder}/{Dependency}.csproj", added.GetProperty("reason").GetString());
        Assert.Equal("kept", recorded.GetProperty("datasets")[0].GetProperty("statement").GetString());

        // The dependency now comes from the test's NuGet cache (NuGet keeps what it restored); this one no source serves.
        Reference(fake, "Dbxmem.Tests.NotServed");
        ToolResult notServed = Tool(fake, "publish", "-f", "net10.0", "-o", "driver", "-p", "RestoreSources=" + empty, "--fit-nuget-source");

        Assert.Equal(8, notServed.ExitCode);
        Assert.Contains("override -p:TargetFrameworks=net10.0: the NuGet source does not serve Dbxmem.Tests.NotServed; net10.0 builds without it", notServed.Stdout);
        Assert.Contains($"dotnet restore failed for {FakeAdbc.DriverProject} (with -p:TargetFrameworks=net10.0)", notServed.Stderr);
        Assert.Contains("do not serve Dbxmem.Tests.NotServed.", notServed.Stderr);
    }

    [Fact]
    public void FitNuGetSource_AcceptsASubstitutedVersion_RecordsIt_AndThePackageDeclaresTheVersionBuiltAgainst()
    {
        using FakeAdbc fake = FakeAdbc.CreateApplied();
        // The source serves 1.0.1 where the driver pins 1.0.0, under upstream's TreatWarningsAsErrors: NU1603 is an error.
        string source = SourceServingDependency(fake, "1.0.1");
        Reference(fake, Dependency, "<TreatWarningsAsErrors>true</TreatWarningsAsErrors>");
        string notes = Path.Combine(fake.Root, "build-notes.json");

        ToolResult publish = Tool(fake, "publish", "-f", "net10.0", "-o", "driver", "-p", "RestoreSources=" + source, "--fit-nuget-source", "--build-notes", notes);
        ToolResult pack = Tool(fake, "pack", "-o", "packages", "-p", "RestoreSources=" + source, "--fit-nuget-source");

        Assert.True(publish.ExitCode == 0, publish.ToString());
        Assert.Contains("override -p:WarningsNotAsErrors=NU1603: the NuGet source lacks pinned versions", publish.Stdout);
        Assert.Contains($"NuGet: built against {Dependency} 1.0.1; the tag pins 1.0.0", publish.Stdout);
        JsonElement substitution = Assert.Single(JsonDocument.Parse(File.ReadAllText(notes)).RootElement.GetProperty("substitutions").EnumerateArray());
        Assert.Equal("""{"package":"Dbxmem.Tests.Dependency","pinned":"1.0.0","resolved":"1.0.1","by":"Fake.Databricks"}""", JsonSerializer.Serialize(substitution));
        Assert.True(pack.ExitCode == 0, pack.ToString());
        JsonElement provenance = JsonDocument.Parse(File.ReadAllText(Path.Combine(fake.Root, "packages", "Fake.Databricks.0.21.0-dbxmem.1.0.0.provenance.json"))).RootElement;
        Assert.Equal(
            ["RestoreSources=" + source, "WarningsNotAsErrors=NU1603", "CustomBeforeMicrosoftCommonTargets=<git-dir>/dbxmem-patch/built-against.targets"],
            provenance.GetProperty("msbuildProperties").EnumerateArray().Select(e => e.GetString()));
        Assert.Equal(substitution.GetRawText(), Assert.Single(provenance.GetProperty("substitutedDependencies").EnumerateArray()).GetRawText());
        Assert.False(provenance.GetProperty("workingTreeClean").GetBoolean());
        // The package asks for the version its assembly was built against: with the pinned 1.0.0 in its nuspec, a feed that
        // serves 1.0.0 would give a consumer that one.
        Assert.Contains("override -p:CustomBeforeMicrosoftCommonTargets=<git-dir>/dbxmem-patch/built-against.targets: the packages declare the versions they are built against (Dbxmem.Tests.Dependency 1.0.1)", pack.Stdout);
        Assert.Equal(["net10.0: Dbxmem.Tests.Dependency 1.0.1"], DeclaredDependencies(Path.Combine(fake.Root, "packages", "Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg")));
    }
}
