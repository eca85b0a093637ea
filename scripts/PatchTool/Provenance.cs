using System.Text.Encodings.Web;
using System.Text.Json.Serialization;

namespace PatchTool;

/// <summary>What apply did to a checkout: &lt;git-dir&gt;/dbxmem-patch/provenance.json (scripts/README.md lists the fields).</summary>
internal sealed class CheckoutProvenance
{
    /// <summary>apply has started, or stopped at a --3way conflict the user is resolving.</summary>
    public const string StateApplying = "applying";

    /// <summary>Every patch is committed; patchedHead is the last commit.</summary>
    public const string StateApplied = "applied";

    public string Schema { get; set; } = "dbxmem-patch-provenance/1";
    public string ToolVersion { get; set; } = "";
    public string State { get; set; } = StateApplying;
    public string BaseTag { get; set; } = "";
    public string BaseCommit { get; set; } = "";
    public string SeriesVersion { get; set; } = "";
    public string SeriesHash { get; set; } = "";
    public string DriverDir { get; set; } = "";
    public string OverlayDir { get; set; } = "";
    public string DriverProject { get; set; } = "";

    /// <summary>The commit that adds the overlay; export starts after it.</summary>
    public string? OverlayCommit { get; set; }

    /// <summary>HEAD after the last patch; null while the state is "applying".</summary>
    public string? PatchedHead { get; set; }

    public bool ThreeWay { get; set; }
    public List<PatchRecord> Patches { get; set; } = [];
    public List<OverlayFileRecord> OverlayFiles { get; set; } = [];
    public string AppliedAtUtc { get; set; } = "";
}

/// <summary>One patch of an applied series; Commit is the commit git am made of it (null until applied).</summary>
internal sealed record PatchRecord(string Name, string Sha256, string Subject, string? Commit = null)
{
    public string? Commit { get; set; } = Commit;
}

/// <summary>A file apply wrote into the overlay folder (checkout-relative path); Generated for PatchSeriesInfo.cs.</summary>
internal sealed record OverlayFileRecord(string Path, string Sha256, bool Generated);

/// <summary>Written beside the packages by pack: what was built, from what, with what.</summary>
internal sealed class PackProvenance
{
    public string Schema { get; set; } = "dbxmem-pack-provenance/1";
    public string ToolVersion { get; set; } = "";
    public string BaseTag { get; set; } = "";
    public string BaseCommit { get; set; } = "";
    public string SeriesVersion { get; set; } = "";
    public string SeriesHash { get; set; } = "";
    public string PatchedHead { get; set; } = "";

    /// <summary>False when the checkout differed from the patched commit at pack time.</summary>
    public bool WorkingTreeClean { get; set; }

    public string VersionSuffix { get; set; } = "";
    public string Configuration { get; set; } = "";
    public List<string> Frameworks { get; set; } = [];
    public string DotnetSdk { get; set; } = "";

    /// <summary>Every NAME=VALUE the packages were built with: those given with -p and those --fit-nuget-source added.</summary>
    public List<string> MsbuildProperties { get; set; } = [];

    /// <summary>Pinned dependencies the NuGet source lacked, and the versions the packages were built against instead.</summary>
    public List<Substitution> SubstitutedDependencies { get; set; } = [];

    public List<PackageRecord> Packages { get; set; } = [];
    public List<PatchRecord> Patches { get; set; } = [];
    public List<OverlayFileRecord> OverlayFiles { get; set; } = [];
    public string CreatedAtUtc { get; set; } = "";
}

/// <summary>One package pack wrote; LibFolders are the targets it carries (lib/net472, lib/net8.0, lib/netstandard2.0 as net472, ...).</summary>
internal sealed record PackageRecord(string Id, string Version, string File, string Sha256, IReadOnlyList<string> LibFolders);

/// <summary>
/// A pinned dependency the NuGet source lacked and the newer version NuGet resolved instead (NU1603); By depends on it.
/// StandIn (the reason) is set for a package the source lacks altogether that the build replaced by an empty stand-in.
/// </summary>
internal sealed record Substitution(string Package, string Pinned, string Resolved, string By, [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? StandIn = null);

/// <summary>One JSON style for every file the tool reads and writes: camelCase, indented, LF, UTF-8 without BOM.</summary>
internal static class Json
{
    public static readonly JsonSerializerOptions Options = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = true,
        NewLine = "\n",
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
        ReadCommentHandling = JsonCommentHandling.Skip,
        AllowTrailingCommas = true,
    };

    public static T Read<T>(string path) => JsonSerializer.Deserialize<T>(File.ReadAllText(path), Options) ?? throw new JsonException("the file holds null");

    /// <summary>Writes then renames, so an interrupted run never leaves half a file behind.</summary>
    public static void Write<T>(string path, T value)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        File.WriteAllText(path + ".tmp", JsonSerializer.Serialize(value, Options) + "\n", new UTF8Encoding(false));
        File.Move(path + ".tmp", path, overwrite: true);
    }
}
