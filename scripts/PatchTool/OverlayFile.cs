namespace PatchTool;

/// <summary>A source file of driver-overlay/, copied verbatim into the checkout's overlay folder.</summary>
internal sealed class OverlayFile(string relativePath, byte[] bytes)
{
    /// <summary>The file apply generates beside the overlay; an overlay file of that name would be overwritten.</summary>
    public const string GeneratedFileName = "PatchSeriesInfo.cs";

    private static readonly Regex NamespaceDeclaration = new(
        @"^(?<keyword>[ \t]*namespace[ \t]+)" + Regex.Escape(BaseInfo.OverlayNamespace) + @"(?=[.\s;{]|$)", RegexOptions.Multiline);

    /// <summary>Path below the overlay folder, forward slashes.</summary>
    public string RelativePath { get; } = relativePath;

    public string Sha256 { get; } = Hashing.SourceSha256Hex(bytes);

    /// <summary>
    /// The file as apply writes it into a driver whose namespace is <paramref name="driverNamespace"/>: each declaration
    /// of the overlay's own namespace (or one below it) names the driver's, so the overlay's internal types sit beside
    /// the driver's. Nothing else changes: string literals that spell the namespace (the meter name) stay, so dashboards
    /// work with either driver.
    /// </summary>
    public byte[] BytesFor(string driverNamespace) => driverNamespace == BaseInfo.OverlayNamespace
        ? bytes
        : Encoding.UTF8.GetBytes(NamespaceDeclaration.Replace(Encoding.UTF8.GetString(bytes), m => m.Groups["keyword"].Value + driverNamespace));

    /// <summary>
    /// The overlay's *.cs files, recursively, in ordinal order. Skipped: bin/, obj/, hidden folders and every subfolder
    /// with its own .csproj (the overlay's tests and standalone build live beside it and are not driver source).
    /// </summary>
    public static IReadOnlyList<OverlayFile> LoadAll(string root)
    {
        if (!Directory.Exists(root))
        {
            throw new ToolException(ExitCodes.Environment, $"overlay folder {root} does not exist.", "pass --overlay DIR, or run the tool from a clone of this repository (it uses driver-overlay/)");
        }

        var files = new List<OverlayFile>();
        Collect(root, root, files);
        if (files.Any(f => f.RelativePath == GeneratedFileName))
        {
            throw new ToolException(
                ExitCodes.InvalidSeries,
                $"{Path.Combine(root, GeneratedFileName)} clashes with the file apply generates in the overlay folder.",
                "rename the overlay file; PatchSeriesInfo.cs is written by the tool (series version, base, hash)");
        }

        return files.OrderBy(f => f.RelativePath, System.StringComparer.Ordinal).ToList();
    }

    private static void Collect(string root, string directory, List<OverlayFile> files)
    {
        string name = Path.GetFileName(directory);
        if (directory != root && (name is "bin" or "obj" || name.StartsWith('.') || Directory.EnumerateFiles(directory, "*.csproj").Any()))
        {
            return;
        }

        files.AddRange(Directory.EnumerateFiles(directory, "*.cs").Select(f => new OverlayFile(Path.GetRelativePath(root, f).Replace('\\', '/'), File.ReadAllBytes(f))));
        foreach (string sub in Directory.EnumerateDirectories(directory))
        {
            Collect(root, sub, files);
        }
    }
}
