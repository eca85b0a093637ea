namespace PatchTool;

/// <summary>
/// A source file apply copies into the checkout: one of driver-overlay/ (into the overlay folder), or one of the series'
/// tests for upstream's test project (the base's testOverlay, into its testOverlayDir).
/// </summary>
internal sealed class OverlayFile(string relativePath, byte[] bytes)
{
    /// <summary>The file apply generates beside the overlay; an overlay file of that name would be overwritten.</summary>
    public const string GeneratedFileName = "PatchSeriesInfo.cs";

    private static readonly Regex NamespaceDeclaration = new(
        @"^(?<keyword>[ \t]*namespace[ \t]+)" + Regex.Escape(BaseInfo.OverlayNamespace) + @"(?=[.\s;{]|$)", RegexOptions.Multiline);

    /// <summary>
    /// The block comment a file opens with (after an optional BOM and blank space): the license header an overlay
    /// header replaces. Non-greedy, so it ends at the first "*/".
    /// </summary>
    private static readonly Regex LeadingBlockComment = new(@"\A(?<bom>\uFEFF?)\s*/\*.*?\*/", RegexOptions.Singleline);

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
    /// The file as apply writes it: in <paramref name="driverNamespace"/> when given (overlay files; the tests keep
    /// theirs), and with its leading block comment replaced by <paramref name="header"/> when given (the new home's
    /// license header instead of the ASF one). The header takes the file's line endings, so a CRLF clone gets no mixed file.
    /// </summary>
    public byte[] BytesFor(string? driverNamespace, string? header)
    {
        byte[] result = driverNamespace == null ? bytes : BytesFor(driverNamespace);
        if (header == null)
        {
            return result;
        }

        string text = Encoding.UTF8.GetString(result);
        Match comment = LeadingBlockComment.Match(text);
        if (!comment.Success)
        {
            throw new ToolException(ExitCodes.InvalidSeries, $"{RelativePath} does not start with a block comment (the license header the base's overlayHeader replaces).", MissingHeaderHint);
        }

        string lineEnding = text.Contains("\r\n", StringComparison.Ordinal) ? "\r\n" : "\n";
        return Encoding.UTF8.GetBytes(comment.Groups["bom"].Value + header.Replace("\n", lineEnding) + text[(comment.Index + comment.Length)..]);
    }

    /// <summary>True when the file opens with a block comment, which an overlay header can replace.</summary>
    public bool StartsWithBlockComment => LeadingBlockComment.IsMatch(Encoding.UTF8.GetString(bytes));

    public const string MissingHeaderHint = "open the file with its license header as a /* ... */ block comment, as every driver-overlay/*.cs does";

    /// <summary>
    /// An overlay header file's text, LF, without trailing blank space; null with <paramref name="problem"/> set when it
    /// is not exactly one block comment (anything else would end up in front of every file's code).
    /// </summary>
    public static string? ReadHeader(string path, out string? problem)
    {
        string header = File.ReadAllText(path).TrimStart('\uFEFF').Replace("\r\n", "\n").Trim();
        bool oneComment = header.Length >= 4 && header.StartsWith("/*", StringComparison.Ordinal) && header.IndexOf("*/", 2, StringComparison.Ordinal) == header.Length - 2;
        problem = oneComment ? null : $"{path} must hold one C# block comment (/* ... */) and nothing else";
        return problem == null ? header : null;
    }

    /// <summary>
    /// The overlay's *.cs files, recursively, in ordinal order. Skipped: bin/, obj/, hidden folders and every subfolder
    /// with its own .csproj (the overlay's tests and standalone build live beside it and are not driver source).
    /// </summary>
    /// <summary>The series' tests for upstream's test project: the *.cs files below <paramref name="root"/>, as <see cref="LoadAll"/> finds them.</summary>
    public static IReadOnlyList<OverlayFile> LoadTests(string root)
    {
        var files = new List<OverlayFile>();
        Collect(root, root, files);
        return files.OrderBy(f => f.RelativePath, System.StringComparer.Ordinal).ToList();
    }

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
