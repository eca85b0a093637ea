namespace PatchTool;

/// <summary>
/// export: rewrites the series from the patched checkout's commits; --check only compares. What it adds over `git
/// format-patch`: output that is byte-stable (so "re-export and compare" is a check), stable file names, the series
/// files, the overlay folder left out, and each commit written back to the tag's folder or the shared series it came from.
/// </summary>
internal static class ExportCommand
{
    /// <summary>Every setting that could change format-patch's output, pinned, so user configuration does not leak in.</summary>
    private static readonly string[] FormatPatch =
    [
        "-c", "format.from=false", "-c", "format.forceInBodyFrom=false", "-c", "format.mboxrd=false", "-c", "format.encodeEmailHeaders=true",
        "-c", "format.numbered=false", "-c", "format.thread=false", "-c", "format.coverLetter=false", "-c", "format.useAutoBase=false",
        "-c", "format.notes=false", "-c", "format.attach=false", "-c", "format.suffix=.patch", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
        "-c", "diff.relative=false", "-c", "diff.suppressBlankEmpty=false", "-c", "diff.context=3", "-c", "diff.interHunkContext=0",
        "-c", "diff.indentHeuristic=true", "-c", "i18n.logOutputEncoding=UTF-8",
        "format-patch", "--stdout", "--zero-commit", "--full-index", "--no-signature", "--no-stat", "--keep-subject", "--no-numbered", "--no-thread",
        "--no-cover-letter", "--no-attach", "--no-notes", "--no-base", "--no-to", "--no-cc", "--no-add-header", "--no-renames", "--diff-algorithm=myers",
        "--unified=3", "--src-prefix=a/", "--dst-prefix=b/", "--encoding=UTF-8",
    ];

    /// <summary>One exported commit.</summary>
    private sealed record Exported(string Commit, PatchFile Patch);

    /// <summary>A file export would write ("A" new, "M" changed) or delete ("D", Bytes null); Name is what the user sees.</summary>
    private sealed record FileChange(string Kind, string Path, string Name, byte[]? Bytes);

    public static int Run(ToolContext context, bool checkOnly)
    {
        PatchRepository repository = context.OpenPatches();
        AdbcCheckout checkout = context.OpenCheckout();
        checkout.RequireNoAmSession();
        CheckoutProvenance provenance = checkout.ReadProvenance(deleteStale: false) ?? throw new ToolException(
            ExitCodes.CheckoutState,
            $"{checkout.Root} was not patched by `scripts/patch apply`, so there is no overlay commit to export from.",
            "run `scripts/patch apply` on a checkout at a supported base, commit your changes on top, then export");
        BaseInfo baseInfo = repository.LoadBase(provenance.BaseTag);
        // The overlay folder as recorded at apply, and the test overlay folder: the overlay commit's, never a patch's.
        IReadOnlyList<string> overlayFolders = baseInfo.TestOverlayDir == null ? [provenance.OverlayDir] : [provenance.OverlayDir, baseInfo.TestOverlayDir];
        IReadOnlyList<Exported> exported = ExportCommits(context, checkout, provenance.OverlayCommit!, overlayFolders, baseInfo.TestOverlay);
        if (checkout.UncommittedChanges(provenance.DriverDir).Count > 0)
        {
            context.Warn("the checkout has uncommitted changes; export only reads commits. Commit them (or `git commit --fixup` + `git rebase -i --autosquash`) first.");
        }

        SeriesDefinition current = repository.LoadSeries(baseInfo);
        List<FileChange> changes = Compare(context, baseInfo, current, exported);
        string where = baseInfo.Folder + string.Concat(current.Parts.Where(p => p.IsShared).Select(p => " + " + p.Folder));
        if (checkOnly)
        {
            if (changes.Count == 0)
            {
                context.Info($"Patches are up to date: {where} match the {exported.Count} commit(s) after the overlay.");
                return ExitCodes.Success;
            }

            context.Err.WriteLine($"error: {changes.Count} file(s) in {where} differ from what the checkout's commits export to:");
            changes.ForEach(c => context.Err.WriteLine($"  {c.Kind}  {c.Name}"));
            context.Err.WriteLine("hint: run `scripts/patch export` (without --check) and commit the patches folder, or revert your edits to the patch files.");
            return ExitCodes.PatchesOutOfDate;
        }

        foreach (FileChange change in changes)
        {
            if (change.Bytes == null)
            {
                File.Delete(change.Path);
            }
            else
            {
                Directory.CreateDirectory(Path.GetDirectoryName(change.Path)!);
                File.WriteAllBytes(change.Path, change.Bytes);
            }

            context.Info($"  {change.Kind}  {change.Name}");
        }

        foreach (string shared in changes.Select(c => Regex.Match(c.Name, "^shared/([^/]+)/")).Where(m => m.Success).Select(m => m.Groups[1].Value).Distinct())
        {
            context.Info($"  (shared series {shared} is included by {string.Join(", ", repository.TagsIncluding(shared))}: the change applies to each of them)");
        }

        context.Info(changes.Count == 0
            ? $"Nothing to write: {where} already match the {exported.Count} commit(s)."
            : $"Exported {exported.Count} patch(es) to {where} ({changes.Count} file(s) written or removed).");
        return ExitCodes.Success;
    }

    /// <summary>
    /// Every commit after the overlay commit as a patch (the overlay folders left out: overlay changes belong in
    /// driver-overlay/, test changes in the base's testOverlay), named by its Patch-Filename trailer or its subject.
    /// Empty and overlay-only commits are skipped with a warning.
    /// </summary>
    private static IReadOnlyList<Exported> ExportCommits(ToolContext context, AdbcCheckout checkout, string overlayCommit, IReadOnlyList<string> overlayFolders, string? testOverlay)
    {
        bool InOverlay(string file) => overlayFolders.Any(folder => file.StartsWith(folder + "/", StringComparison.Ordinal));
        string copyTo = "driver-overlay/" + (testOverlay == null ? "" : $" (tests: {testOverlay}/)");
        if (checkout.Git.Checked("rev-list", "--merges", overlayCommit + "..HEAD").Length > 0)
        {
            throw new ToolException(ExitCodes.CheckoutState, "the commits after the overlay include a merge; a patch series is linear.", "rebase them into a linear history (`git rebase <overlay commit>`) and export again");
        }

        var patches = new List<Exported>();
        foreach (string commit in checkout.Git.Checked("rev-list", "--reverse", overlayCommit + "..HEAD").Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] files = checkout.Git.Checked("diff-tree", "--no-commit-id", "--name-only", "-r", "--no-renames", commit).Split('\n', StringSplitOptions.RemoveEmptyEntries);
            string subject = checkout.Git.Checked("log", "-1", "--format=%s", commit);
            if (files.All(InOverlay))
            {
                context.Warn($"commit {commit[..12]} {subject}: not exported ({(files.Length == 0 ? "an empty commit" : "changes only the overlay folder: copy them to " + copyTo)}).");
                continue;
            }

            if (files.Any(InOverlay))
            {
                context.Warn($"commit {commit[..12]} also changes the overlay folder; that part is not exported. Copy it to {copyTo}.");
            }

            ProcessResult result = checkout.Git.Run(FormatPatch.Concat([commit + "^.." + commit, "--", ".", .. overlayFolders.Select(f => ":(exclude)" + f)]));
            byte[] bytes = result.Succeeded ? PatchFile.WithoutFilenameTrailer(result.StdoutBytes, out string? pinned) : throw new ToolException(
                ExitCodes.Environment, $"git format-patch failed for {commit}: {result.Stderr.Trim()}");
            string name = pinned ?? PatchFile.NameFromSubject(subject);
            if (!Regex.IsMatch(name, @"^[A-Za-z0-9][A-Za-z0-9._+-]*\.patch$"))
            {
                throw new ToolException(ExitCodes.InvalidSeries, $"commit {commit[..12]} pins the file name '{name}' ({PatchFile.FilenameTrailer}:), which is not a plain *.patch file name.", "use letters, digits, '.', '_', '+', '-', ending in .patch");
            }

            var patch = new PatchFile(name, bytes);
            if (patch.MissingHeaderFields.Count > 0)
            {
                context.Warn($"{name} lacks {string.Join(", ", patch.MissingHeaderFields.Select(f => f + ":"))} in its commit message; check and apply will reject it (patches/README.md).");
            }

            patches.Add(new Exported(commit, patch));
        }

        IGrouping<string, Exported>? duplicate = patches.GroupBy(p => p.Patch.Name, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1);
        return duplicate == null ? patches : throw new ToolException(
            ExitCodes.InvalidSeries,
            $"commits {string.Join(", ", duplicate.Select(p => p.Commit[..12]))} would all be exported as {duplicate.Key}.",
            $"give one of them a different subject, or a `{PatchFile.FilenameTrailer}: other-name.patch` line in its commit message");
    }

    /// <summary>
    /// The files export writes or deletes. The commits from the first to the last one whose patch an included shared
    /// series lists belong to that series (a commit inserted among them joins it) and go to its folder, once; the others
    /// are the tag's own. A shared series none of whose patches is exported is no longer included.
    /// </summary>
    private static List<FileChange> Compare(ToolContext context, BaseInfo baseInfo, SeriesDefinition current, IReadOnlyList<Exported> exported)
    {
        var owner = new SeriesPart?[exported.Count];
        foreach (SeriesPart part in current.Parts.Where(p => p.IsShared))
        {
            List<int> hits = Enumerable.Range(0, exported.Count).Where(i => part.Names.Contains(exported[i].Patch.Name)).ToList();
            if (hits.Count == 0)
            {
                context.Warn($"none of the commits is a patch of the shared series {part.SharedName}: {baseInfo.Tag}'s series no longer includes it (its files stay for the other tags).");
                continue;
            }

            for (int i = hits[0]; i <= hits[^1]; i++)
            {
                owner[i] = owner[i] == null ? part : throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"the commits of the shared series {owner[i]!.SharedName} and {part.SharedName} interleave ({exported[i].Patch.Name} would belong to both).",
                    "reorder the commits so each shared series' patches are consecutive (`git rebase -i`), then export again");
            }
        }

        var changes = new List<FileChange>();
        var entries = new List<string>();
        for (int i = 0; i < exported.Count; i++)
        {
            SeriesPart? part = owner[i];
            if (part == null)
            {
                entries.Add(exported[i].Patch.Name);
                continue;
            }

            if (i > 0 && owner[i - 1] == part)
            {
                continue; // written with the first commit of the shared series' run
            }

            string display = $"{PatchRepository.SharedFolderName}/{part.SharedName}/";
            List<PatchFile> run = exported.Where((_, j) => owner[j] == part).Select(e => e.Patch).ToList();
            entries.Add("include " + part.SharedName);
            // A shared patch made on another base that includes the series differs from this base's export only in
            // index blob ids and hunk positions: kept, or every base's export would rewrite it in turn.
            CompareFolder(part.Folder, display, run, changes, kept => context.Info($"  kept {display}{kept.Name}: this base's change at other line numbers (made on another base that includes it)"));
            string rendered = SeriesFile.Render(Path.Combine(part.Folder, SeriesFile.Name), $"# Shared series {part.SharedName}: the patch order for every tag whose series includes it.", run.Select(p => p.Name));
            CompareFile(Path.Combine(part.Folder, SeriesFile.Name), display + SeriesFile.Name, Encoding.UTF8.GetBytes(rendered), changes);
            CompareReadme(part.Folder, display, run.Select(p => p.Name), run, changes);
        }

        List<PatchFile> own = exported.Where((_, i) => owner[i] == null).Select(e => e.Patch).ToList();
        CompareFolder(baseInfo.Folder, "", own, changes);
        string seriesPath = Path.Combine(baseInfo.Folder, SeriesFile.Name);
        string series = SeriesFile.Render(seriesPath, $"# Patch order for {baseInfo.Tag}: `scripts/patch apply` applies these top to bottom with git am.", entries);
        CompareFile(seriesPath, SeriesFile.Name, Encoding.UTF8.GetBytes(series), changes);
        CompareReadme(baseInfo.Folder, "", entries, own, changes);
        return changes;
    }

    /// <summary>
    /// Compares a folder's patches with the exported ones. With <paramref name="keptAtOtherPositions"/> (a shared series'
    /// folder) a stored patch that is the same change at other positions (PatchFile.SameChangeAtOtherPositions) is
    /// reported to it and kept; without (a tag's own folder) patches are compared byte for byte.
    /// </summary>
    private static void CompareFolder(string folder, string display, IReadOnlyList<PatchFile> patches, List<FileChange> changes, Action<PatchFile>? keptAtOtherPositions = null)
    {
        foreach (PatchFile patch in patches)
        {
            string path = Path.Combine(folder, patch.Name);
            if (keptAtOtherPositions != null && File.Exists(path) && File.ReadAllBytes(path) is byte[] stored
                && !stored.AsSpan().SequenceEqual(patch.Bytes) && PatchFile.SameChangeAtOtherPositions(stored, patch.Bytes))
            {
                keptAtOtherPositions(patch);
                continue;
            }

            CompareFile(path, display + patch.Name, patch.Bytes, changes);
        }

        IEnumerable<string> stale = (Directory.Exists(folder) ? Directory.EnumerateFiles(folder, "*.patch") : [])
            .Select(f => Path.GetFileName(f)!).Where(n => patches.All(p => p.Name != n)).OrderBy(n => n, StringComparer.Ordinal);
        changes.AddRange(stale.Select(n => new FileChange("D", Path.Combine(folder, n), display + n, null)));
    }

    private static void CompareReadme(string folder, string display, IEnumerable<string> entries, IReadOnlyList<PatchFile> patches, List<FileChange> changes)
    {
        string readme = SeriesReadme.Render(folder, entries, name => patches.FirstOrDefault(p => p.Name == name));
        CompareFile(Path.Combine(folder, SeriesReadme.FileName), display + SeriesReadme.FileName, Encoding.UTF8.GetBytes(readme), changes);
    }

    private static void CompareFile(string path, string display, byte[] bytes, List<FileChange> changes)
    {
        if (!File.Exists(path) || !File.ReadAllBytes(path).AsSpan().SequenceEqual(bytes))
        {
            changes.Add(new FileChange(File.Exists(path) ? "M" : "A", path, display, bytes));
        }
    }
}
