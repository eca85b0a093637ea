using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>An apache/arrow-adbc git work tree and the git queries the commands make on it.</summary>
    internal sealed class AdbcCheckout
    {
        private AdbcCheckout(string root, Git git)
        {
            Root = root;
            Git = git;
        }

        public string Root { get; }

        public Git Git { get; }

        /// <summary>Where apply records provenance: inside the git directory, so the work tree stays clean (see README).</summary>
        public string ProvenancePath => Git.GitPath("dbxmem-patch/provenance.json");

        /// <summary>True while a git am session is stopped (a --3way conflict being resolved, or an interrupted apply).</summary>
        public bool AmInProgress => Directory.Exists(Git.GitPath("rebase-apply"));

        public static AdbcCheckout Open(ToolContext context, string path)
        {
            string git = context.GitExecutable;
            if (!Directory.Exists(path))
            {
                throw new ToolException(
                    ExitCodes.Environment,
                    $"checkout folder {path} does not exist.",
                    "pass --adbc PATH pointing at an apache/arrow-adbc clone (git clone https://github.com/apache/arrow-adbc), or run from inside one");
            }

            var probe = new Git(git, path, context.Environment);
            ProcessResult inside = probe.Run("rev-parse", "--is-inside-work-tree");
            if (!inside.Succeeded || inside.Stdout.Trim() != "true")
            {
                throw new ToolException(
                    ExitCodes.Environment,
                    $"{path} is not a git work tree ({Git.FirstLines(inside.Stderr + inside.Stdout, 2).Trim()}).",
                    "pass --adbc PATH pointing at an apache/arrow-adbc clone (a git clone, not a source archive), or run from inside one");
            }

            string root = Path.GetFullPath(probe.Checked("rev-parse", "--show-toplevel"));
            return new AdbcCheckout(root, probe.In(root));
        }

        public string Head()
        {
            ProcessResult result = Git.Run("rev-parse", "--verify", "--quiet", "HEAD^{commit}");
            if (!result.Succeeded)
            {
                throw new ToolException(ExitCodes.CheckoutState, $"{Root} has no commit checked out (HEAD is unborn).", "check out a release tag, e.g. `git checkout apache-arrow-adbc-21`");
            }

            return result.Stdout.Trim();
        }

        public bool CommitExists(string commit) => Git.Run("cat-file", "-e", commit + "^{commit}").Succeeded;

        public bool IsAncestor(string ancestor, string descendant) => Git.Run("merge-base", "--is-ancestor", ancestor, descendant).Succeeded;

        /// <summary>"apache-arrow-adbc-21-3-gabc1234" style name for messages; the short id when nothing describes it.</summary>
        public string Describe(string commit)
        {
            ProcessResult result = Git.Run("describe", "--tags", "--always", commit);
            return result.Succeeded ? result.Stdout.Trim() : commit.Substring(0, Math.Min(12, commit.Length));
        }

        /// <summary>The commit a tag of this clone points at, or null when the clone lacks the tag.</summary>
        public string? TagCommit(string tag)
        {
            ProcessResult result = Git.Run("rev-parse", "--verify", "--quiet", "refs/tags/" + tag + "^{commit}");
            return result.Succeeded ? result.Stdout.Trim() : null;
        }

        public int CountCommits(string from, string to) => int.Parse(Git.Checked("rev-list", "--count", from + ".." + to), System.Globalization.CultureInfo.InvariantCulture);

        public IReadOnlyList<string> TrackedFilesUnder(string commit, string directory)
        {
            string output = Git.Checked("ls-tree", "-r", "--name-only", commit, "--", directory);
            return output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        }

        /// <summary>
        /// Fails unless each submodule the base builds from (<see cref="BaseInfo.Submodules"/>) is checked out at the
        /// commit the checkout pins: without them the driver project does not build, and at other commits it would
        /// build from other sources than the release's.
        /// </summary>
        public void RequireSubmodules(BaseInfo baseInfo)
        {
            if (baseInfo.Submodules.Count == 0)
            {
                return;
            }

            // One line per submodule, recursively: a state character, the checked-out commit, the path. ' ' is at the
            // pinned commit, '-' not checked out, '+' at another commit, 'U' in a merge conflict.
            var states = new Dictionary<string, (char State, string Commit)>(StringComparer.Ordinal);
            ProcessResult status = Git.Run("submodule", "status", "--recursive");
            if (!status.Succeeded)
            {
                throw new ToolException(ExitCodes.Environment, $"git submodule status failed in {Root}: {Git.FirstLines(status.Stderr + status.Stdout, 4)}");
            }

            // Not trimmed: the first line's state character may be a space.
            foreach (string line in status.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries))
            {
                string[] fields = line.Substring(1).Split(' ', 3);
                if (fields.Length >= 2)
                {
                    states[fields[1]] = (line[0], fields[0]);
                }
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
                    problems.Add($"{path} is at {found.Commit.Substring(0, Math.Min(12, found.Commit.Length))}, not at the commit {baseInfo.Tag} pins" + (found.State == 'U' ? " (merge conflict)" : ""));
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
        /// Uncommitted changes as "XY path" lines (git status --porcelain): every change to tracked files, and
        /// untracked files only below <paramref name="untrackedScope"/> (the driver folder, where apply writes;
        /// stray files elsewhere cannot interfere). Ignored files never count (build outputs).
        /// </summary>
        public IReadOnlyList<string> UncommittedChanges(string? untrackedScope)
        {
            byte[] raw = Git.Run("status", "--porcelain=v1", "-z", "--untracked-files=all").StdoutBytes;
            string[] fields = System.Text.Encoding.UTF8.GetString(raw).Split('\0', StringSplitOptions.RemoveEmptyEntries);
            var changes = new List<string>();
            for (int i = 0; i < fields.Length; i++)
            {
                string entry = fields[i];
                if (entry.Length < 4)
                {
                    continue;
                }

                string code = entry.Substring(0, 2);
                string path = entry.Substring(3);
                if (code[0] is 'R' or 'C')
                {
                    i++; // the next field is the rename/copy source
                }

                if (code == "??" && (untrackedScope == null || !path.StartsWith(untrackedScope.TrimEnd('/') + "/", StringComparison.Ordinal)))
                {
                    continue;
                }

                changes.Add(code + " " + path);
            }

            return changes;
        }

        /// <summary>
        /// The provenance of the apply that produced HEAD, or null. A record whose overlay commit HEAD no longer
        /// contains is stale (someone checked out another commit after apply): it is ignored, with a warning,
        /// and deleted when <paramref name="deleteStale"/> (commands that are about to change the checkout).
        /// </summary>
        public CheckoutProvenance? ReadProvenance(ToolContext context, bool deleteStale)
        {
            CheckoutProvenance? provenance = ReadProvenanceFile();
            if (provenance == null || AmInProgress)
            {
                return provenance;
            }

            string head = Head();
            bool live = provenance.OverlayCommit != null && CommitExists(provenance.OverlayCommit) && IsAncestor(provenance.OverlayCommit, head);
            if (live)
            {
                return provenance;
            }

            context.Warn($"ignoring the record of an earlier apply ({provenance.BaseTag} + series {provenance.SeriesVersion}): HEAD {head.Substring(0, 12)} no longer contains its commits." +
                (deleteStale ? " Removed it." : ""));
            if (deleteStale)
            {
                DeleteProvenance();
            }

            return null;
        }

        private CheckoutProvenance? ReadProvenanceFile()
        {
            string path = ProvenancePath;
            if (!File.Exists(path))
            {
                return null;
            }

            try
            {
                return JsonFiles.Read<CheckoutProvenance>(path);
            }
            catch (System.Text.Json.JsonException ex)
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"the provenance file {path} is corrupt: {ex.Message}",
                    "if the checkout is at its base commit, delete that file; otherwise `git reset --hard <base tag>` and delete it");
            }
        }

        public void WriteProvenance(CheckoutProvenance provenance) => JsonFiles.Write(ProvenancePath, provenance);

        public void DeleteProvenance()
        {
            string path = ProvenancePath;
            if (File.Exists(path))
            {
                File.Delete(path);
            }
        }

        /// <summary>
        /// Moves the given uncommitted changes ("XY path" lines from <see cref="UncommittedChanges"/>), untracked
        /// files included, into a stash entry, and returns its id (null if git stashed nothing). --force uses it
        /// so that discarded work stays recoverable with `git stash apply`.
        /// </summary>
        public string? StashChanges(string reason, IReadOnlyList<string> changes)
        {
            string? before = StashHead();
            byte[] pathspecs = System.Text.Encoding.UTF8.GetBytes(string.Join("\0", changes.Select(c => c.Substring(3))) + "\0");
            ProcessResult result = Git.Run(
                new[] { "stash", "push", "--include-untracked", "--quiet", "-m", reason, "--pathspec-from-file=-", "--pathspec-file-nul" },
                ToolIdentity.AuthorAndCommitter(DateTimeOffset.UtcNow.ToString("o", System.Globalization.CultureInfo.InvariantCulture)),
                pathspecs);
            if (!result.Succeeded)
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"could not set the uncommitted changes aside (git stash): {Git.FirstLines(result.Stderr + result.Stdout, 6)}",
                    "commit or stash them yourself, then run the command again");
            }

            string? after = StashHead();
            return after != null && after != before ? after : null;
        }

        private string? StashHead()
        {
            ProcessResult result = Git.Run("rev-parse", "--quiet", "--verify", "refs/stash");
            return result.Succeeded ? result.Stdout.Trim() : null;
        }

        public static string FormatList(IReadOnlyList<string> items, int max = 15)
        {
            IEnumerable<string> shown = items.Take(max).Select(i => "    " + i);
            string text = string.Join(Environment.NewLine, shown);
            return items.Count > max ? text + Environment.NewLine + $"    ... and {items.Count - max} more" : text;
        }
    }
}
