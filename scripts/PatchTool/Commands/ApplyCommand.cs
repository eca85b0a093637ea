using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>
    /// apply: overlay commit + git am of the series on a checkout at a supported base; records provenance.
    /// </summary>
    internal static class ApplyCommand
    {
        public static int Run(ToolContext context)
        {
            bool force = context.CommandLine.Has("force");
            bool threeWay = context.CommandLine.Has("3way");
            PatchRepository repository = context.OpenPatches();
            AdbcCheckout checkout = context.OpenCheckout();
            RequireNoAmSession(checkout);

            IReadOnlyList<BaseInfo> bases = repository.LoadBases();
            string head = checkout.Head();
            CheckoutProvenance? provenance = checkout.ReadProvenance(context, deleteStale: true);
            if (provenance != null)
            {
                return AlreadyPatched(context, checkout, repository, provenance, head);
            }

            BaseInfo baseInfo = BaseResolver.FindByCommit(bases, head) ?? throw BaseResolver.WrongBase(checkout, bases, head);
            SeriesDefinition series = repository.LoadSeries(baseInfo);
            series.EnsureValid();
            SeriesApplier.RequireOverlayFolderFree(checkout, baseInfo);
            checkout.RequireSubmodules(baseInfo);
            HandleUncommittedChanges(context, checkout, baseInfo, force);

            context.Info($"Applying series {series.Version} ({series.Patches.Count} patch(es) + overlay of {series.Overlay.Count} file(s)) to {baseInfo.Tag} at {checkout.Root}");
            if (!threeWay)
            {
                // Dry run first, on a scratch index: a series that does not apply is reported without touching anything.
                PrecheckResult dryRun = SeriesApplier.DryRun(checkout, series, threeWay: false);
                if (dryRun.Failure != null)
                {
                    throw Conflict(checkout, baseInfo, dryRun.Failure.Patch, dryRun.Failure.FailedFiles, dryRun.Failure.GitMessage, treeNote: "Nothing was changed in the checkout.");
                }
            }

            var record = new CheckoutProvenance
            {
                ToolVersion = ToolContext.ToolVersion,
                State = CheckoutProvenance.StateApplying,
                BaseTag = baseInfo.Tag,
                BaseCommit = baseInfo.Commit,
                SeriesVersion = series.Version,
                SeriesHash = series.Hash,
                DriverDir = baseInfo.DriverDir,
                OverlayDir = baseInfo.OverlayDir,
                DriverProject = baseInfo.DriverProject,
                ThreeWay = threeWay,
                Patches = series.Patches.Select(p => new PatchRecord { Name = p.Name, Sha256 = p.Sha256, Subject = p.Subject ?? "" }).ToList(),
                AppliedAtUtc = DateTimeOffset.UtcNow.ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture),
            };
            checkout.WriteProvenance(record);

            string hooks = SeriesApplier.CreateEmptyHooksDirectory();
            try
            {
                string overlayCommit;
                try
                {
                    overlayCommit = SeriesApplier.CommitOverlay(checkout, series, hooks, out List<OverlayFileRecord> overlayRecords);
                    record.OverlayFiles = overlayRecords;
                    record.OverlayCommit = overlayCommit;
                    checkout.WriteProvenance(record);
                }
                catch
                {
                    RestoreBase(checkout, baseInfo);
                    throw;
                }

                context.Info($"  overlay committed as {overlayCommit.Substring(0, 12)} ({record.OverlayFiles.Count} file(s) in {baseInfo.OverlayDir})");
                SeriesApplier.AmResult am = SeriesApplier.RunAm(checkout, series, threeWay, hooks);
                if (!am.Succeeded)
                {
                    return Failed(context, checkout, baseInfo, series, am, threeWay);
                }

                IReadOnlyList<string> commits = checkout.Git.Checked("rev-list", "--reverse", overlayCommit + "..HEAD").Split('\n', StringSplitOptions.RemoveEmptyEntries);
                if (commits.Count != series.Patches.Count)
                {
                    RestoreBase(checkout, baseInfo);
                    throw new ToolException(
                        ExitCodes.Conflict,
                        $"git am made {commits.Count} commit(s) for {series.Patches.Count} patch(es); an empty or duplicate patch is the usual cause. The checkout was reset to {baseInfo.Tag}.",
                        "run `scripts/patch check` and look for a patch with no changes");
                }

                for (int i = 0; i < commits.Count; i++)
                {
                    record.Patches[i].Commit = commits[i];
                    context.Info($"  applied {series.Patches[i].Name} as {commits[i].Substring(0, 12)}");
                }

                record.PatchedHead = checkout.Head();
                record.State = CheckoutProvenance.StateApplied;
                checkout.WriteProvenance(record);
                context.Info($"Done: {baseInfo.Tag} + series {series.Version} ({series.Hash}); HEAD is {record.PatchedHead.Substring(0, 12)}.");
                context.Info($"Provenance: {checkout.ProvenancePath}");
                return ExitCodes.Success;
            }
            finally
            {
                SeriesApplier.TryDelete(hooks);
            }
        }

        public static void RequireNoAmSession(AdbcCheckout checkout)
        {
            if (checkout.AmInProgress)
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"a git am session is in progress in {checkout.Root} (a patch stopped on a conflict, e.g. after `apply --3way`).",
                    $"resolve it: fix the files, `git -C \"{checkout.Root}\" add <files>`, `git -C \"{checkout.Root}\" am --continue`, then `scripts/patch export`; or abandon it with `scripts/patch revert --force`");
            }
        }

        private static int AlreadyPatched(ToolContext context, AdbcCheckout checkout, PatchRepository repository, CheckoutProvenance provenance, string head)
        {
            BaseInfo baseInfo = repository.LoadBase(provenance.BaseTag);
            SeriesDefinition series = repository.LoadSeries(baseInfo);
            bool sameSeries = provenance.SeriesHash == series.Hash && provenance.BaseCommit == baseInfo.Commit;
            if (provenance.State == CheckoutProvenance.StateApplied && provenance.PatchedHead == head && sameSeries)
            {
                context.Info($"Already patched: {checkout.Root} is {provenance.BaseTag} + series {provenance.SeriesVersion} ({provenance.SeriesHash}); nothing to do.");
                int modified = checkout.UncommittedChanges(provenance.DriverDir).Count;
                if (modified > 0)
                {
                    context.Warn($"{modified} file(s) changed since apply; `scripts/patch status` lists them.");
                }

                return ExitCodes.Success;
            }

            string why;
            if (provenance.State != CheckoutProvenance.StateApplied)
            {
                why = "an earlier `apply --3way` stopped on a conflict and was finished by hand";
            }
            else if (provenance.PatchedHead != head)
            {
                why = $"HEAD moved since apply (it was {provenance.PatchedHead?.Substring(0, 12)}, it is {head.Substring(0, 12)})";
            }
            else
            {
                why = $"it was patched by series {provenance.SeriesVersion} ({provenance.SeriesHash}) and this repository now holds series {series.Version} ({series.Hash})";
            }

            throw new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} is already patched ({provenance.BaseTag}), but not by this exact series: {why}.",
                "to keep commits you made in the checkout, run `scripts/patch export` first; then `scripts/patch revert` (add --force to drop extra commits) and `scripts/patch apply` again");
        }

        private static void HandleUncommittedChanges(ToolContext context, AdbcCheckout checkout, BaseInfo baseInfo, bool force)
        {
            IReadOnlyList<string> changes = checkout.UncommittedChanges(baseInfo.DriverDir);
            if (changes.Count == 0)
            {
                return;
            }

            if (!force)
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"{checkout.Root} has uncommitted changes (apply needs a clean tree: a conflict rolls back with `git reset --hard`):\n{AdbcCheckout.FormatList(changes)}",
                    "commit or stash them, or pass --force to set them aside (they are saved as a git stash entry first)");
            }

            string? backup = checkout.StashChanges("dbxmem patch apply --force: uncommitted changes before apply", changes);
            // The stash took the listed paths; a reset catches anything it could not (e.g. the source side of a staged rename).
            checkout.Git.Checked("reset", "--hard", "--quiet", "HEAD");
            context.Warn($"--force: set aside {changes.Count} uncommitted change(s)" +
                (backup == null ? "." : $" as stash {backup.Substring(0, 12)} (`git stash list`; restore with `git stash apply {backup.Substring(0, 12)}`)."));
        }

        private static int Failed(ToolContext context, AdbcCheckout checkout, BaseInfo baseInfo, SeriesDefinition series, SeriesApplier.AmResult am, bool threeWay)
        {
            string patchName = am.FailedPatch?.Name ?? "(unknown patch)";
            if (threeWay)
            {
                // --3way is the rebase workflow: leave the conflict for the user to resolve in place.
                string files = am.FailedFiles.Count == 0 ? "(see git's message)" : string.Join(", ", am.FailedFiles);
                context.Err.WriteLine($"error: patch {patchName} conflicts even with a 3-way merge, in: {files}");
                context.Err.WriteLine("  git says:\n    " + Git.FirstLines(am.Output, 20));
                context.Err.WriteLine("hint: the checkout is left mid-`git am` for you to resolve:");
                context.Err.WriteLine($"  1. edit the conflicted files, `git -C \"{checkout.Root}\" add <files>`, `git -C \"{checkout.Root}\" am --continue` (repeat per stopped patch);");
                context.Err.WriteLine("  2. `scripts/patch export` writes the resolved commits back to the patch files;");
                context.Err.WriteLine("  3. `scripts/patch revert --force` then `scripts/patch apply` proves the new series applies cleanly.");
                context.Err.WriteLine("  To give up instead: `scripts/patch revert --force`.");
                return ExitCodes.Conflict;
            }

            RestoreBase(checkout, baseInfo);
            throw Conflict(checkout, baseInfo, am.FailedPatch, am.FailedFiles, am.Output, treeNote: $"The checkout was reset to {baseInfo.Tag}.");
        }

        /// <summary>Puts the checkout back where apply found it: am aborted, HEAD at the base, overlay leftovers gone, no provenance.</summary>
        private static void RestoreBase(AdbcCheckout checkout, BaseInfo baseInfo)
        {
            if (checkout.AmInProgress)
            {
                checkout.Git.Run("am", "--abort");
            }

            checkout.Git.Run("reset", "--hard", "--quiet", baseInfo.Commit);
            checkout.Git.Run("clean", "-fdq", "--", baseInfo.OverlayDir);
            checkout.DeleteProvenance();
        }

        public static ToolException Conflict(AdbcCheckout checkout, BaseInfo baseInfo, PatchFile? patch, IReadOnlyList<string> files, string gitMessage, string treeNote)
        {
            string which = patch == null ? "a patch" : $"patch {patch.Name}" + (patch.Subject == null ? "" : $" (\"{patch.Subject}\")");
            string where = files.Count == 0 ? "" : $" in {string.Join(", ", files)}";
            return new ToolException(
                ExitCodes.Conflict,
                $"{which} does not apply to {baseInfo.Tag}{where}. {treeNote}\n  git says:\n    {Git.FirstLines(gitMessage, 12)}",
                $"rebase the patch: `scripts/patch apply --3way` on a clean {baseInfo.Tag} checkout, resolve, `git am --continue`, then `scripts/patch export` (scripts/README.md, \"Rebasing the series\")");
        }
    }
}
