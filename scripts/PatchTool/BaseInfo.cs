using System.Text.Json.Serialization;

namespace PatchTool;

/// <summary>
/// patches/&lt;tag&gt;/base.json: the upstream commit a series was made on and where the driver lives in that tree
/// (patches/README.md describes each field). Paths are checkout-relative with forward slashes, as git prints them.
/// </summary>
internal sealed class BaseInfo
{
    /// <summary>The overlay's own namespace (driver-overlay/*.cs declare it), the driver's in apache/arrow-adbc.</summary>
    public const string OverlayNamespace = "Apache.Arrow.Adbc.Drivers.Databricks";

    public string Tag { get; set; } = "";
    public string? Repository { get; set; }
    public string Commit { get; set; } = "";
    public string DriverDir { get; set; } = "";
    public string OverlayDir { get; set; } = "";
    public string DriverProject { get; set; } = "";

    /// <summary>The driver's namespace when it is not the overlay's own; apply then declares the copied overlay files in it.</summary>
    [JsonPropertyName("overlayNamespace")]
    public string? DriverNamespace { get; set; }

    /// <summary>Submodules the driver builds from, parents first; apply, publish and pack need them at the pinned commits.</summary>
    public List<string> Submodules { get; set; } = [];

    /// <summary>
    /// Overlay files (paths below driver-overlay/) this base does not take: new logic another base's patches use and
    /// this base's never call. A name that is not an overlay file is an error, so the list cannot go stale silently.
    /// </summary>
    public List<string> OverlayExclude { get; set; } = [];

    public string? Notes { get; set; }

    [JsonIgnore]
    public string Folder { get; private set; } = "";

    [JsonIgnore]
    public string Namespace => string.IsNullOrWhiteSpace(DriverNamespace) ? OverlayNamespace : DriverNamespace;

    [JsonIgnore]
    public string RepositoryName => string.IsNullOrWhiteSpace(Repository) ? "apache/arrow-adbc" : Repository;

    /// <summary>The folder of a base under patches/: its tag, with '/' (csharp/v1.1.7) written as '-'.</summary>
    public static string FolderName(string tag) => tag.Replace('/', '-');

    public static BaseInfo Load(string folder)
    {
        string file = Path.Combine(folder, "base.json");
        BaseInfo info;
        try
        {
            info = Json.Read<BaseInfo>(file);
        }
        catch (JsonException ex)
        {
            throw Invalid(file, $"is not valid JSON: {ex.Message}");
        }

        info.Folder = folder;
        string folderName = Path.GetFileName(folder);
        if (!Regex.IsMatch(info.Tag, @"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$") || FolderName(info.Tag) != folderName)
        {
            throw Invalid(file, $"has \"tag\": \"{info.Tag}\" but lives in folder '{folderName}'; the folder name must be the tag, with '/' written as '-'");
        }

        if (!Regex.IsMatch(info.Commit, "^[0-9a-f]{40}$"))
        {
            throw Invalid(file, $"has \"commit\": \"{info.Commit}\"; it must be the full 40-hex commit id (git rev-parse {info.Tag}^{{commit}})");
        }

        foreach ((string field, string value) in new[] { ("driverDir", info.DriverDir), ("overlayDir", info.OverlayDir), ("driverProject", info.DriverProject) }
            .Concat(info.Submodules.ConvertAll(s => ("submodules", s))))
        {
            if (value.Length == 0 || value.StartsWith('/') || value.EndsWith('/') || value.Contains('\\') || value.Contains("..") || value.Contains(':'))
            {
                throw Invalid(file, $"has \"{field}\": \"{value}\"; it must be a path relative to the checkout root, with forward slashes and no trailing slash");
            }
        }

        if (!info.DriverProject.EndsWith(".csproj", StringComparison.Ordinal))
        {
            throw Invalid(file, $"has \"driverProject\": \"{info.DriverProject}\"; it must name a .csproj file");
        }

        if (!Regex.IsMatch(info.Namespace, @"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"))
        {
            throw Invalid(file, $"has \"overlayNamespace\": \"{info.DriverNamespace}\", which is not a C# namespace");
        }

        return info;
    }

    private static ToolException Invalid(string file, string what) => new(ExitCodes.InvalidSeries, $"{file} {what}.", "fix base.json; patches/README.md describes its fields");
}
