using System.IO.Compression;
using System.Xml.Linq;

namespace PatchTool.Tests.Support;

/// <summary>
/// NuGet around the fake driver: tool runs with a NuGet cache of the test's own, dependency projects and packages in
/// folder sources, references from the driver project, and what a packed .nupkg declares (read here with
/// System.Xml.Linq, not with the tool's own reader).
/// </summary>
internal static class FakePackages
{
    public const string Dependency = "Dbxmem.Tests.Dependency";

    public static ToolResult Tool(FakeAdbc fake, params string[] args) =>
        fake.ToolWithEnvironment([.. args, "--adbc", fake.Checkout, "--patches", fake.Patches, "--overlay", fake.Overlay], CacheOfItsOwn(fake));

    /// <summary>The fixture's environment with a NuGet cache of the test's own: a package an earlier run cached must not stand in for the source.</summary>
    public static Dictionary<string, string?> CacheOfItsOwn(FakeAdbc fake)
    {
        Dictionary<string, string?> environment = fake.Environment;
        environment["NUGET_PACKAGES"] = Path.Combine(fake.Root, "nuget-cache");
        return environment;
    }

    public static void AddDependencyProject(FakeAdbc fake, string folder, string version, string suffix)
    {
        fake.WriteFile($"{folder}/{Dependency}.csproj", $"<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net10.0</TargetFramework>\n    <VersionPrefix>{version}</VersionPrefix>\n    <VersionSuffix>{suffix}</VersionSuffix>\n  </PropertyGroup>\n</Project>\n");
        fake.WriteFile($"{folder}/Dependency.cs", "namespace Dbxmem.Tests\n{\n    public static class Dependency\n    {\n    }\n}\n");
    }

    /// <summary>dotnet pack of a project folder (relative to the fixture's root) into a folder source, with the test's own cache.</summary>
    public static void PackInto(FakeAdbc fake, string projectFolder, string source)
    {
        ProcessResult packed = ProcessRunner.Run("dotnet", ["pack", Path.Combine(fake.Root, projectFolder), "-o", source, "-nologo", "--disable-build-servers"], fake.Root, CacheOfItsOwn(fake));
        Assert.True(packed.Succeeded, packed.Output);
    }

    /// <summary>A folder source that serves <see cref="Dependency"/> <paramref name="version"/> alone, packed from a project outside the checkout; returns its path.</summary>
    public static string SourceServingDependency(FakeAdbc fake, string version)
    {
        string source = Path.Combine(fake.Root, "source");
        AddDependencyProject(fake, "../dependency", version, "");
        PackInto(fake, "dependency", source);
        return source;
    }

    /// <summary>Makes the driver project reference <paramref name="package"/> 1.0.0, as upstream pins its dependencies.</summary>
    public static void Reference(FakeAdbc fake, string package, string property = "")
    {
        fake.WriteFile(FakeAdbc.DriverProject, fake.ReadFile(FakeAdbc.DriverProject).Replace(
            "  </PropertyGroup>\n", $"    {property}\n  </PropertyGroup>\n  <ItemGroup>\n    <PackageReference Include=\"{package}\" Version=\"1.0.0\" />\n  </ItemGroup>\n"));
    }

    /// <summary>The dependencies a .nupkg's nuspec declares, as "group: id version" lines in file order.</summary>
    public static List<string> DeclaredDependencies(string nupkg)
    {
        using ZipArchive zip = ZipFile.OpenRead(nupkg);
        using Stream nuspec = zip.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal)).Open();
        return XDocument.Load(nuspec).Descendants().Where(e => e.Name.LocalName == "dependency")
            .Select(d => $"{d.Parent!.Attribute("targetFramework")?.Value}: {d.Attribute("id")!.Value} {d.Attribute("version")!.Value}").ToList();
    }

    public static List<string> Entries(string nupkg)
    {
        using ZipArchive zip = ZipFile.OpenRead(nupkg);
        return zip.Entries.Select(e => e.FullName).ToList();
    }
}
