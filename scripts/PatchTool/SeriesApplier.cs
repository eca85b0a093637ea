using System.Globalization;

namespace PatchTool;

/// <summary>How one patch fared: applied, or not, with the files git named and git's own message.</summary>
internal sealed record PatchOutcome(PatchFile? Patch, bool Applied, IReadOnlyList<string> FailedFiles, string GitMessage);

/// <summary>The git mechanics of apply and check: dry run on a scratch index, the overlay commit, git am of the series.</summary>
internal static class SeriesApplier
{
    private static readonly Regex ConflictedFile = new(
        @"^(?:error: patch failed: (?<f>.+):\d+|error: (?<f>.+): (?:patch does not apply|does not exist in index|already exists in (?:index|working directory)|does not match index|No such file or directory)|CONFLICT \([^)]*\): Merge conflict in (?<f>.+))$",
        RegexOptions.Multiline);

    /// <summary>
    /// Fails when upstream already has files in the overlay folder (or the test overlay folder) at the base: the overlay
    /// commit would edit them, and export (which leaves those folders out) would silently lose those edits.
    /// </summary>
    public static void RequireOverlayFolderFree(AdbcCheckout checkout, BaseInfo baseInfo)
    {
        foreach ((string folder, string field) in baseInfo.OverlayFolders.Zip(["overlayDir", "testOverlayDir"]))
        {
            string existing = checkout.Git.Checked("ls-tree", "-r", "--name-only", baseInfo.Commit, "--", folder);
            if (existing.Length > 0)
            {
                throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"the {(field == "overlayDir" ? "overlay" : "test overlay")} folder {folder} already exists at {baseInfo.Tag}, e.g. {existing.Split('\n')[0]}.",
                    $"choose a {field} that upstream does not use in {Path.Combine(baseInfo.Folder, "base.json")}");
            }
        }
    }

    /// <summary>
    /// Fails unless a command may commit the series into the checkout: the overlay folders free at the base, the
    /// submodules checked out and no uncommitted changes (cleanNeed: why the command needs a clean tree).
    /// </summary>
    public static void RequireReadyForSeries(AdbcCheckout checkout, BaseInfo baseInfo, string cleanNeed)
    {
        RequireOverlayFolderFree(checkout, baseInfo);
        checkout.RequireSubmodules(baseInfo);
        IReadOnlyList<string> changes = checkout.UncommittedChanges(baseInfo.DriverDir, baseInfo.TestOverlayDir);
        if (changes.Count > 0)
        {
            throw new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} has uncommitted changes ({cleanNeed}):\n{AdbcCheckout.FormatList(changes)}",
                $"commit them, or set them aside with `git -C \"{checkout.Root}\" stash push --include-untracked`");
        }
    }

    /// <summary>
    /// Applies the overlay and the patches in order to a scratch index built from the base commit (GIT_INDEX_FILE), never
    /// touching the checkout's index, files or HEAD; the same `git apply` engine git am uses, so "passes here" means "git
    /// am will apply it". Stops at the first failure, which is the last outcome.
    /// </summary>
    public static IReadOnlyList<PatchOutcome> DryRun(AdbcCheckout checkout, SeriesDefinition series)
    {
        using var scratch = new ScratchFolder();
        var environment = new Dictionary<string, string?> { ["GIT_INDEX_FILE"] = scratch.Combine("index") };
        checkout.Git.Checked(["read-tree", series.Base.Commit], environment);
        var entries = new StringBuilder();
        Stage(checkout, environment, OverlayContent(series).Select(c => (c.Path, c.Bytes)));

        var outcomes = new List<PatchOutcome>();
        foreach (PatchFile patch in series.Patches)
        {
            File.WriteAllBytes(scratch.Combine("patch"), patch.Bytes);
            ProcessResult result = checkout.Git.Run(["apply", "--cached", scratch.Combine("patch")], environment);
            outcomes.Add(new PatchOutcome(patch, result.Succeeded, ConflictedFiles(result.Output), result.Output.Trim()));
            if (!result.Succeeded)
            {
                break;
            }
        }

        return outcomes;
    }

    /// <summary>
    /// Writes files (checkout path, bytes) into a scratch index (<paramref name="environment"/>'s GIT_INDEX_FILE) as
    /// blobs, without touching the work tree: the dry run's overlay, and the content of `prs` branches.
    /// </summary>
    public static void Stage(AdbcCheckout checkout, IReadOnlyDictionary<string, string?> environment, IEnumerable<(string Path, byte[] Bytes)> files)
    {
        var entries = new StringBuilder();
        foreach ((string path, byte[] bytes) in files)
        {
            string id = checkout.Git.Run(["hash-object", "-w", "--stdin"], environment, bytes).Stdout.Trim();
            entries.Append($"100644 {id}\t{path}\n");
        }

        ProcessResult staged = entries.Length == 0 ? new ProcessResult(0, [], "") : checkout.Git.Run(["update-index", "--add", "--index-info"], environment, Encoding.UTF8.GetBytes(entries.ToString()));
        if (!staged.Succeeded)
        {
            throw new ToolException(ExitCodes.Environment, $"git could not stage the overlay in a scratch index: {Git.FirstLines(staged.Output, 4)}");
        }
    }

    /// <summary>Writes the overlay (PatchSeriesInfo.cs, and the series' tests when the base has them) into the checkout and commits it; returns the commit.</summary>
    public static string CommitOverlay(AdbcCheckout checkout, SeriesDefinition series, string hooks, List<OverlayFileRecord> records)
    {
        foreach ((string path, byte[] bytes, bool generated) in OverlayContent(series))
        {
            string target = Path.Combine(checkout.Root, path);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.WriteAllBytes(target, bytes);
            records.Add(new OverlayFileRecord(path, Hashing.SourceSha256Hex(bytes), generated));
        }

        // -f: a checkout's .gitignore must not drop overlay files from the commit.
        checkout.Git.Checked(["add", "-f", "--", .. series.Base.OverlayFolders.Where(f => Directory.Exists(Path.Combine(checkout.Root, f)))]);
        // The base commit's own date makes the overlay commit, and so every later commit id, reproducible.
        string date = checkout.Git.Checked("show", "-s", "--format=%cI", series.Base.Commit);
        // The tests sentence only for a base with tests, so every other base's overlay commit (and commit ids) stay as they were.
        string tests = series.Base.TestOverlay == null ? ""
            : $"The series' tests for upstream's test project are copied from {series.Base.TestOverlay}/\ninto {series.Base.TestOverlayDir}/ in this same commit.\n";
        // A Conventional Commit subject, like every patch of the new home's series (its CONTRIBUTING asks for them).
        string message = $"chore(csharp): add the dbxmem memory overlay (series {series.Version})\n\n" +
            $"Copied verbatim from driver-overlay/ by `scripts/patch apply`, with the generated\n{OverlayFile.GeneratedFileName}. " +
            "The patches after this commit wire the overlay in;\n`scripts/patch export` never exports this commit.\n" + tests + "\n" +
            $"Series-Hash: {series.Hash}\n";
        checkout.Git.Checked(["-c", "core.hooksPath=" + hooks, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", message], ToolIdentity.AuthorAndCommitter(date));
        return checkout.Head();
    }

    /// <summary>
    /// git am of every patch in one session (so `git am --continue` after a --3way conflict goes on with the rest), each
    /// with a Patch-Filename trailer so export writes the commit back to the same file. Author, date and message come
    /// from the patch; the committer is the tool, dated like the author. On failure, the outcome names the patch.
    /// </summary>
    public static PatchOutcome RunAm(AdbcCheckout checkout, SeriesDefinition series, bool threeWay, string hooks)
    {
        using var queue = new ScratchFolder();
        var arguments = new List<string> { "-c", "core.hooksPath=" + hooks, "am", "--keep", "--keep-cr", "--no-message-id", "--no-scissors", "--committer-date-is-author-date", threeWay ? "--3way" : "--no-3way" };
        for (int i = 0; i < series.Patches.Count; i++)
        {
            string file = queue.Combine($"{i + 1:D4}.patch");
            File.WriteAllBytes(file, PatchFile.WithFilenameTrailer(series.Patches[i].Bytes, series.Patches[i].Name));
            arguments.Add(file);
        }

        ProcessResult result = series.Patches.Count == 0 ? new ProcessResult(0, [], "") : checkout.Git.Run(arguments, ToolIdentity.Committer());
        Match failedAt = Regex.Match(result.Output, @"Patch failed at (\d+)");
        PatchFile? failed = failedAt.Success ? series.Patches.ElementAtOrDefault(int.Parse(failedAt.Groups[1].Value, CultureInfo.InvariantCulture) - 1) : null;
        return new PatchOutcome(failed, result.Succeeded, ConflictedFiles(result.Output), result.Output.Trim());
    }

    /// <summary>The overlay commit's files (<see cref="SeriesDefinition.OverlayContent"/>): (checkout path, bytes, generated).</summary>
    private static IEnumerable<(string Path, byte[] Bytes, bool Generated)> OverlayContent(SeriesDefinition series) => series.OverlayContent(SeriesInfoSource(series));

    /// <summary>The constants a patch stamps into the driver assembly (patches/README.md).</summary>
    private static string SeriesInfoSource(SeriesDefinition series) => $$"""
        // <auto-generated>
        // Written by the dbxmem patch tool (`scripts/patch apply`) from patches/VERSION and the series it applied.
        // Do not edit: the next apply rewrites this file.
        // </auto-generated>

        namespace {{series.Base.Namespace}}
        {
            /// <summary>Identifies the dbxmem patch series compiled into this driver.</summary>
            internal static class PatchSeriesInfo
            {
                /// <summary>The series version (patches/VERSION).</summary>
                public const string SeriesVersion = "{{series.Version}}";

                /// <summary>The upstream tag the series was applied to.</summary>
                public const string BaseTag = "{{series.Base.Tag}}";

                /// <summary>The upstream commit the series was applied to.</summary>
                public const string BaseCommit = "{{series.Base.Commit}}";

                /// <summary>SHA-256 over the version, base, patches and overlay files (patches/README.md).</summary>
                public const string SeriesHash = "{{series.Hash}}";
            }
        }

        """.Replace("\r\n", "\n");

    private static List<string> ConflictedFiles(string gitOutput) =>
        ConflictedFile.Matches(gitOutput.Replace("\r\n", "\n")).Select(m => m.Groups["f"].Value.Trim()).Distinct().ToList();
}

/// <summary>A temporary folder, deleted with its content when disposed (a leftover is harmless, so failures to delete are ignored).</summary>
internal sealed class ScratchFolder : IDisposable
{
    public string Path { get; } = Directory.CreateDirectory(System.IO.Path.Combine(System.IO.Path.GetTempPath(), "dbxmem-patch-" + Guid.NewGuid().ToString("N"))).FullName;

    public string Combine(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
        }
    }
}
