using System.Collections.Generic;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>revert: back to the recorded base commit (git reset --hard), with guards against losing work.</summary>
    internal static class RevertCommand
    {
        public static int Run(ToolContext context)
        {
            bool force = context.CommandLine.Has("force");
            AdbcCheckout checkout = context.OpenCheckout();
            CheckoutProvenance? provenance = checkout.ReadProvenance(context, deleteStale: true);
            string head = checkout.Head();
            if (provenance == null)
            {
                return NotPatched(context, checkout, head);
            }

            if (checkout.AmInProgress)
            {
                if (!force)
                {
                    throw new ToolException(
                        ExitCodes.CheckoutState,
                        $"a git am session (from `apply --3way`) is in progress in {checkout.Root}; reverting abandons your conflict resolution.",
                        "finish it (`git am --continue`, then `scripts/patch export`) or pass --force to abandon it");
                }

                checkout.Git.Run("am", "--abort");
                head = checkout.Head();
            }

            if (!checkout.CommitExists(provenance.BaseCommit))
            {
                throw new ToolException(ExitCodes.CheckoutState, $"the recorded base {provenance.BaseTag} ({provenance.BaseCommit}) is not in this clone.", $"fetch it: `git -C \"{checkout.Root}\" fetch origin tag {provenance.BaseTag}`");
            }

            var dropped = new List<string>();
            if (!checkout.IsAncestor(provenance.BaseCommit, head))
            {
                dropped.Add($"HEAD {head.Substring(0, 12)} is not on top of the base {provenance.BaseTag} (another branch or tag is checked out)");
            }
            else if (provenance.PatchedHead == null && provenance.OverlayCommit != null && head != provenance.OverlayCommit && checkout.IsAncestor(provenance.OverlayCommit, head))
            {
                dropped.Add($"{checkout.CountCommits(provenance.OverlayCommit, head)} commit(s) of an `apply --3way` session, with your conflict resolutions (export them first)");
            }
            else if (provenance.PatchedHead != null && head != provenance.PatchedHead)
            {
                if (checkout.CommitExists(provenance.PatchedHead) && checkout.IsAncestor(provenance.PatchedHead, head))
                {
                    dropped.Add($"{checkout.CountCommits(provenance.PatchedHead, head)} commit(s) made after apply ({provenance.PatchedHead.Substring(0, 12)}..{head.Substring(0, 12)})");
                }
                else
                {
                    dropped.Add($"HEAD {head.Substring(0, 12)} is no longer the patched commit {provenance.PatchedHead.Substring(0, 12)} (history was rewritten)");
                }
            }

            IReadOnlyList<string> changes = checkout.UncommittedChanges(provenance.DriverDir);
            if (changes.Count > 0)
            {
                dropped.Add($"{changes.Count} uncommitted change(s):\n{AdbcCheckout.FormatList(changes)}");
            }

            if (dropped.Count > 0 && !force)
            {
                throw new ToolException(
                    ExitCodes.CheckoutState,
                    $"revert would discard work in {checkout.Root}:\n  - " + string.Join("\n  - ", dropped),
                    "keep commits with `scripts/patch export` (they become patches), commit or stash other changes; or pass --force (uncommitted changes are saved as a git stash entry, commits stay in `git reflog`)");
            }

            if (changes.Count > 0)
            {
                string? backup = checkout.StashChanges("dbxmem patch revert --force: uncommitted changes before revert", changes);
                if (backup != null)
                {
                    context.Warn($"--force: uncommitted changes saved as stash {backup.Substring(0, 12)} (restore with `git stash apply {backup.Substring(0, 12)}`).");
                }
            }

            checkout.Git.Checked("reset", "--hard", "--quiet", provenance.BaseCommit);
            checkout.Git.Checked("clean", "-fdq", "--", provenance.OverlayDir);
            checkout.DeleteProvenance();
            if (dropped.Count > 0)
            {
                context.Warn($"--force: discarded {string.Join("; ", dropped)}. Previous HEAD was {head} (`git reflog` keeps it).");
            }

            context.Info($"Reverted {checkout.Root} to {provenance.BaseTag} ({provenance.BaseCommit.Substring(0, 12)}); the overlay and {provenance.Patches.Count} patch commit(s) are gone.");
            return ExitCodes.Success;
        }

        private static int NotPatched(ToolContext context, AdbcCheckout checkout, string head)
        {
            PatchRepository? repository = null;
            try
            {
                repository = context.OpenPatches();
            }
            catch (ToolException)
            {
                // Knowing the base is a nicety here; a missing patches folder must not block the answer.
            }

            BaseInfo? atBase = repository == null ? null : BaseResolver.FindByCommit(repository.LoadBases(), head);
            if (atBase != null)
            {
                context.Info($"{checkout.Root} is not patched; it is at {atBase.Tag}. Nothing to revert.");
                return ExitCodes.Success;
            }

            throw new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} has no record of a `scripts/patch apply` (no {checkout.ProvenancePath}), so there is no base to return to.",
                "check out the upstream tag you want yourself, e.g. `git checkout apache-arrow-adbc-21`");
        }
    }
}
