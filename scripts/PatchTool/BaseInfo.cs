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

    /// <summary>
    /// A text file below patches/ holding the C# block comment that replaces the leading block comment (the ASF header)
    /// of every file apply copies in: the new home's own license header (its CODING_GUIDELINES.md section 5).
    /// </summary>
    public string? OverlayHeader { get; set; }

    /// <summary>
    /// A folder of this repository (relative to the folder that holds patches/) whose *.cs files are the series' tests in
    /// upstream's test project; apply copies them into <see cref="TestOverlayDir"/> in the overlay commit.
    /// </summary>
    public string? TestOverlay { get; set; }

    /// <summary>Where in the checkout the test overlay goes (inside upstream's test project, so its `dotnet test` runs them).</summary>
    public string? TestOverlayDir { get; set; }

    public string? Notes { get; set; }

    [JsonIgnore]
    public string Folder { get; private set; } = "";

    [JsonIgnore]
    public string Namespace => string.IsNullOrWhiteSpace(DriverNamespace) ? OverlayNamespace : DriverNamespace;

    /// <summary>The checkout folders the overlay commit writes (the overlay, and the test overlay when set): export leaves them out.</summary>
    [JsonIgnore]
    public IReadOnlyList<string> OverlayFolders => TestOverlayDir == null ? [OverlayDir] : [OverlayDir, TestOverlayDir];

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

        foreach ((string field, string? value) in new[] { ("driverDir", info.DriverDir), ("overlayDir", info.OverlayDir), ("driverProject", info.DriverProject), ("testOverlayDir", info.TestOverlayDir) }
            .Concat(info.Submodules.ConvertAll(s => ("submodules", (string?)s))).Where(f => f.Item2 != null))
        {
            if (!IsRelativePath(value!))
            {
                throw Invalid(file, $"has \"{field}\": \"{value}\"; it must be a path relative to the checkout root, with forward slashes and no trailing slash");
            }
        }

        foreach ((string field, string? value, string root) in new[] { ("overlayHeader", info.OverlayHeader, "the patches folder"), ("testOverlay", info.TestOverlay, "the repository root (the folder holding patches/)") })
        {
            if (value != null && !IsRelativePath(value))
            {
                throw Invalid(file, $"has \"{field}\": \"{value}\"; it must be a path relative to {root}, with forward slashes and no trailing slash");
            }
        }

        if ((info.TestOverlay == null) != (info.TestOverlayDir == null))
        {
            throw Invalid(file, "has only one of \"testOverlay\" and \"testOverlayDir\"; the test overlay needs both (the folder here and where it goes in the checkout)");
        }

        if (info.TestOverlayDir != null && (Inside(info.TestOverlayDir, info.OverlayDir) || Inside(info.OverlayDir, info.TestOverlayDir)))
        {
            throw Invalid(file, $"has \"testOverlayDir\": \"{info.TestOverlayDir}\" overlapping \"overlayDir\": \"{info.OverlayDir}\"; they must be separate folders");
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

    private static bool IsRelativePath(string value) =>
        value.Length > 0 && !value.StartsWith('/') && !value.EndsWith('/') && !value.Contains('\\') && !value.Contains("..") && !value.Contains(':');

    private static bool Inside(string path, string folder) => path == folder || path.StartsWith(folder + "/", StringComparison.Ordinal);

    private static ToolException Invalid(string file, string what) => new(ExitCodes.InvalidSeries, $"{file} {what}.", "fix base.json; patches/README.md describes its fields");
}
