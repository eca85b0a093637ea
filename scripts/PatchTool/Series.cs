namespace PatchTool;

/// <summary>
/// The patch data: patches/VERSION, one folder per supported base (base.json, series, *.patch), the shared series
/// under patches/shared/, and the overlay sources (patches/README.md describes them all).
/// </summary>
internal sealed class PatchRepository(string patchesDirectory, string overlayDirectory)
{
    public const string SharedFolderName = "shared";

    public string PatchesDirectory { get; } = patchesDirectory;

    public string OverlayDirectory { get; } = overlayDirectory;

    public string SharedFolder(string name) => Path.Combine(PatchesDirectory, SharedFolderName, name);

    /// <summary>
    /// The folder holding patches/ (this repository's root): base.json's testOverlay is relative to it, because the
    /// series' tests live beside the overlay, not among the patch data.
    /// </summary>
    public string RepositoryDirectory => Path.GetDirectoryName(Path.TrimEndingDirectorySeparator(PatchesDirectory))!;

    public string ReadVersion()
    {
        string file = Path.Combine(RequireFolder(), "VERSION");
        string version = File.Exists(file) ? File.ReadAllText(file).Trim() : throw new ToolException(
            ExitCodes.InvalidSeries, $"{file} is missing.", "create it with the series version on one line, e.g. 1.0.0");
        return Regex.IsMatch(version, @"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$") ? version : throw new ToolException(
            ExitCodes.InvalidSeries,
            $"{file} holds '{version}', which is not a version like 1.0.0 or 1.1.0-rc.1.",
            "write a semantic version; it becomes part of the NuGet version suffix (dbxmem.<version>)");
    }

    /// <summary>Every folder with a base.json, ordered by tag.</summary>
    public IReadOnlyList<BaseInfo> LoadBases() => Directory.EnumerateDirectories(RequireFolder())
        .Where(d => File.Exists(Path.Combine(d, "base.json")))
        .OrderBy(d => d, StringComparer.Ordinal)
        .Select(BaseInfo.Load)
        .ToList();

    public BaseInfo LoadBase(string tag)
    {
        string folder = Path.Combine(RequireFolder(), BaseInfo.FolderName(tag));
        return File.Exists(Path.Combine(folder, "base.json")) ? BaseInfo.Load(folder) : throw new ToolException(
            ExitCodes.InvalidSeries,
            $"there is no series for '{tag}' ({folder}/base.json does not exist).",
            $"supported bases: {string.Join(", ", LoadBases().Select(b => b.Tag))}; to add one, see 'Adding a base tag' in scripts/README.md");
    }

    /// <summary>The tags whose series includes the shared series <paramref name="name"/>.</summary>
    public IReadOnlyList<string> TagsIncluding(string name) =>
        LoadBases().Where(b => SeriesFile.Entries(Path.Combine(b.Folder, SeriesFile.Name)).Any(e => SeriesFile.IncludedName(e) == name)).Select(b => b.Tag).ToList();

    /// <summary>The series of one base with the overlay and VERSION; problems in it are collected, not thrown, so check can list them all.</summary>
    public SeriesDefinition LoadSeries(BaseInfo baseInfo)
    {
        var problems = new List<string>();
        var patches = new List<PatchFile>();
        var parts = new List<SeriesPart>();
        var listed = new HashSet<string>(StringComparer.Ordinal);
        var included = new HashSet<string>(StringComparer.Ordinal);
        string seriesPath = Path.Combine(baseInfo.Folder, SeriesFile.Name);
        if (!File.Exists(seriesPath))
        {
            problems.Add($"{seriesPath} is missing (create it, even empty, to list the patches in order)");
        }

        var own = new List<string>();
        foreach (string entry in SeriesFile.Entries(seriesPath))
        {
            string? shared = SeriesFile.IncludedName(entry);
            if (shared == null)
            {
                own.Add(entry);
                AddPatch(baseInfo.Folder, entry, listed, patches, problems);
                continue;
            }

            string sharedSeries = Path.Combine(SharedFolder(shared), SeriesFile.Name);
            if (!Regex.IsMatch(shared, @"^[A-Za-z0-9][A-Za-z0-9._-]*$") || !included.Add(shared) || !File.Exists(sharedSeries))
            {
                problems.Add($"'{entry}': a series includes an existing shared series ({sharedSeries}) at most once");
                continue;
            }

            parts.Add(new SeriesPart(baseInfo.Folder, null, own));
            own = [];
            // Listed names count even before their file exists (see SeriesPart.Names); a missing file is still a problem.
            List<string> names = SeriesFile.Entries(sharedSeries).ToList();
            foreach (string name in names)
            {
                if (SeriesFile.IncludedName(name) != null)
                {
                    problems.Add($"{sharedSeries}: '{name}': a shared series lists patches only (no nested include)");
                }
                else
                {
                    AddPatch(SharedFolder(shared), name, listed, patches, problems);
                }
            }

            parts.Add(new SeriesPart(SharedFolder(shared), shared, names));
        }

        parts.Add(new SeriesPart(baseInfo.Folder, null, own));
        parts.RemoveAll(p => !p.IsShared && p.Names.Count == 0);
        List<string> unlisted = parts.Where(p => p.IsShared).Select(p => p.Folder).Prepend(baseInfo.Folder)
            .SelectMany(folder => Directory.EnumerateFiles(folder, "*.patch")
                .Where(f => !listed.Contains(Path.GetFileName(f)))
                .Select(f => Path.GetRelativePath(PatchesDirectory, f).Replace('\\', '/')))
            .OrderBy(f => f, StringComparer.Ordinal)
            .ToList();
        IReadOnlyList<OverlayFile> overlay = OverlayFile.LoadAll(OverlayDirectory);
        foreach (string excluded in baseInfo.OverlayExclude.Where(e => overlay.All(f => f.RelativePath != e)))
        {
            problems.Add($"{Path.GetFileName(baseInfo.Folder)}/base.json: \"overlayExclude\" names '{excluded}', which is not an overlay file");
        }

        overlay = overlay.Where(f => !baseInfo.OverlayExclude.Contains(f.RelativePath)).ToList();
        string? header = null;
        if (baseInfo.OverlayHeader != null)
        {
            string headerFile = Path.Combine(PatchesDirectory, baseInfo.OverlayHeader);
            string? problem = $"{Path.GetFileName(baseInfo.Folder)}/base.json: \"overlayHeader\" names {headerFile}, which does not exist";
            header = File.Exists(headerFile) ? OverlayFile.ReadHeader(headerFile, out problem) : null;
            if (problem != null)
            {
                problems.Add(problem);
            }
        }

        IReadOnlyList<OverlayFile> tests = [];
        if (baseInfo.TestOverlay != null)
        {
            string testFolder = TestOverlayDirectory(baseInfo)!;
            tests = Directory.Exists(testFolder) ? OverlayFile.LoadTests(testFolder) : [];
            if (!Directory.Exists(testFolder))
            {
                problems.Add($"{Path.GetFileName(baseInfo.Folder)}/base.json: \"testOverlay\" names {testFolder}, which does not exist");
            }
        }

        if (baseInfo.OverlayHeader != null)
        {
            problems.AddRange(overlay.Where(f => !f.StartsWithBlockComment).Select(f => $"{Path.Combine(OverlayDirectory, f.RelativePath)} does not start with a block comment, which {Path.GetFileName(baseInfo.Folder)}/base.json's \"overlayHeader\" replaces ({OverlayFile.MissingHeaderHint})"));
            problems.AddRange(tests.Select(f => (File: f, Path: Path.Combine(TestOverlayDirectory(baseInfo)!, f.RelativePath))).Where(t => !t.File.StartsWithBlockComment)
                .Select(t => $"{t.Path} does not start with a block comment, which {Path.GetFileName(baseInfo.Folder)}/base.json's \"overlayHeader\" replaces ({OverlayFile.MissingHeaderHint})"));
        }

        return new SeriesDefinition(baseInfo, ReadVersion(), patches, overlay, problems, unlisted, parts, header, tests);
    }

    /// <summary>The base's test overlay folder in this repository, or null when it has none.</summary>
    public string? TestOverlayDirectory(BaseInfo baseInfo) => baseInfo.TestOverlay == null ? null : Path.GetFullPath(Path.Combine(RepositoryDirectory, baseInfo.TestOverlay));

    private static void AddPatch(string folder, string entry, HashSet<string> listed, List<PatchFile> patches, List<string> problems)
    {
        string file = Path.Combine(folder, entry);
        string? problem =
            entry.Contains('/') || entry.Contains('\\') || !entry.EndsWith(".patch", StringComparison.Ordinal) ? $"series entry '{entry}' must be a file name ending in .patch (or `include <shared series>`)"
            : !listed.Add(entry) ? $"series lists '{entry}' twice (patch names are unique across a tag's series and the shared series it includes)"
            : !File.Exists(file) ? $"series lists '{entry}' but {file} does not exist"
            : null;
        if (problem != null)
        {
            problems.Add(problem);
            return;
        }

        var patch = PatchFile.Load(file);
        patches.Add(patch);
        if (!patch.IsMbox || !patch.HasDiff)
        {
            problems.Add($"{entry} is not a git format-patch file with a diff (the 'From <sha> ...' line, From:/Subject: headers, 'diff --git'); make it with `scripts/patch export`");
        }

        if (patch.MissingHeaderFields.Count > 0)
        {
            problems.Add($"{entry} lacks the header field(s) {string.Join(", ", patch.MissingHeaderFields.Select(f => f + ":"))} in its commit message");
        }
    }

    private string RequireFolder() => Directory.Exists(PatchesDirectory) ? PatchesDirectory : throw new ToolException(
        ExitCodes.Environment, $"patches folder {PatchesDirectory} does not exist.", "pass --patches DIR, or run the tool from a clone of this repository (it uses patches/)");
}

/// <summary>Everything apply needs for one base: the patches in order, the overlay, the version, and any problems.</summary>
internal sealed class SeriesDefinition
{
    public SeriesDefinition(
        BaseInfo baseInfo, string version, IReadOnlyList<PatchFile> patches, IReadOnlyList<OverlayFile> overlay, IReadOnlyList<string> problems, IReadOnlyList<string> unlisted,
        IReadOnlyList<SeriesPart> parts, string? header = null, IReadOnlyList<OverlayFile>? tests = null)
    {
        (Base, Version, Patches, Overlay, Problems, UnlistedPatchFiles, Parts, Header, Tests) = (baseInfo, version, patches, overlay, problems, unlisted, parts, header, tests ?? []);
        // "this exact series" (patches/README.md, "The series hash"): a second apply of the same hash is a no-op. The
        // header and test lines exist only for a base that sets them, so every other base keeps its hash.
        var canonical = new StringBuilder($"dbxmem-patch-series/1\nversion {version}\nbase {baseInfo.Tag} {baseInfo.Commit}\n");
        patches.ToList().ForEach(p => canonical.Append($"patch {p.Name} {p.Sha256}\n"));
        overlay.ToList().ForEach(f => canonical.Append($"overlay {f.RelativePath} {f.Sha256}\n"));
        if (header != null)
        {
            canonical.Append($"header {Hashing.Sha256Hex(header)}\n");
        }

        Tests.ToList().ForEach(f => canonical.Append($"test {f.RelativePath} {f.Sha256}\n"));
        Hash = "sha256:" + Hashing.Sha256Hex(canonical.ToString());
    }

    public BaseInfo Base { get; }

    public string Version { get; }

    public IReadOnlyList<PatchFile> Patches { get; }

    public IReadOnlyList<OverlayFile> Overlay { get; }

    /// <summary>The license header that replaces each copied file's leading block comment (base.json's overlayHeader), or null.</summary>
    public string? Header { get; }

    /// <summary>The series' tests for upstream's test project (base.json's testOverlay), empty when the base has none.</summary>
    public IReadOnlyList<OverlayFile> Tests { get; }

    /// <summary>
    /// What the overlay commit writes, as (checkout path, bytes, generated): the overlay files in the driver's namespace
    /// and the generated PatchSeriesInfo.cs in the overlay folder, the tests in the test overlay folder (their own
    /// namespace), each with the base's license header when it has one.
    /// </summary>
    public IEnumerable<(string Path, byte[] Bytes, bool Generated)> OverlayContent(string generatedSource) =>
        Overlay.Select(f => (Base.OverlayDir + "/" + f.RelativePath, f.BytesFor(Base.Namespace, Header), false))
            .Append((Base.OverlayDir + "/" + OverlayFile.GeneratedFileName, Encoding.UTF8.GetBytes(Header == null ? generatedSource : Header + "\n\n" + generatedSource), true))
            .Concat(Tests.Select(f => (Base.TestOverlayDir + "/" + f.RelativePath, f.BytesFor(null, Header), false)));

    public IReadOnlyList<string> Problems { get; }

    /// <summary>*.patch files in the base's or an included shared folder that no series lists (paths below patches/).</summary>
    public IReadOnlyList<string> UnlistedPatchFiles { get; }

    /// <summary>The series as runs of the tag's own patches and included shared series, in order.</summary>
    public IReadOnlyList<SeriesPart> Parts { get; }

    public string Hash { get; }

    public void EnsureValid()
    {
        if (Problems.Count > 0)
        {
            throw new ToolException(
                ExitCodes.InvalidSeries,
                $"the series for {Base.Tag} ({Base.Folder}) is invalid:\n  - " + string.Join("\n  - ", Problems),
                "fix the listed files; patches/README.md describes the series file and the patch header (Why:, Upstream-Status:, Base:)");
        }
    }
}

/// <summary>
/// One run of a base's series: patches in the tag's own folder, or a shared series the tag includes. Export needs the
/// parts to write each patch back where it came from, so a patch several tags share is stored (and edited) once.
/// <see cref="Names"/> counts a listed name whose file does not exist yet: listing a new commit's patch name in a
/// shared series is how that commit joins it on export.
/// </summary>
internal sealed record SeriesPart(string Folder, string? SharedName, IReadOnlyList<string> Names)
{
    public bool IsShared => SharedName != null;
}

/// <summary>
/// A series order file (quilt and Electron style): one patch file name or `include &lt;shared series&gt;` per line, top to
/// bottom; blank lines and '#' lines are ignored. Order lives here rather than in 0001- prefixes, so inserting a patch
/// does not rename the others.
/// </summary>
internal static class SeriesFile
{
    public const string Name = "series";

    public static string? IncludedName(string entry) => entry.StartsWith("include ", StringComparison.Ordinal) ? entry[8..].Trim() : null;

    public static IEnumerable<string> Entries(string path) => File.Exists(path)
        ? Lines(File.ReadAllText(path)).Select(l => l.Trim()).Where(l => l.Length > 0 && !l.StartsWith('#')).ToList()
        : [];

    /// <summary>
    /// What export writes: the existing file's leading comment block (so hand-written notes survive), or
    /// <paramref name="defaultHeader"/>, then the entries. Always LF with one trailing newline: byte-stable.
    /// </summary>
    public static string Render(string path, string defaultHeader, IEnumerable<string> entries)
    {
        List<string> leading = File.Exists(path) ? Lines(File.ReadAllText(path)).TakeWhile(l => l.Trim().Length == 0 || l.TrimStart().StartsWith('#')).ToList() : [];
        while (leading.Count > 0 && leading[^1].Trim().Length == 0)
        {
            leading.RemoveAt(leading.Count - 1);
        }

        return string.Concat((leading.Count > 0 ? leading.Select(l => l.TrimEnd()) : [defaultHeader]).Concat(entries).Select(l => l + "\n"));
    }

    private static IEnumerable<string> Lines(string text) => text.Replace("\r\n", "\n").TrimEnd('\n').Split('\n');
}
