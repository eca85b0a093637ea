namespace PatchTool;

/// <summary>
/// check: would the series apply? Validates it (files, headers) and dry-runs it on a scratch index built from the base
/// commit, so the checkout is never touched. What it adds over `git apply --check`: the whole series in order on top of
/// the overlay, against any supported base the clone has (--base, --all), without checking that base out.
/// </summary>
internal static class CheckCommand
{
    public static int Run(ToolContext context, string? tag, bool all)
    {
        PatchRepository repository = context.OpenPatches();
        AdbcCheckout checkout = context.OpenCheckout();
        IReadOnlyList<BaseInfo> bases = repository.LoadBases();
        IReadOnlyList<BaseInfo> targets = all ? InThisClone(context, checkout, bases) : tag != null ? [repository.LoadBase(tag)] : [BaseOf(context, checkout, repository, bases)];
        // Ordered by what to fix first: the patch data, then the clone, then the patches' content.
        int[] worstFirst = [ExitCodes.InvalidSeries, ExitCodes.CheckoutState, ExitCodes.Conflict];
        List<int> codes = targets.Select(b => CheckOne(context, checkout, repository, b)).ToList();
        if (targets.Count > 1)
        {
            context.Info(codes.All(c => c == ExitCodes.Success) ? $"All {targets.Count} series apply." : "Some series do not apply (see above).");
        }

        return worstFirst.FirstOrDefault(codes.Contains);
    }

    /// <summary>
    /// The bases of the upstream repositories this clone holds (of which it has at least one base commit): an
    /// apache/arrow-adbc clone cannot check adbc-drivers/databricks' bases, but a clone that lacks one of its own
    /// repository's bases (a shallow clone) is told to fetch it.
    /// </summary>
    private static IReadOnlyList<BaseInfo> InThisClone(ToolContext context, AdbcCheckout checkout, IReadOnlyList<BaseInfo> bases)
    {
        HashSet<string> held = bases.Where(b => checkout.CommitExists(b.Commit)).Select(b => b.RepositoryName).ToHashSet();
        List<BaseInfo> elsewhere = bases.Where(b => !held.Contains(b.RepositoryName)).ToList();
        if (elsewhere.Count > 0)
        {
            context.Info($"Not checked here: {string.Join(", ", elsewhere.Select(b => b.Tag))}, bases of {string.Join(", ", elsewhere.Select(b => b.RepositoryName).Distinct())}, which this clone does not hold (check them in a clone of it).");
        }

        return bases.Except(elsewhere).ToList();
    }

    /// <summary>HEAD's base, or the recorded base of a patched checkout.</summary>
    private static BaseInfo BaseOf(ToolContext context, AdbcCheckout checkout, PatchRepository repository, IReadOnlyList<BaseInfo> bases)
    {
        string head = checkout.Head();
        if (bases.FirstOrDefault(b => b.Commit == head) is BaseInfo atHead)
        {
            return atHead;
        }

        CheckoutProvenance provenance = checkout.ReadProvenance(deleteStale: false) ?? throw checkout.NotABase(bases, head);
        context.Info($"{checkout.Root} is patched; checking the repository's series against its recorded base {provenance.BaseTag}.");
        return repository.LoadBase(provenance.BaseTag);
    }

    private static int CheckOne(ToolContext context, AdbcCheckout checkout, PatchRepository repository, BaseInfo baseInfo)
    {
        SeriesDefinition series = repository.LoadSeries(baseInfo);
        context.Info($"{baseInfo.Tag} ({baseInfo.Commit[..12]}), series {series.Version}, {series.Patches.Count} patch(es), {series.Overlay.Count} overlay file(s){(series.Tests.Count == 0 ? "" : $", {series.Tests.Count} test file(s)")}:");
        series.UnlistedPatchFiles.ToList().ForEach(f => context.Warn($"{f} is not listed in its series file; it is ignored."));
        if (series.Problems.Count > 0)
        {
            series.Problems.ToList().ForEach(p => context.Err.WriteLine($"  INVALID  {p}"));
            context.Err.WriteLine("hint: every patch needs Why:, Upstream-Status: and Base: lines in its commit message (patches/README.md).");
            return ExitCodes.InvalidSeries;
        }

        // The PR map must follow the series: a patch, overlay or test file added without a PR (or notForwarded) fails here.
        IReadOnlyList<string> mapProblems;
        try
        {
            mapProblems = PrMap.Load(baseInfo)?.Problems(series) ?? [];
        }
        catch (ToolException ex)
        {
            mapProblems = [ex.Message];
        }

        if (mapProblems.Count > 0)
        {
            mapProblems.ToList().ForEach(p => context.Err.WriteLine($"  INVALID  {p}"));
            context.Err.WriteLine("hint: every patch, overlay file and test file of the series goes in exactly one PR of prs.json or in its notForwarded list (patches/README.md, \"prs.json\").");
            return ExitCodes.InvalidSeries;
        }

        if (!checkout.CommitExists(baseInfo.Commit))
        {
            context.Err.WriteLine($"  MISSING  commit {baseInfo.Commit} ({baseInfo.Tag}, {baseInfo.RepositoryName}) is not in this clone.");
            context.Err.WriteLine($"hint: a base of {baseInfo.RepositoryName} is checked in a clone of it: `git -C \"{checkout.Root}\" fetch origin tag {baseInfo.Tag}` (a shallow clone needs --unshallow).");
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

        IReadOnlyList<PatchOutcome> outcomes = SeriesApplier.DryRun(checkout, series);
        foreach (PatchOutcome outcome in outcomes)
        {
            if (outcome.Applied)
            {
                context.Info($"  ok       {outcome.Patch!.Name}");
                continue;
            }

            context.Err.WriteLine($"  FAILS    {outcome.Patch!.Name}{(outcome.FailedFiles.Count == 0 ? "" : ": " + string.Join(", ", outcome.FailedFiles))}");
            context.Err.WriteLine("           git says:\n             " + Git.FirstLines(outcome.GitMessage, 12).Replace("\n    ", "\n             "));
            context.Err.WriteLine($"  ({series.Patches.Count - outcomes.Count} later patch(es) not checked)");
            context.Err.WriteLine($"hint: rebase it: `scripts/patch apply --3way` on a clean checkout of {baseInfo.Tag}, resolve, then `scripts/patch export` (scripts/README.md, \"Adding a base tag\").");
            return ExitCodes.Conflict;
        }

        context.Info($"  => the series applies to {baseInfo.Tag}.");
        return ExitCodes.Success;
    }
}
