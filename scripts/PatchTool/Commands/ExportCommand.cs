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

            List<FileChange> changes = Compare(baseInfo, exported);
            if (checkOnly)
            {
                if (changes.Count == 0)
                {
                    context.Info($"Patches are up to date: {baseInfo.Folder} matches the {exported.Count} commit(s) after the overlay.");
                    return ExitCodes.Success;
                }

                context.Err.WriteLine($"error: {changes.Count} file(s) in {baseInfo.Folder} differ from what the checkout's commits export to:");
                foreach (FileChange change in changes)
                {
                    context.Err.WriteLine($"  {change.Kind}  {change.Name}");
                }

                context.Err.WriteLine("hint: run `scripts/patch export` (without --check) and commit the patches folder, or revert your edits to the patch files.");
                return ExitCodes.PatchesOutOfDate;
            }

            foreach (FileChange change in changes)
            {
                string path = Path.Combine(baseInfo.Folder, change.Name);
                if (change.Bytes == null)
                {
                    File.Delete(path);
                }
                else
                {
                    File.WriteAllBytes(path, change.Bytes);
                }

                context.Info($"  {change.Kind}  {change.Name}");
            }

            context.Info(changes.Count == 0
                ? $"Nothing to write: {baseInfo.Folder} already matches the {exported.Count} commit(s)."
                : $"Exported {exported.Count} patch(es) to {baseInfo.Folder} ({changes.Count} file(s) written or removed).");
            return ExitCodes.Success;
        }

        /// <summary>A file export would write ("A" new, "M" changed) or delete ("D": Bytes null).</summary>
        private sealed class FileChange
        {
            public FileChange(string kind, string name, byte[]? bytes)
            {
                Kind = kind;
                Name = name;
                Bytes = bytes;
            }

            public string Kind { get; }

            public string Name { get; }

            public byte[]? Bytes { get; }
        }

        private static List<FileChange> Compare(BaseInfo baseInfo, IReadOnlyList<PatchExporter.ExportedPatch> exported)
        {
            var changes = new List<FileChange>();
            var wanted = exported.ToDictionary(p => p.Name, p => p.Bytes, StringComparer.Ordinal);
            foreach (PatchExporter.ExportedPatch patch in exported)
            {
                string path = Path.Combine(baseInfo.Folder, patch.Name);
                if (!File.Exists(path))
                {
                    changes.Add(new FileChange("A", patch.Name, patch.Bytes));
                }
                else if (!File.ReadAllBytes(path).AsSpan().SequenceEqual(patch.Bytes))
                {
                    changes.Add(new FileChange("M", patch.Name, patch.Bytes));
                }
            }

            foreach (string existing in Directory.EnumerateFiles(baseInfo.Folder, "*.patch").Select(f => Path.GetFileName(f)).OrderBy(n => n, StringComparer.Ordinal))
            {
                if (!wanted.ContainsKey(existing))
                {
                    changes.Add(new FileChange("D", existing, null));
                }
            }

            string seriesPath = Path.Combine(baseInfo.Folder, SeriesFile.FileName);
            string? seriesText = File.Exists(seriesPath) ? File.ReadAllText(seriesPath) : null;
            byte[] series = Encoding.UTF8.GetBytes(SeriesFile.Render(seriesText, baseInfo.Tag, exported.Select(p => p.Name)));
            if (seriesText == null)
            {
                changes.Add(new FileChange("A", SeriesFile.FileName, series));
            }
            else if (!File.ReadAllBytes(seriesPath).AsSpan().SequenceEqual(series))
            {
                changes.Add(new FileChange("M", SeriesFile.FileName, series));
            }

            return changes;
        }
    }
}
