using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;

namespace DbxMem.PatchTool.Series
{
    /// <summary>The git mechanics shared by apply and check: dry run, overlay commit, git am.</summary>
    internal static class SeriesApplier
    {
        /// <summary>
        /// Fails when the base already has tracked files in the overlay folder: the overlay commit would then
        /// edit upstream files, and export (which skips the overlay folder) would silently lose those edits.
        /// </summary>
        public static void RequireOverlayFolderFree(AdbcCheckout checkout, BaseInfo baseInfo)
        {
            IReadOnlyList<string> existing = checkout.TrackedFilesUnder(baseInfo.Commit, baseInfo.OverlayDir);
            if (existing.Count > 0)
            {
                throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"the overlay folder {baseInfo.OverlayDir} already exists at {baseInfo.Tag} with {existing.Count} upstream file(s), e.g. {existing[0]}.",
                    $"choose an overlayDir that upstream does not use in {Path.Combine(baseInfo.Folder, "base.json")}");
            }
        }

        /// <summary>
        /// Applies the overlay and the patches, in order, to a scratch index built from the base commit
        /// (GIT_INDEX_FILE), never touching the checkout's index, work tree or HEAD. Same `git apply` engine
        /// git am uses, so "passes here" means "git am will apply it". Stops at the first failure.
        /// </summary>
        public static PrecheckResult DryRun(AdbcCheckout checkout, SeriesDefinition series, bool threeWay)
        {
            string scratch = Path.Combine(Path.GetTempPath(), "dbxmem-patch-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(scratch);
            try
            {
                string index = Path.Combine(scratch, "index");
                var environment = new Dictionary<string, string?> { ["GIT_INDEX_FILE"] = index };
                checkout.Git.Checked(new[] { "read-tree", series.Base.Commit }, extraEnvironment: environment);
                StageOverlay(checkout, series, scratch, environment);

                var outcomes = new List<PatchOutcome>();
                for (int i = 0; i < series.Patches.Count; i++)
                {
                    PatchFile patch = series.Patches[i];
                    string file = Path.Combine(scratch, "patch");
                    File.WriteAllBytes(file, patch.Bytes);
                    var arguments = new List<string> { "apply", "--cached" };
                    if (threeWay)
                    {
                        arguments.Add("--3way");
                    }

                    arguments.Add(file);
                    ProcessResult result = checkout.Git.Run(arguments, environment);
                    string message = (result.Stderr + result.Stdout).Trim();
                    if (!result.Succeeded)
                    {
                        outcomes.Add(new PatchOutcome(patch, applied: false, ConflictParser.Files(message), message));
                        return new PrecheckResult(outcomes, series.Patches.Count - i - 1);
                    }

                    outcomes.Add(new PatchOutcome(patch, applied: true, Array.Empty<string>(), message));
                }

                return new PrecheckResult(outcomes, 0);
            }
            finally
            {
                TryDelete(scratch);
            }
        }

        /// <summary>Writes the overlay (and PatchSeriesInfo.cs) into the checkout and commits it; returns the records and the commit.</summary>
        public static string CommitOverlay(AdbcCheckout checkout, SeriesDefinition series, string hooksDirectory, out List<OverlayFileRecord> records)
        {
            string overlayRoot = Path.Combine(checkout.Root, series.Base.OverlayDir);
            records = new List<OverlayFileRecord>();
            foreach ((string relative, byte[] bytes, bool generated) in OverlayContent(series))
            {
                string target = Path.Combine(overlayRoot, relative);
                Directory.CreateDirectory(Path.GetDirectoryName(target)!);
                File.WriteAllBytes(target, bytes);
                records.Add(new OverlayFileRecord { Path = series.Base.OverlayDir + "/" + relative, Sha256 = Hashing.SourceSha256Hex(bytes), Generated = generated });
            }

            // -f: a checkout's .gitignore must not be able to drop overlay files from the commit.
            checkout.Git.Checked("add", "-f", "--", series.Base.OverlayDir);

            // The base commit's own date makes the overlay commit (and so every later commit id) reproducible.
            string date = checkout.Git.Checked("show", "-s", "--format=%cI", series.Base.Commit);
            string message =
                $"Add the dbxmem memory overlay (series {series.Version})\n\n" +
                "Copied verbatim from driver-overlay/ by `scripts/patch apply`, with the generated\n" +
                $"{OverlayFile.GeneratedFileName}. The patches after this commit wire the overlay in;\n" +
                "`scripts/patch export` never exports this commit.\n\n" +
                $"Series-Hash: {series.Hash}\n";
            checkout.Git.Checked(
                new[] { "-c", "core.hooksPath=" + hooksDirectory, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", message },
                hint: "the checkout was left at the base; see git's message above",
                extraEnvironment: ToolIdentity.AuthorAndCommitter(date));
            return checkout.Head();
        }

        /// <summary>The result of git am over the whole series.</summary>
        internal sealed class AmResult
        {
            public AmResult(bool succeeded, PatchFile? failedPatch, IReadOnlyList<string> failedFiles, string output)
            {
                Succeeded = succeeded;
                FailedPatch = failedPatch;
                FailedFiles = failedFiles;
                Output = output;
            }

            public bool Succeeded { get; }

            public PatchFile? FailedPatch { get; }

            public IReadOnlyList<string> FailedFiles { get; }

            public string Output { get; }
        }

        /// <summary>
        /// git am of every patch in one session (so `git am --continue` after a --3way conflict goes on with the
        /// rest), each with a Patch-Filename trailer added so export writes the commit back to the same file.
        /// Author, date and message come from the patch; the committer is the tool, dated like the author.
        /// </summary>
        public static AmResult RunAm(AdbcCheckout checkout, SeriesDefinition series, bool threeWay, string hooksDirectory)
        {
            if (series.Patches.Count == 0)
            {
                return new AmResult(true, null, Array.Empty<string>(), "");
            }

            string queue = Path.Combine(Path.GetTempPath(), "dbxmem-patch-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(queue);
            try
            {
                var arguments = new List<string>
                {
                    "-c", "core.hooksPath=" + hooksDirectory,
                    "am", "--keep", "--keep-cr", "--no-message-id", "--no-scissors", "--committer-date-is-author-date",
                    threeWay ? "--3way" : "--no-3way",
                };
                for (int i = 0; i < series.Patches.Count; i++)
                {
                    string file = Path.Combine(queue, (i + 1).ToString("D4", System.Globalization.CultureInfo.InvariantCulture) + ".patch");
                    File.WriteAllBytes(file, PatchFile.WithFilenameTrailer(series.Patches[i].Bytes, series.Patches[i].Name));
                    arguments.Add(file);
                }

                ProcessResult result = checkout.Git.Run(arguments, ToolIdentity.Committer());
                string output = (result.Stdout + "\n" + result.Stderr).Trim();
                if (result.Succeeded)
                {
                    return new AmResult(true, null, Array.Empty<string>(), output);
                }

                Match failedAt = Regex.Match(output, @"Patch failed at (\d+)");
                PatchFile? failed = null;
                if (failedAt.Success)
                {
                    int number = int.Parse(failedAt.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
                    if (number >= 1 && number <= series.Patches.Count)
                    {
                        failed = series.Patches[number - 1];
                    }
                }

                return new AmResult(false, failed, ConflictParser.Files(output), output);
            }
            finally
            {
                TryDelete(queue);
            }
        }

        /// <summary>An empty folder to point core.hooksPath at: a user's pre-commit or applypatch hooks must not veto or alter our commits.</summary>
        public static string CreateEmptyHooksDirectory()
        {
            string directory = Path.Combine(Path.GetTempPath(), "dbxmem-patch-hooks-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(directory);
            return directory;
        }

        /// <summary>The overlay files, in the driver's namespace, plus the generated one, as (path below overlayDir, bytes, generated).</summary>
        public static IEnumerable<(string Relative, byte[] Bytes, bool Generated)> OverlayContent(SeriesDefinition series)
        {
            foreach (OverlayFile file in series.Overlay)
            {
                yield return (file.RelativePath, file.BytesFor(series.Base.Namespace), false);
            }

            yield return (OverlayFile.GeneratedFileName, Encoding.UTF8.GetBytes(GenerateSeriesInfo(series)), true);
        }

        /// <summary>The constants the patches stamp into the driver (e.g. an AssemblyMetadata attribute).</summary>
        public static string GenerateSeriesInfo(SeriesDefinition series)
        {
            return
                "// <auto-generated>\n" +
                "// Written by the dbxmem patch tool (`scripts/patch apply`) from patches/VERSION and the series it applied.\n" +
                "// Do not edit: `scripts/patch status` reports edits, and the next apply rewrites this file.\n" +
                "// </auto-generated>\n" +
                "\n" +
                $"namespace {series.Base.Namespace}\n" +
                "{\n" +
                "    /// <summary>Identifies the dbxmem patch series compiled into this driver.</summary>\n" +
                "    internal static class PatchSeriesInfo\n" +
                "    {\n" +
                "        /// <summary>The series version (patches/VERSION).</summary>\n" +
                $"        public const string SeriesVersion = \"{series.Version}\";\n" +
                "\n" +
                "        /// <summary>The upstream tag the series was applied to.</summary>\n" +
                $"        public const string BaseTag = \"{series.Base.Tag}\";\n" +
                "\n" +
                "        /// <summary>The upstream commit the series was applied to.</summary>\n" +
                $"        public const string BaseCommit = \"{series.Base.Commit}\";\n" +
                "\n" +
                "        /// <summary>SHA-256 over the version, base, patches and overlay files (see scripts/README.md).</summary>\n" +
                $"        public const string SeriesHash = \"{series.Hash}\";\n" +
                "    }\n" +
                "}\n";
        }

        public static void TryDelete(string directory)
        {
            try
            {
                if (Directory.Exists(directory))
                {
                    Directory.Delete(directory, recursive: true);
                }
            }
            catch (IOException)
            {
                // A leftover temp folder is harmless; failing the command over it would not be.
            }
            catch (UnauthorizedAccessException)
            {
            }
        }

        private static void StageOverlay(AdbcCheckout checkout, SeriesDefinition series, string scratch, Dictionary<string, string?> environment)
        {
            var targets = new List<string>();
            var sources = new List<string>();
            int n = 0;
            foreach ((string relative, byte[] bytes, bool _) in OverlayContent(series))
            {
                string source = Path.Combine(scratch, "overlay-" + (n++).ToString(System.Globalization.CultureInfo.InvariantCulture));
                File.WriteAllBytes(source, bytes);
                sources.Add(source);
                targets.Add(series.Base.OverlayDir + "/" + relative);
            }

            ProcessResult hashed = checkout.Git.Run(new[] { "hash-object", "-w", "--stdin-paths" }, environment, Encoding.UTF8.GetBytes(string.Join("\n", sources) + "\n"));
            string[] ids = hashed.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries);
            if (!hashed.Succeeded || ids.Length != targets.Count)
            {
                throw new ToolException(ExitCodes.Environment, $"git hash-object failed while staging the overlay for the dry run: {hashed.Stderr.Trim()}");
            }

            var info = new StringBuilder();
            for (int i = 0; i < ids.Length; i++)
            {
                info.Append("100644 ").Append(ids[i].Trim()).Append('\t').Append(targets[i]).Append('\n');
            }

            ProcessResult updated = checkout.Git.Run(new[] { "update-index", "--add", "--index-info" }, environment, Encoding.UTF8.GetBytes(info.ToString()));
            if (!updated.Succeeded)
            {
                throw new ToolException(ExitCodes.Environment, $"git update-index failed while staging the overlay for the dry run: {updated.Stderr.Trim()}");
            }
        }
    }
}
