using System.Globalization;

namespace PatchTool;

/// <summary>A git work tree of apache/arrow-adbc or adbc-drivers/databricks, and the git queries the commands make on it.</summary>
internal sealed class AdbcCheckout
{
    private readonly ToolContext context;

    private AdbcCheckout(ToolContext context, string root)
    {
        this.context = context;
        Root = root;
        Git = new Git(context, root);
    }

    public string Root { get; }

    public Git Git { get; }

    /// <summary>Where apply records provenance: inside the git directory, so the work tree stays clean and packages never carry it.</summary>
    public string ProvenancePath => Git.GitPath("dbxmem-patch/provenance.json");

    /// <summary>True while a git am session is stopped (a --3way conflict being resolved, or an interrupted apply).</summary>
    public bool AmInProgress => Directory.Exists(Git.GitPath("rebase-apply"));

    public static AdbcCheckout Open(ToolContext context, string path)
    {
        const string Hint = "pass --adbc PATH pointing at a git clone of apache/arrow-adbc or adbc-drivers/databricks (not a source archive), or run from inside one";
        _ = context.GitExecutable;
        if (!Directory.Exists(path))
        {
            throw new ToolException(ExitCodes.Environment, $"checkout folder {path} does not exist.", Hint);
        }

        ProcessResult inside = new Git(context, path).Run("rev-parse", "--show-toplevel");
        if (!inside.Succeeded)
        {
            throw new ToolException(ExitCodes.Environment, $"{path} is not a git work tree ({Git.FirstLines(inside.Output, 2)}).", Hint);
        }

        return new AdbcCheckout(context, Path.GetFullPath(inside.Stdout.Trim()));
    }

    public string Head()
    {
        ProcessResult result = Git.Run("rev-parse", "--verify", "--quiet", "HEAD^{commit}");
        return result.Succeeded ? result.Stdout.Trim() : throw new ToolException(
            ExitCodes.CheckoutState, $"{Root} has no commit checked out (HEAD is unborn).", "check out a release tag, e.g. `git checkout apache-arrow-adbc-21`");
    }

    public bool CommitExists(string commit) => Git.Run("cat-file", "-e", commit + "^{commit}").Succeeded;

    public bool IsAncestor(string ancestor, string descendant) => Git.Run("merge-base", "--is-ancestor", ancestor, descendant).Succeeded;

    /// <summary>The commit a tag of this clone points at, or null when the clone lacks the tag.</summary>
    public string? TagCommit(string tag)
    {
        ProcessResult result = Git.Run("rev-parse", "--verify", "--quiet", "refs/tags/" + tag + "^{commit}");
        return result.Succeeded ? result.Stdout.Trim() : null;
    }

    public int CountCommits(string from, string to) => int.Parse(Git.Checked("rev-list", "--count", from + ".." + to), CultureInfo.InvariantCulture);

    /// <summary>
    /// A folder in the git directory shared by this clone and its linked worktrees (verify builds the stock driver in
    /// one), for what the tool makes for the clone, such as packages packed from its own projects.
    /// </summary>
    public string SharedGitFolder(string relative) => Path.GetFullPath(Path.Combine(Git.Checked("rev-parse", "--git-common-dir"), relative), Root);

    /// <summary>
    /// Fails unless each submodule the base builds from is checked out at the commit the checkout pins: without them
    /// the driver does not build, and at other commits it would build from other sources than the release's.
    /// </summary>
    public void RequireSubmodules(BaseInfo baseInfo)
    {
        if (baseInfo.Submodules.Count == 0)
        {
            return;
        }

        // One line per submodule: a state character (' ' at the pinned commit, '-' not checked out, '+' elsewhere,
        // 'U' conflicted), the checked-out commit, the path. Not trimmed: the first state may be a space.
        var states = new Dictionary<string, (char State, string Commit)>(StringComparer.Ordinal);
        ProcessResult status = Git.Run("submodule", "status", "--recursive");
        if (!status.Succeeded)
        {
            throw new ToolException(ExitCodes.Environment, $"git submodule status failed in {Root}: {Git.FirstLines(status.Output, 4)}");
        }

        foreach (string line in status.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] fields = line.Substring(1).Split(' ', 3);
            states[fields[1]] = (line[0], fields[0]);
        }

        var problems = new List<string>();
        foreach (string path in baseInfo.Submodules)
        {
            if (!states.TryGetValue(path, out (char State, string Commit) found) || found.State == '-')
            {
                problems.Add($"{path} is not checked out");
            }
            else if (found.State != ' ')
            {
                problems.Add($"{path} is at {found.Commit[..12]}, not at the commit {baseInfo.Tag} pins");
            }
        }

        if (problems.Count > 0)
        {
            throw new ToolException(
                ExitCodes.CheckoutState,
                $"{Root} builds the driver from submodules that are not at the commits {baseInfo.Tag} pins:\n{FormatList(problems)}",
                $"run `git -C \"{Root}\" submodule update --init --recursive`");
        }
    }

    /// <summary>
    /// Uncommitted changes as "XY path" lines (git status --porcelain): every change to tracked files, and untracked
    /// files only below <paramref name="untrackedScopes"/> (the driver folder and the test overlay folder, where apply
    /// writes; stray files elsewhere cannot interfere). Ignored files (build outputs) never count.
    /// </summary>
    public IReadOnlyList<string> UncommittedChanges(params string?[]? untrackedScopes) => Git.Run("status", "--porcelain", "--untracked-files=all").Stdout
        .Split('\n', StringSplitOptions.RemoveEmptyEntries)
        .Where(l => !l.StartsWith("??", StringComparison.Ordinal) || (untrackedScopes ?? []).Any(scope => scope != null && l[3..].StartsWith(scope + "/", StringComparison.Ordinal)))
        .ToList();

    /// <summary>
    /// The provenance of the apply that produced HEAD, or null. A record whose overlay commit HEAD no longer contains
    /// (the user checked out or reset to another commit, which is how a patched checkout is undone) is ignored with a
    /// note, and deleted when <paramref name="deleteStale"/>.
    /// </summary>
    public CheckoutProvenance? ReadProvenance(bool deleteStale)
    {
        if (!File.Exists(ProvenancePath))
        {
            return null;
        }

        CheckoutProvenance provenance;
        try
        {
            provenance = Json.Read<CheckoutProvenance>(ProvenancePath);
        }
        catch (System.Text.Json.JsonException ex)
        {
            throw new ToolException(ExitCodes.CheckoutState, $"the provenance file {ProvenancePath} is corrupt: {ex.Message}", "delete it, and `git reset --hard <base tag>` if the checkout is patched");
        }

        string head = Head();
        if (AmInProgress || (provenance.OverlayCommit != null && CommitExists(provenance.OverlayCommit) && IsAncestor(provenance.OverlayCommit, head)))
        {
            return provenance;
        }

        context.Warn($"HEAD {head[..12]} no longer contains the commits of an earlier apply ({provenance.BaseTag} + series {provenance.SeriesVersion}); its record is ignored" +
            (deleteStale ? " and removed." : "."));
        if (deleteStale)
        {
            DeleteProvenance();
        }

        return null;
    }

    public void WriteProvenance(CheckoutProvenance provenance) => Json.Write(ProvenancePath, provenance);

    public void DeleteProvenance() => File.Delete(ProvenancePath);

    public void RequireNoAmSession()
    {
        if (AmInProgress)
        {
            throw new ToolException(
                ExitCodes.CheckoutState,
                $"a git am session is in progress in {Root} (a patch stopped on a conflict, e.g. after `apply --3way`).",
                $"finish it (fix the files, `git add` them, `git am --continue`, then `scripts/patch export`) or abandon it (`git -C \"{Root}\" am --abort`)");
        }
    }

    /// <summary>Puts the checkout back at <paramref name="commit"/>: any am aborted, the overlay folders' leftovers gone, no provenance.</summary>
    public void ResetTo(string commit, IEnumerable<string> overlayFolders)
    {
        if (AmInProgress)
        {
            Git.Run("am", "--abort");
        }

        Git.Run("reset", "--hard", "--quiet", commit);
        Git.Run(["clean", "-fdq", "--", .. overlayFolders]);
        DeleteProvenance();
    }

    /// <summary>The error for a HEAD that is no supported base: where it is, which bases there are, what to check out.</summary>
    public ToolException NotABase(IReadOnlyList<BaseInfo> bases, string head)
    {
        ProcessResult describe = Git.Run("describe", "--tags", "--always", head);
        BaseInfo? below = bases.FirstOrDefault(b => CommitExists(b.Commit) && IsAncestor(b.Commit, head));
        string detail = below == null ? "" : $" It is {CountCommits(below.Commit, head)} commit(s) after {below.Tag}, but apply needs the exact base commit.";
        BaseInfo? shown = below ?? bases.FirstOrDefault();
        // A base named after a branch's commit (not a tag) is checked out by its commit; submodules follow.
        string example = shown == null ? "apache-arrow-adbc-21" : (TagCommit(shown.Tag) != null ? shown.Tag : shown.Commit[..12]) +
            (shown.Submodules.Count > 0 ? $" && git -C \"{Root}\" submodule update --init --recursive" : "");
        return new ToolException(
            ExitCodes.CheckoutState,
            $"HEAD of {Root} is {head[..12]} ({describe.Stdout.Trim()}), which is not a supported base.{detail}\n  Supported bases: " +
                (bases.Count == 0 ? "none (the patches folder has no <tag>/base.json)" : string.Join(", ", bases.Select(b => $"{b.Tag} ({b.Commit[..12]})"))) + ".",
            $"check out a supported tag first, e.g. `git -C \"{Root}\" checkout {example}` (a clean tree); to support another tag, add patches/<tag>/ (scripts/README.md, \"Adding a base tag\")");
    }

    public static string FormatList(IReadOnlyList<string> items, int max = 15) =>
        string.Join("\n", items.Take(max).Select(i => "    " + i)) + (items.Count > max ? $"\n    ... and {items.Count - max} more" : "");
}

/// <summary>
/// The identity on commits the tool makes (the overlay commit, the committer of applied patches). Fixed, so the same
/// series on the same base gives the same commit ids on every machine, and apply works where git has no identity (CI).
/// </summary>
internal static class ToolIdentity
{
    private const string Name = "dbxmem patch tool", Email = "patch-tool@dbxmem.invalid";

    public static Dictionary<string, string?> Committer() => new() { ["GIT_COMMITTER_NAME"] = Name, ["GIT_COMMITTER_EMAIL"] = Email };

    public static Dictionary<string, string?> AuthorAndCommitter(string date) => new(Committer())
    {
        ["GIT_AUTHOR_NAME"] = Name, ["GIT_AUTHOR_EMAIL"] = Email, ["GIT_AUTHOR_DATE"] = date, ["GIT_COMMITTER_DATE"] = date,
    };
}
