using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>export: rewrite patches/&lt;base-tag&gt;/ from the patched checkout's commits; --check only compares.</summary>
    internal static class ExportCommand
    {
        public static int Run(ToolContext context)
        {
            bool checkOnly = context.CommandLine.Has("check");
            PatchRepository repository = context.OpenPatches();
            AdbcCheckout checkout = context.OpenCheckout();
            ApplyCommand.RequireNoAmSession(checkout);
            CheckoutProvenance provenance = checkout.ReadProvenance(context, deleteStale: false) ?? throw new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} was not patched by `scripts/patch apply`, so there is no overlay commit to export from.",
                "run `scripts/patch apply` on a checkout at a supported base, commit your changes on top, then export");
            string overlayCommit = provenance.OverlayCommit ?? throw new ToolException(
                ExitCodes.CheckoutState,
                "apply did not get as far as the overlay commit in this checkout.",
                "run `scripts/patch revert --force` and apply again");
            string head = checkout.Head();
            if (!checkout.CommitExists(overlayCommit) || !checkout.IsAncestor(overlayCommit, head))
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"HEAD {head.Substring(0, 12)} does not contain the overlay commit {overlayCommit.Substring(0, 12)} recorded by apply.",
                    "check out the patched branch again, or revert and apply");
            }

            BaseInfo baseInfo = repository.LoadBase(provenance.BaseTag);
            IReadOnlyList<PatchExporter.ExportedPatch> exported = PatchExporter.Export(checkout, overlayCommit, provenance.OverlayDir, out List<string> overlayOnly);
            foreach (string commit in overlayOnly)
            {
                context.Warn($"commit {commit}: not exported.");
            }

            foreach (PatchExporter.ExportedPatch patch in exported.Where(p => p.TouchedOverlay))
            {
                context.Warn($"commit {patch.Commit.Substring(0, 12)} also changes the overlay folder; that part is not in {patch.Name}. Copy it to driver-overlay/.");
            }

            foreach (PatchExporter.ExportedPatch patch in exported.Where(p => p.Parsed.MissingHeaderFields.Count > 0))
            {
                context.Warn($"{patch.Name} lacks {string.Join(", ", patch.Parsed.MissingHeaderFields.Select(f => f + ":"))} in its commit message; check and apply will reject it (patches/README.md).");
            }

            if (checkout.UncommittedChanges(provenance.DriverDir).Count > 0)
            {
                context.Warn("the checkout has uncommitted changes; export only reads commits. Commit them (or `git commit --fixup` + `git rebase -i --autosquash`) first.");
            }

            List<FileChange> changes = Compare(context, repository, baseInfo, exported);
            string where = baseInfo.Folder + string.Concat(repository.LoadSeries(baseInfo).Parts.Where(p => p.IsShared).Select(p => " + " + p.Folder));
            if (checkOnly)
            {
                if (changes.Count == 0)
                {
                    context.Info($"Patches are up to date: {where} match the {exported.Count} commit(s) after the overlay.");
                    return ExitCodes.Success;
                }

                context.Err.WriteLine($"error: {changes.Count} file(s) in {where} differ from what the checkout's commits export to:");
                foreach (FileChange change in changes)
                {
                    context.Err.WriteLine($"  {change.Kind}  {change.Name}");
                }

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

            foreach (string shared in changes.Select(c => SharedNameOf(c.Name)).OfType<string>().Distinct(StringComparer.Ordinal))
            {
                IReadOnlyList<string> users = repository.TagsIncluding(shared);
                context.Info($"  (shared series {shared} is included by {string.Join(", ", users)}: the change applies to each of them)");
            }

            context.Info(changes.Count == 0
                ? $"Nothing to write: {where} already match the {exported.Count} commit(s)."
                : $"Exported {exported.Count} patch(es) to {where} ({changes.Count} file(s) written or removed).");
            return ExitCodes.Success;
        }

        private static string? SharedNameOf(string display)
        {
            string prefix = PatchRepository.SharedFolderName + "/";
            return display.StartsWith(prefix, StringComparison.Ordinal) ? display.Substring(prefix.Length).Split('/')[0] : null;
        }

        /// <summary>A file export would write ("A" new, "M" changed) or delete ("D": Bytes null).</summary>
        private sealed class FileChange
        {
            public FileChange(string kind, string path, string name, byte[]? bytes)
            {
                Kind = kind;
                Path = path;
                Name = name;
                Bytes = bytes;
            }

            public string Kind { get; }

            /// <summary>The full path of the file.</summary>
            public string Path { get; }

            /// <summary>What the user sees: the file name for the tag's own files, shared/&lt;name&gt;/&lt;file&gt; for a shared series.</summary>
            public string Name { get; }

            public byte[]? Bytes { get; }
        }

        private static List<FileChange> Compare(ToolContext context, PatchRepository repository, BaseInfo baseInfo, IReadOnlyList<PatchExporter.ExportedPatch> exported)
        {
            SeriesDefinition current = repository.LoadSeries(baseInfo);
            Dictionary<int, SeriesPart> owner = AssignToSharedSeries(current, exported);
            var changes = new List<FileChange>();

            // The tag's own patches: every exported commit outside a shared series' run.
            var own = exported.Where((p, i) => !owner.ContainsKey(i)).ToList();
            CompareFolder(baseInfo.Folder, "", own, changes);

            // Each shared series still used by this tag: its run of commits, written once into its own folder.
            foreach (SeriesPart part in owner.Values.Distinct())
            {
                var run = exported.Where((p, i) => owner.TryGetValue(i, out SeriesPart? o) && o == part).ToList();
                string display = $"{PatchRepository.SharedFolderName}/{part.SharedName}/";
                CompareFolder(part.Folder, display, run, changes);
                byte[] sharedSeries = Encoding.UTF8.GetBytes(SeriesFile.Render(part.SeriesText, SeriesFile.DefaultSharedHeader(part.SharedName!), run.Select(p => p.Name)));
                CompareFile(Path.Combine(part.Folder, SeriesFile.FileName), display + SeriesFile.FileName, sharedSeries, changes);
            }

            foreach (SeriesPart dropped in current.Parts.Where(p => p.IsShared && !owner.Values.Contains(p)))
            {
                context.Warn($"none of the commits is a patch of the shared series {dropped.SharedName}: {baseInfo.Tag}'s series no longer includes it (its files stay for the other tags).");
            }

            var entries = new List<string>();
            for (int i = 0; i < exported.Count; i++)
            {
                if (!owner.TryGetValue(i, out SeriesPart? part))
                {
                    entries.Add(exported[i].Name);
                }
                else if (i == 0 || !owner.TryGetValue(i - 1, out SeriesPart? previous) || previous != part)
                {
                    entries.Add(SeriesFile.IncludeLine(part.SharedName!));
                }
            }

            string seriesPath = Path.Combine(baseInfo.Folder, SeriesFile.FileName);
            string? seriesText = File.Exists(seriesPath) ? File.ReadAllText(seriesPath) : null;
            CompareFile(seriesPath, SeriesFile.FileName, Encoding.UTF8.GetBytes(SeriesFile.Render(seriesText, baseInfo.Tag, entries)), changes);
            return changes;
        }

        /// <summary>
        /// Which exported commits belong to which included shared series: from the first to the last commit whose
        /// patch the shared series lists, everything in between (a commit inserted among a shared series' patches
        /// joins it; one before or after it is the tag's own). A shared series none of whose patches is exported is
        /// no longer included.
        /// </summary>
        private static Dictionary<int, SeriesPart> AssignToSharedSeries(SeriesDefinition current, IReadOnlyList<PatchExporter.ExportedPatch> exported)
        {
            var owner = new Dictionary<int, SeriesPart>();
            foreach (SeriesPart part in current.Parts.Where(p => p.IsShared))
            {
                var names = new HashSet<string>(part.Names, StringComparer.Ordinal);
                List<int> hits = Enumerable.Range(0, exported.Count).Where(i => names.Contains(exported[i].Name)).ToList();
                if (hits.Count == 0)
                {
                    continue;
                }

                for (int i = hits[0]; i <= hits[^1]; i++)
                {
                    if (owner.TryGetValue(i, out SeriesPart? other))
                    {
                        throw new ToolException(
                            ExitCodes.InvalidSeries,
                            $"the commits of the shared series {other.SharedName} and {part.SharedName} interleave ({exported[i].Name} would belong to both).",
                            "reorder the commits so each shared series' patches are consecutive (`git rebase -i`), then export again");
                    }

                    owner[i] = part;
                }
            }

            return owner;
        }

        private static void CompareFolder(string folder, string display, IReadOnlyList<PatchExporter.ExportedPatch> patches, List<FileChange> changes)
        {
            var wanted = new HashSet<string>(patches.Select(p => p.Name), StringComparer.Ordinal);
            foreach (PatchExporter.ExportedPatch patch in patches)
            {
                CompareFile(Path.Combine(folder, patch.Name), display + patch.Name, patch.Bytes, changes);
            }

            IEnumerable<string> existing = Directory.Exists(folder) ? Directory.EnumerateFiles(folder, "*.patch").Select(f => Path.GetFileName(f)) : Enumerable.Empty<string>();
            foreach (string name in existing.Where(n => !wanted.Contains(n)).OrderBy(n => n, StringComparer.Ordinal))
            {
                changes.Add(new FileChange("D", Path.Combine(folder, name), display + name, null));
            }
        }

        private static void CompareFile(string path, string display, byte[] bytes, List<FileChange> changes)
        {
            if (!File.Exists(path))
            {
                changes.Add(new FileChange("A", path, display, bytes));
            }
            else if (!File.ReadAllBytes(path).AsSpan().SequenceEqual(bytes))
            {
                changes.Add(new FileChange("M", path, display, bytes));
            }
        }
    }
}
