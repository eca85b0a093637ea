namespace PatchTool;

/// <summary>
/// The list of patches in a series folder's README.md, written by export from the series file and each patch's message
/// (subject and Upstream-Status) and compared with them by the repository's tests, so a README cannot drift from its
/// series. Only the part between the markers is written; the prose around it is the folder's own.
/// </summary>
internal static class SeriesReadme
{
    public const string FileName = "README.md";

    public const string Begin = "<!-- series: written by `scripts/patch export` from the series file and the patches' messages; change those, not this list -->";

    public const string End = "<!-- end of series -->";

    /// <summary>
    /// The README of <paramref name="folder"/> with its list replaced by one for <paramref name="entries"/> (the series
    /// file's entries, in order: patch file names and `include` lines); a README without the markers gets the list
    /// appended, a folder without one a README holding only it. LF line endings: byte-stable.
    /// </summary>
    public static string Render(string folder, IEnumerable<string> entries, Func<string, PatchFile?> patchNamed)
    {
        string path = Path.Combine(folder, FileName);
        string readme = File.Exists(path) ? File.ReadAllText(path).Replace("\r\n", "\n") : $"# Series `{Path.GetFileName(folder)}`\n";
        string list = List(entries, patchNamed);
        int begin = readme.IndexOf(Begin, StringComparison.Ordinal);
        int end = readme.IndexOf(End, StringComparison.Ordinal);
        return begin >= 0 && end > begin
            ? readme[..begin] + list + readme[(end + End.Length)..]
            : readme.TrimEnd('\n') + "\n\n## Patches, in order\n\n" + list + "\n";
    }

    private static string List(IEnumerable<string> entries, Func<string, PatchFile?> patchNamed)
    {
        var list = new StringBuilder(Begin + "\n\n| Patch | What | Upstream-Status |\n|---|---|---|\n");
        foreach (string entry in entries)
        {
            string? shared = SeriesFile.IncludedName(entry);
            if (shared != null)
            {
                list.Append($"| [`include {shared}`](../{PatchRepository.SharedFolderName}/{shared}/{FileName}) | the shared series' patches, in its order | |\n");
                continue;
            }

            PatchFile? patch = patchNamed(entry);
            list.Append($"| `{entry}` | {Cell(patch?.Subject)} | {Cell(patch?.UpstreamStatus)} |\n");
        }

        return list.Append('\n').Append(End).ToString();
    }

    private static string Cell(string? text) => (text ?? "(missing)").Replace("|", "\\|");
}
