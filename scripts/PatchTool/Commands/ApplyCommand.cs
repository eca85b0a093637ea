using System.Globalization;

namespace PatchTool;

/// <summary>
/// apply: on a checkout at a supported base, the overlay as one commit, then git am of the series in order, with
/// provenance. What it adds over `git am`: the base is checked, the overlay is generated and committed first, the
/// series is dry-run before anything changes, the commits are reproducible, and a second apply is a no-op.
/// </summary>
internal static class ApplyCommand
{
    public static int Run(ToolContext context, bool threeWay)
    {
        PatchRepository repository = context.OpenPatches();
        AdbcCheckout checkout = context.OpenCheckout();
        checkout.RequireNoAmSession();
        IReadOnlyList<BaseInfo> bases = repository.LoadBases();
        string head = checkout.Head();
        if (checkout.ReadProvenance(deleteStale: true) is CheckoutProvenance provenance)
        {
            return AlreadyPatched(context, checkout, repository, provenance, head);
        }

        BaseInfo baseInfo = bases.FirstOrDefault(b => b.Commit == head) ?? throw checkout.NotABase(bases, head);
        SeriesDefinition series = repository.LoadSeries(baseInfo);
        series.EnsureValid();
        SeriesApplier.RequireReadyForSeries(checkout, baseInfo, "apply needs a clean tree: a conflict rolls back with `git reset --hard`");

        context.Info($"Applying series {series.Version} ({series.Patches.Count} patch(es) + overlay of {series.Overlay.Count} file(s){(series.Tests.Count == 0 ? "" : $" + {series.Tests.Count} test file(s)")}) to {baseInfo.Tag} at {checkout.Root}");
        // Dry run first (not for --3way, which may resolve what the dry run cannot): a series that does not apply is
        // reported without touching anything.
        PatchOutcome? failure = threeWay ? null : SeriesApplier.DryRun(checkout, series).FirstOrDefault(o => !o.Applied);
        if (failure != null)
        {
            throw Conflict(baseInfo, failure, "Nothing was changed in the checkout.");
        }

        var record = new CheckoutProvenance
        {
            ToolVersion = ToolContext.ToolVersion,
            BaseTag = baseInfo.Tag,
            BaseCommit = baseInfo.Commit,
            SeriesVersion = series.Version,
            SeriesHash = series.Hash,
            DriverDir = baseInfo.DriverDir,
            OverlayDir = baseInfo.OverlayDir,
            DriverProject = baseInfo.DriverProject,
            ThreeWay = threeWay,
            Patches = series.Patches.Select(p => new PatchRecord(p.Name, p.Sha256, p.Subject ?? "")).ToList(),
            AppliedAtUtc = DateTimeOffset.UtcNow.ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture),
        };
        checkout.WriteProvenance(record);
        // Hooks point at an empty folder: a user's pre-commit or applypatch hook must not veto or alter these commits.
        using var hooks = new ScratchFolder();
        try
        {
            record.OverlayCommit = SeriesApplier.CommitOverlay(checkout, series, hooks.Path, record.OverlayFiles);
            checkout.WriteProvenance(record);
        }
        catch
        {
            checkout.ResetTo(baseInfo.Commit, baseInfo.OverlayFolders);
            throw;
        }

        context.Info($"  overlay committed as {record.OverlayCommit[..12]} ({record.OverlayFiles.Count} file(s) in {string.Join(" and ", baseInfo.OverlayFolders)})");
        PatchOutcome am = SeriesApplier.RunAm(checkout, series, threeWay, hooks.Path);
        if (!am.Applied && threeWay)
        {
            return StoppedForResolution(context, checkout, baseInfo, am);
        }

        string[] commits = checkout.Git.Checked("rev-list", "--reverse", record.OverlayCommit + "..HEAD").Split('\n', StringSplitOptions.RemoveEmptyEntries);
        if (!am.Applied || commits.Length != series.Patches.Count)
        {
            checkout.ResetTo(baseInfo.Commit, baseInfo.OverlayFolders);
            throw am.Applied
                ? new ToolException(ExitCodes.Conflict, $"git am made {commits.Length} commit(s) for {series.Patches.Count} patch(es) (an empty patch?); the checkout was reset to {baseInfo.Tag}.", "run `scripts/patch check` and look for a patch with no changes")
                : Conflict(baseInfo, am, $"The checkout was reset to {baseInfo.Tag}.");
        }

        for (int i = 0; i < commits.Length; i++)
        {
            record.Patches[i].Commit = commits[i];
            context.Info($"  applied {series.Patches[i].Name} as {commits[i][..12]}");
        }

        record.PatchedHead = checkout.Head();
        record.State = CheckoutProvenance.StateApplied;
        checkout.WriteProvenance(record);
        context.Info($"Done: {baseInfo.Tag} + series {series.Version} ({series.Hash}); HEAD is {record.PatchedHead[..12]}.");
        context.Info($"Provenance: {checkout.ProvenancePath}");
        return ExitCodes.Success;
    }

    private static int AlreadyPatched(ToolContext context, AdbcCheckout checkout, PatchRepository repository, CheckoutProvenance provenance, string head)
    {
        SeriesDefinition series = repository.LoadSeries(repository.LoadBase(provenance.BaseTag));
        string? why =
            provenance.State != CheckoutProvenance.StateApplied ? "an earlier `apply --3way` stopped on a conflict and was finished by hand"
            : provenance.PatchedHead != head ? $"HEAD moved since apply (it was {provenance.PatchedHead?[..12]}, it is {head[..12]})"
            : provenance.SeriesHash != series.Hash ? $"it was patched by series {provenance.SeriesVersion} ({provenance.SeriesHash}) and this repository now holds series {series.Version} ({series.Hash})"
            : null;
        if (why != null)
        {
            throw new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} is already patched ({provenance.BaseTag}), but not by this exact series: {why}.",
                $"to keep commits you made in the checkout, run `scripts/patch export` first; then `git -C \"{checkout.Root}\" reset --hard {provenance.BaseCommit[..12]}` ({provenance.BaseTag}) and `scripts/patch apply` again");
        }

        context.Info($"Already patched: {checkout.Root} is {provenance.BaseTag} + series {provenance.SeriesVersion} ({provenance.SeriesHash}); nothing to do.");
        int modified = checkout.UncommittedChanges(provenance.DriverDir).Count;
        if (modified > 0)
        {
            context.Warn($"{modified} file(s) changed since apply; `git status` lists them.");
        }

        return ExitCodes.Success;
    }

    /// <summary>--3way is the rebase workflow: a conflict is left in place for the user to resolve.</summary>
    private static int StoppedForResolution(ToolContext context, AdbcCheckout checkout, BaseInfo baseInfo, PatchOutcome am)
    {
        TextWriter err = context.Err;
        err.WriteLine($"error: patch {am.Patch?.Name ?? "(unknown)"} conflicts even with a 3-way merge, in: {(am.FailedFiles.Count == 0 ? "(see git's message)" : string.Join(", ", am.FailedFiles))}");
        err.WriteLine("  git says:\n    " + Git.FirstLines(am.GitMessage, 20));
        err.WriteLine("hint: the checkout is left mid-`git am` for you to resolve:");
        err.WriteLine($"  1. edit the conflicted files, `git -C \"{checkout.Root}\" add <files>`, `git -C \"{checkout.Root}\" am --continue` (repeat per stopped patch);");
        err.WriteLine("  2. `scripts/patch export` writes the resolved commits back to the patch files;");
        err.WriteLine($"  3. `git reset --hard {baseInfo.Tag}` then `scripts/patch apply` proves the new series applies cleanly.");
        err.WriteLine($"  To give up instead: `git -C \"{checkout.Root}\" am --abort && git -C \"{checkout.Root}\" reset --hard {baseInfo.Tag}`.");
        return ExitCodes.Conflict;
    }

    public static ToolException Conflict(BaseInfo baseInfo, PatchOutcome failure, string treeNote) => new(
        ExitCodes.Conflict,
        $"{(failure.Patch == null ? "a patch" : $"patch {failure.Patch.Name} (\"{failure.Patch.Subject}\")")} does not apply to {baseInfo.Tag}" +
            (failure.FailedFiles.Count == 0 ? "" : $" in {string.Join(", ", failure.FailedFiles)}") + $". {treeNote}\n  git says:\n    {Git.FirstLines(failure.GitMessage, 12)}",
        $"rebase the patch: `scripts/patch apply --3way` on a clean {baseInfo.Tag} checkout, resolve, `git am --continue`, then `scripts/patch export` (scripts/README.md, \"Adding a base tag\")");
}
