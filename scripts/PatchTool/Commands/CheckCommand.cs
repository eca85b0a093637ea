using System.Collections.Generic;
using System.Linq;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>
    /// check: would the series apply? Validates the series (headers, files) and dry-runs it on a scratch
    /// index built from the base commit, so the checkout (index, work tree, HEAD) is never touched.
    /// </summary>
    internal static class CheckCommand
    {
        public static int Run(ToolContext context)
        {
            bool threeWay = context.CommandLine.Has("3way");
            PatchRepository repository = context.OpenPatches();
            AdbcCheckout checkout = context.OpenCheckout();
            IReadOnlyList<BaseInfo> bases = repository.LoadBases();
            IReadOnlyList<BaseInfo> targets = SelectBases(context, checkout, repository, bases);

            int exitCode = ExitCodes.Success;
            foreach (BaseInfo baseInfo in targets)
            {
                int code = CheckOne(context, checkout, repository, baseInfo, threeWay);
                exitCode = Worse(exitCode, code);
            }

            if (targets.Count > 1)
            {
                context.Info(exitCode == ExitCodes.Success ? $"All {targets.Count} series apply." : "Some series do not apply (see above).");
            }

            return exitCode;
        }

        private static IReadOnlyList<BaseInfo> SelectBases(ToolContext context, AdbcCheckout checkout, PatchRepository repository, IReadOnlyList<BaseInfo> bases)
        {
            if (context.CommandLine.Has("all"))
            {
                if (bases.Count == 0)
                {
                    throw new ToolException(ExitCodes.InvalidSeries, $"{repository.PatchesDirectory} holds no <tag>/base.json.", "add a base folder (scripts/README.md, \"Adding a base tag\")");
                }

                return bases;
            }

            string? tag = context.CommandLine.Value("base");
            if (tag != null)
            {
                return new[] { repository.LoadBase(tag) };
            }

            string head = checkout.Head();
            BaseInfo? atHead = BaseResolver.FindByCommit(bases, head);
            if (atHead != null)
            {
                return new[] { atHead };
            }

            CheckoutProvenance? provenance = checkout.ReadProvenance(context, deleteStale: false);
            if (provenance != null)
            {
                context.Info($"{checkout.Root} is patched; checking the repository's series against its recorded base {provenance.BaseTag}.");
                return new[] { repository.LoadBase(provenance.BaseTag) };
            }

            throw BaseResolver.WrongBase(checkout, bases, head);
        }

        private static int CheckOne(ToolContext context, AdbcCheckout checkout, PatchRepository repository, BaseInfo baseInfo, bool threeWay)
        {
            SeriesDefinition series = repository.LoadSeries(baseInfo);
            context.Info($"{baseInfo.Tag} ({baseInfo.Commit.Substring(0, 12)}), series {series.Version}, {series.Patches.Count} patch(es), {series.Overlay.Count} overlay file(s):");
            foreach (string unlisted in series.UnlistedPatchFiles)
            {
                context.Warn($"{(unlisted.Contains('/') ? unlisted : baseInfo.Tag + "/" + unlisted)} is not listed in its series file; it is ignored.");
            }

            if (series.Problems.Count > 0)
            {
                foreach (string problem in series.Problems)
                {
                    context.Err.WriteLine($"  INVALID  {problem}");
                }

                context.Err.WriteLine("hint: every patch needs Why:, Upstream-Status: and Base: lines in its commit message (patches/README.md).");
                return ExitCodes.InvalidSeries;
            }

            if (!checkout.CommitExists(baseInfo.Commit))
            {
                context.Err.WriteLine($"  MISSING  commit {baseInfo.Commit} ({baseInfo.Tag}, {baseInfo.RepositoryName}) is not in this clone.");
                context.Err.WriteLine($"hint: a base of {baseInfo.RepositoryName} is checked in a clone of it; in one, `git -C \"{checkout.Root}\" fetch origin tag {baseInfo.Tag}` (a shallow clone needs --unshallow or a deeper fetch).");
                return ExitCodes.CheckoutState;
            }

            try
            {
                SeriesApplier.RequireOverlayFolderFree(checkout, baseInfo);
            }
            catch (ToolException ex)
            {
                context.Err.WriteLine($"  INVALID  {ex.Message}");
                return ex.ExitCode;
            }

            PrecheckResult result = SeriesApplier.DryRun(checkout, series, threeWay);
            foreach (PatchOutcome outcome in result.Outcomes)
            {
                if (outcome.Applied)
                {
                    context.Info($"  ok       {outcome.Patch.Name}");
                    continue;
                }

                string files = outcome.FailedFiles.Count == 0 ? "" : ": " + string.Join(", ", outcome.FailedFiles);
                context.Err.WriteLine($"  FAILS    {outcome.Patch.Name}{files}");
                context.Err.WriteLine("           git says:\n             " + Git.FirstLines(outcome.GitMessage, 12).Replace("\n    ", "\n             "));
            }

            if (result.Failure != null)
            {
                if (result.NotChecked > 0)
                {
                    context.Err.WriteLine($"  ({result.NotChecked} later patch(es) not checked)");
                }

                context.Err.WriteLine(threeWay
                    ? "hint: resolve it for real with `scripts/patch apply --3way` on a clean checkout of this base, then `scripts/patch export`."
                    : "hint: try `scripts/patch check --3way` (uses the blob ids the patch records), and rebase the patch with `scripts/patch apply --3way` + `scripts/patch export`.");
                return ExitCodes.Conflict;
            }

            context.Info($"  => the series applies to {baseInfo.Tag}{(threeWay ? " (3-way merge allowed)" : "")}.");
            return ExitCodes.Success;
        }

        private static int Worse(int current, int next)
        {
            // Ordered by what to fix first: the patch data, then the clone, then the patches' content.
            int[] priority = { ExitCodes.InvalidSeries, ExitCodes.CheckoutState, ExitCodes.Conflict };
            foreach (int code in priority)
            {
                if (current == code || next == code)
                {
                    return code;
                }
            }

            return current != ExitCodes.Success ? current : next;
        }
    }
}
