using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Series
{
    /// <summary>
    /// Turns commits into patch files deterministically: every git setting that could change the output is
    /// pinned on the command line, nothing time- or id-dependent is written ("From 000…" zero commit, no
    /// signature with the git version, no diffstat, full blob ids so --3way can find the originals).
    /// </summary>
    internal static class PatchExporter
    {
        private static readonly string[] PinnedFormatConfig =
        {
            
            "-c", "format.from=false", "-c", "format.forceInBodyFrom=false", "-c", "format.mboxrd=false", "-c", "format.encodeEmailHeaders=true",
            "-c", "format.numbered=false", "-c", "format.thread=false", "-c", "format.coverLetter=false", "-c", "format.useAutoBase=false",
            "-c", "format.notes=false", "-c", "format.attach=false", "-c", "format.suffix=.patch",
            "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c", "diff.relative=false", "-c", "diff.suppressBlankEmpty=false",
            "-c", "diff.context=3", "-c", "diff.interHunkContext=0", "-c", "diff.indentHeuristic=true",
            "-c", "i18n.logOutputEncoding=UTF-8",
        };

        /// <summary>One exported commit.</summary>
        internal sealed class ExportedPatch
        {
            public ExportedPatch(string commit, string name, byte[] bytes, PatchFile parsed, bool touchedOverlay)
            {
                Commit = commit;
                Name = name;
                Bytes = bytes;
                Parsed = parsed;
                TouchedOverlay = touchedOverlay;
            }

            public string Commit { get; }

            public string Name { get; }

            public byte[] Bytes { get; }

            public PatchFile Parsed { get; }

            public bool TouchedOverlay { get; }
        }

        /// <summary>
        /// Exports every commit after <paramref name="overlayCommit"/> up to HEAD. Commits that only change the
        /// overlay folder are reported in <paramref name="overlayOnly"/> and produce no patch (overlay changes
        /// belong in driver-overlay/).
        /// </summary>
        public static IReadOnlyList<ExportedPatch> Export(AdbcCheckout checkout, string overlayCommit, string overlayDir, out List<string> overlayOnly)
        {
            string merges = checkout.Git.Checked("rev-list", "--merges", overlayCommit + "..HEAD");
            if (merges.Length > 0)
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"the commits after the overlay include merge commit(s) ({merges.Split('\n')[0].Substring(0, 12)}...); a patch series is linear.",
                    "rebase them into a linear history (`git rebase <overlay commit>`) and export again");
            }

            string[] commits = checkout.Git.Checked("rev-list", "--reverse", overlayCommit + "..HEAD").Split('\n', StringSplitOptions.RemoveEmptyEntries);
            var patches = new List<ExportedPatch>();
            overlayOnly = new List<string>();
            string overlayPrefix = overlayDir + "/";
            foreach (string commit in commits)
            {
                string[] files = checkout.Git.Checked("diff-tree", "--no-commit-id", "--name-only", "-r", "--no-renames", commit).Split('\n', StringSplitOptions.RemoveEmptyEntries);
                bool touchesOverlay = files.Any(f => f.StartsWith(overlayPrefix, StringComparison.Ordinal));
                string subject = checkout.Git.Checked("log", "-1", "--format=%s", commit);
                if (files.Length == 0)
                {
                    overlayOnly.Add($"{commit.Substring(0, 12)} {subject} (an empty commit)");
                    continue;
                }

                if (files.All(f => f.StartsWith(overlayPrefix, StringComparison.Ordinal)))
                {
                    overlayOnly.Add($"{commit.Substring(0, 12)} {subject} (changes only the overlay folder: copy them to driver-overlay/)");
                    continue;
                }

                var arguments = new List<string>(PinnedFormatConfig)
                {
                    "format-patch", "--stdout", "--zero-commit", "--full-index", "--no-signature", "--no-stat", "--keep-subject",
                    "--no-numbered", "--no-thread", "--no-cover-letter", "--no-attach", "--no-notes", "--no-base", "--no-to", "--no-cc", "--no-add-header",
                    "--no-renames", "--diff-algorithm=myers", "--unified=3", "--src-prefix=a/", "--dst-prefix=b/", "--encoding=UTF-8",
                    commit + "^.." + commit, "--", ".", ":(exclude)" + overlayDir,
                };
                ProcessResult result = checkout.Git.Run(arguments);
                if (!result.Succeeded)
                {
                    throw new ToolException(ExitCodes.Environment, $"git format-patch failed for {commit}: {result.Stderr.Trim()}");
                }

                byte[] bytes = PatchFile.WithoutFilenameTrailer(result.StdoutBytes, out string? pinned);
                string name = pinned ?? NameFromSubject(subject);
                if (!Regex.IsMatch(name, @"^[A-Za-z0-9][A-Za-z0-9._+-]*\.patch$"))
                {
                    throw new ToolException(
                        ExitCodes.InvalidSeries,
                        $"commit {commit.Substring(0, 12)} pins the file name '{name}' (Patch-Filename:), which is not a plain *.patch file name.",
                        "use letters, digits, '.', '_', '+', '-', ending in .patch");
                }

                patches.Add(new ExportedPatch(commit, name, bytes, PatchFile.FromBytes(name, bytes), touchesOverlay));
            }

            IGrouping<string, ExportedPatch>? duplicate = patches.GroupBy(p => p.Name, StringComparer.OrdinalIgnoreCase).FirstOrDefault(g => g.Count() > 1);
            if (duplicate != null)
            {
                throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"commits {string.Join(", ", duplicate.Select(p => p.Commit.Substring(0, 12)))} would all be exported as {duplicate.Key}.",
                    $"give one of them a different subject, or a `{PatchFile.FilenameTrailer}: other-name.patch` line in its commit message");
            }

            return patches;
        }

        /// <summary>
        /// "Wire the memory scope into DatabricksDatabase" -> "wire-the-memory-scope-into-databricksdatabase.patch":
        /// lower-case ASCII letters and digits, everything else collapsed to '-', at most 64 characters.
        /// </summary>
        public static string NameFromSubject(string subject)
        {
            var builder = new StringBuilder();
            foreach (char c in subject.ToLowerInvariant())
            {
                if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
                {
                    builder.Append(c);
                }
                else if (builder.Length > 0 && builder[^1] != '-')
                {
                    builder.Append('-');
                }
            }

            string stem = builder.ToString().Trim('-');
            if (stem.Length > 64)
            {
                stem = stem.Substring(0, 64).TrimEnd('-');
            }

            return (stem.Length == 0 ? "patch" : stem) + ".patch";
        }
    }
}
