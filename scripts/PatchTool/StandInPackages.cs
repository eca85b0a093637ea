namespace PatchTool;

/// <summary>
/// A package the NuGet source does not serve that a build may replace by an empty stand-in, and why that is safe: only
/// packages listed here, each with the reason the driver never loads it. Any other missing package is not stood in for.
/// </summary>
internal sealed record StandIn(string Id, string Version, string Reason)
{
    /// <summary>
    /// ApacheThrift 0.25.0 (what the drivers build against, the pinned 0.22.0 not being served) depends on it for
    /// netstandard2.0 and netstandard2.1 alone, for the access control of its named-pipe server transport; the Databricks
    /// driver speaks Thrift over HTTP and never loads that transport, so its netstandard2.0 and net472 builds compile and
    /// run without the assembly. A .NET Framework host gets the real package from its own feed (nuget.org serves it).
    /// </summary>
    public static readonly IReadOnlyList<StandIn> Known =
    [
        new("System.IO.Pipes.AccessControl", "5.0.0",
            "ApacheThrift 0.25.0 needs it on netstandard2.0 only for its named-pipe server transport, which the driver (Thrift over HTTP) never loads"),
    ];

    public static StandIn? Find(string id) => Known.FirstOrDefault(s => s.Id.Equals(id, StringComparison.OrdinalIgnoreCase));
}

/// <summary>
/// Makes empty stand-in packages (a nuspec and lib/netstandard2.0/_._: compatible with every target, no assembly) and
/// lays them out, extracted by NuGet itself, in a folder that restores use as a fallback folder
/// (RestoreAdditionalProjectFallbackFolders). A fallback folder is read in place: nothing of it is copied into the NuGet
/// cache, so no other restore on the machine can pick a stand-in up, and the packages a pack writes never contain one
/// (pack checks that too).
/// </summary>
internal static class StandInPackages
{
    /// <summary>The throwaway projects are built in a temporary folder; no Directory.*.props or .targets above it applies.</summary>
    private static readonly string[] Isolated = ["-nologo", "--disable-build-servers", "-p:ImportDirectoryBuildProps=false", "-p:ImportDirectoryBuildTargets=false", "-p:ImportDirectoryPackagesProps=false"];

    /// <summary>Makes the stand-ins missing from <paramref name="folder"/> with <paramref name="dotnet"/> (arguments, working directory).</summary>
    public static void Make(string folder, IReadOnlyList<StandIn> standIns, Func<IEnumerable<string>, string, ProcessResult> dotnet)
    {
        List<StandIn> missing = standIns.Where(s => !File.Exists(Path.Combine(folder, s.Id.ToLowerInvariant(), s.Version, s.Id.ToLowerInvariant() + ".nuspec"))).ToList();
        if (missing.Count == 0)
        {
            return;
        }

        string work = Path.Combine(Path.GetTempPath(), "dbxmem-stand-ins-" + Guid.NewGuid().ToString("N"));
        try
        {
            string feed = Path.Combine(work, "feed");
            foreach (StandIn standIn in missing)
            {
                string source = Path.Combine(work, standIn.Id);
                Directory.CreateDirectory(source);
                File.WriteAllText(Path.Combine(source, "_._"), "");
                File.WriteAllText(Path.Combine(source, standIn.Id + ".csproj"), PackageProject(standIn));
                Run(dotnet, ["pack", source, "-o", feed, .. Isolated], work, $"packing the stand-in for {standIn.Id}");
            }

            // A restore into the folder lays each package out as NuGet reads a fallback folder (hash and metadata files).
            string extract = Path.Combine(work, "extract");
            Directory.CreateDirectory(extract);
            File.WriteAllText(Path.Combine(extract, "extract.csproj"), ExtractProject(missing));
            Run(dotnet, ["restore", extract, "-p:RestoreSources=" + feed, "-p:RestorePackagesPath=" + folder, .. Isolated], work, "laying the stand-ins out");
        }
        finally
        {
            Directory.Delete(work, recursive: true);
        }
    }

    private static void Run(Func<IEnumerable<string>, string, ProcessResult> dotnet, IEnumerable<string> arguments, string directory, string what)
    {
        ProcessResult result = dotnet(arguments, directory);
        if (!result.Succeeded)
        {
            throw new ToolException(ExitCodes.BuildFailed, $"{what} failed: {Git.FirstLines(result.Output, 12)}", "check that the .NET SDK can pack a project (`dotnet --info`)");
        }
    }

    private static string PackageProject(StandIn standIn) => $"""
        <Project Sdk="Microsoft.NET.Sdk">
          <PropertyGroup>
            <TargetFramework>net10.0</TargetFramework>
            <PackageId>{standIn.Id}</PackageId>
            <Version>{standIn.Version}</Version>
            <Authors>dbxmem scripts/patch</Authors>
            <Description>Build-time stand-in without assemblies, made because the NuGet source does not serve {standIn.Id} {standIn.Version}: {standIn.Reason}. Never published, never inside a package.</Description>
            <IncludeBuildOutput>false</IncludeBuildOutput>
            <SuppressDependenciesWhenPacking>true</SuppressDependenciesWhenPacking>
            <NoWarn>$(NoWarn);NU5128</NoWarn>
          </PropertyGroup>
          <ItemGroup>
            <None Include="_._" Pack="true" PackagePath="lib/netstandard2.0/" />
          </ItemGroup>
        </Project>
        """;

    private static string ExtractProject(IEnumerable<StandIn> standIns) => $"""
        <Project Sdk="Microsoft.NET.Sdk">
          <PropertyGroup>
            <TargetFramework>net10.0</TargetFramework>
            <RestoreEnablePackagePruning>false</RestoreEnablePackagePruning>
            <NoWarn>$(NoWarn);NU1510</NoWarn>
          </PropertyGroup>
          <ItemGroup>
            {string.Join("\n", standIns.Select(s => $"    <PackageReference Include=\"{s.Id}\" Version=\"[{s.Version}]\" />"))}
          </ItemGroup>
        </Project>
        """;
}
