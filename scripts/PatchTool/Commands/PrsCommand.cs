namespace PatchTool;

/// <summary>
/// prs: the series of the checkout's base as PR-sized branches against upstream (patches/&lt;base&gt;/prs.json), one
/// commit each on top of the PRs it depends on, with a description file per PR; --verify builds and tests each branch.
/// The branches are made with git plumbing on a scratch index (hash-object, apply --cached, write-tree, commit-tree),
/// so the work tree, the index and HEAD stay as they were; only --verify checks each branch out, and puts HEAD back.
/// </summary>
internal static class PrsCommand
{
    /// <summary>The unit tests of upstream's test project in the new home (its CI's filter).</summary>
    public const string DefaultFilter = "FullyQualifiedName~AdbcDrivers.Databricks.Tests.Unit";

    /// <summary>One PR's branch as made: its commit, and the commit it stands on.</summary>
    private sealed record Made(PrDefinition Pr, string Commit, string Parent);

    public static int Run(ToolContext context, string output, bool verify, string filter, BuildOptions options)
    {
        PatchRepository repository = context.OpenPatches();
        AdbcCheckout checkout = context.OpenCheckout();
        checkout.RequireNoAmSession();
        IReadOnlyList<BaseInfo> bases = repository.LoadBases();
        string head = checkout.Head();
        BaseInfo baseInfo = bases.FirstOrDefault(b => b.Commit == head) ?? throw NotAtBase(checkout, bases, head);
        SeriesDefinition series = repository.LoadSeries(baseInfo);
        series.EnsureValid();
        PrMap map = PrMap.Load(baseInfo) ?? throw new ToolException(
            ExitCodes.InvalidSeries,
            $"{baseInfo.Tag} has no PR map ({Path.Combine(baseInfo.Folder, PrMap.FileName)} does not exist).",
            "write one (patches/README.md, \"prs.json\"): which patches, overlay files and tests go into which PR");
        map.EnsureValid(series);
        SeriesApplier.RequireReadyForSeries(checkout, baseInfo, "prs needs a clean tree: --verify checks each branch out");

        IReadOnlyList<PrDefinition> ordered = map.InDependencyOrder();
        RequireBranchesFree(checkout, ordered);
        string outputFolder = context.FullPath(output);
        // Before any branch is written: a base whose test project cannot be found fails here, not after.
        BranchVerifier? verifier = verify ? new BranchVerifier(context, checkout, baseInfo, options, filter, outputFolder) : null;
        UpstreamStatusWarnings(context, series, ordered);
        context.Info($"Making {ordered.Count} PR branch(es) of {baseInfo.Tag} + series {series.Version} against {map.Target} ({baseInfo.Commit[..12]}), in dependency order:");
        List<Made> made = MakeCommits(checkout, series, map, ordered);
        foreach (Made branch in made)
        {
            // Deleted and made again: a rerun gives the same branches whatever an earlier run or a user left on them.
            if (checkout.Git.Run("rev-parse", "--verify", "--quiet", "refs/heads/" + branch.Pr.Branch).Succeeded)
            {
                checkout.Git.Checked("branch", "-D", "--quiet", branch.Pr.Branch);
            }

            checkout.Git.Checked("branch", "--no-track", branch.Pr.Branch, branch.Commit);
            string on = branch.Parent == baseInfo.Commit ? "the base" : $"{string.Join(" + ", map.Chain(branch.Pr).SkipLast(1).Select(p => p.Id))}";
            context.Info($"  {branch.Pr.Id,-24} {branch.Pr.Branch} = {branch.Commit[..12]} on {on}: {Carries(branch.Pr)}");
        }

        Directory.CreateDirectory(outputFolder);
        Dictionary<string, BranchCheck> checks = verifier == null ? [] : Verify(context, checkout, baseInfo, series, map, made, verifier, filter);
        foreach (Made branch in made)
        {
            string file = Path.Combine(outputFolder, branch.Pr.Id + ".md");
            File.WriteAllText(file, Describe(baseInfo, map, branch, checks.GetValueOrDefault(branch.Pr.Id), filter), new UTF8Encoding(false));
        }

        context.Info($"PR descriptions: {string.Join(", ", made.Select(m => m.Pr.Id + ".md"))} in {outputFolder}");
        List<string> failed = checks.Where(c => !c.Value.Passed).Select(c => c.Key).ToList();
        if (failed.Count > 0)
        {
            throw new ToolException(
                ExitCodes.BuildFailed,
                $"{failed.Count} of {made.Count} branch(es) failed to build or test: {string.Join(", ", failed)}.",
                "each PR's file says why (and its .trx file which tests failed); a PR that needs another's changes lists it in dependsOn");
        }

        return ExitCodes.Success;
    }

    /// <summary>
    /// One commit per PR of every branch: a PR's branch is the commits of the PRs it depends on (directly or not, in
    /// dependency order), then its own. A commit is made once per distinct chain and is deterministic (tool identity, the
    /// base commit's date), so a PR's commit is the same object in its own branch and in its dependents'.
    /// </summary>
    private static List<Made> MakeCommits(AdbcCheckout checkout, SeriesDefinition series, PrMap map, IReadOnlyList<PrDefinition> ordered)
    {
        string date = checkout.Git.Checked("show", "-s", "--format=%cI", series.Base.Commit);
        var commits = new Dictionary<string, string>(StringComparer.Ordinal);
        var made = new List<Made>();
        using var scratch = new ScratchFolder();
        var environment = new Dictionary<string, string?>(ToolIdentity.AuthorAndCommitter(date)) { ["GIT_INDEX_FILE"] = scratch.Combine("index") };
        foreach (PrDefinition pr in ordered)
        {
            IReadOnlyList<PrDefinition> chain = map.Chain(pr);
            string parent = series.Base.Commit;
            for (int i = 0; i < chain.Count; i++)
            {
                string key = string.Join("\n", chain.Take(i + 1).Select(p => p.Id));
                if (!commits.TryGetValue(key, out string? commit))
                {
                    checkout.Git.Checked(["read-tree", parent], environment);
                    ApplyContent(checkout, series, chain[i], environment, scratch, parent == series.Base.Commit ? "the base" : string.Join(" + ", chain.Take(i).Select(p => p.Id)));
                    string tree = checkout.Git.Checked(["write-tree"], environment);
                    File.WriteAllText(scratch.Combine("message"), Message(series.Base, chain[i]), new UTF8Encoding(false));
                    commit = checkout.Git.Checked(["commit-tree", tree, "-p", parent, "-F", scratch.Combine("message")], environment);
                    commits[key] = commit;
                }

                if (i < chain.Count - 1)
                {
                    parent = commit;
                }
                else
                {
                    made.Add(new Made(pr, commit, parent));
                }
            }
        }

        return made;
    }

    /// <summary>
    /// A PR's content on the scratch index: its overlay files (as apply writes them), its tests, then its patches in
    /// series order with `git apply --3way` (the patches carry full blob ids, so a context another PR changed merges).
    /// </summary>
    private static void ApplyContent(AdbcCheckout checkout, SeriesDefinition series, PrDefinition pr, Dictionary<string, string?> environment, ScratchFolder scratch, string on)
    {
        IEnumerable<(string, byte[])> overlay = series.Overlay.Where(f => (pr.Overlay ?? []).Contains(f.RelativePath))
            .Select(f => (series.Base.OverlayDir + "/" + f.RelativePath, f.BytesFor(series.Base.Namespace, series.Header)));
        IEnumerable<(string, byte[])> tests = series.Tests.Where(f => (pr.Tests ?? []).Contains(f.RelativePath))
            .Select(f => (series.Base.TestOverlayDir + "/" + f.RelativePath, f.BytesFor(null, series.Header)));
        SeriesApplier.Stage(checkout, environment, overlay.Concat(tests));
        foreach (PatchFile patch in series.Patches.Where(p => (pr.Patches ?? []).Contains(p.Name)))
        {
            File.WriteAllBytes(scratch.Combine("patch"), patch.Bytes);
            ProcessResult result = checkout.Git.Run(["apply", "--cached", "--3way", scratch.Combine("patch")], environment);
            if (!result.Succeeded)
            {
                throw new ToolException(
                    ExitCodes.Conflict,
                    $"PR '{pr.Id}': patch {patch.Name} does not apply on {on} (with its own overlay, tests and earlier patches). Nothing was changed in the checkout.\n  git says:\n    {Git.FirstLines(result.Output, 12)}",
                    "the patch needs changes another PR carries: add that PR to dependsOn, or move the patch to it, in prs.json (patches/README.md, \"prs.json\")");
            }
        }
    }

    /// <summary>The PR's commit message: the title as subject, the description file's text as body (LF, one trailing newline).</summary>
    private static string Message(BaseInfo baseInfo, PrDefinition pr) =>
        pr.Title.Trim() + "\n\n" + File.ReadAllText(PrMap.DescriptionPath(baseInfo, pr)).Replace("\r\n", "\n").Trim() + "\n";

    /// <summary>
    /// Checks each branch out (detached), verifies it, and puts HEAD back where it was (the branch it was on, or the base
    /// commit detached) whatever happens.
    /// </summary>
    private static Dictionary<string, BranchCheck> Verify(
        ToolContext context, AdbcCheckout checkout, BaseInfo baseInfo, SeriesDefinition series, PrMap map, List<Made> made, BranchVerifier verifier, string filter)
    {
        ProcessResult symbolic = checkout.Git.Run("symbolic-ref", "--quiet", "--short", "HEAD");
        string[] back = symbolic.Succeeded ? ["checkout", "--quiet", symbolic.Stdout.Trim()] : ["checkout", "--quiet", "--detach", baseInfo.Commit];
        var checks = new Dictionary<string, BranchCheck>(StringComparer.Ordinal);
        try
        {
            foreach (Made branch in made)
            {
                checkout.Git.Checked("checkout", "--quiet", "--detach", branch.Pr.Branch);
                List<string> namespaces = map.Chain(branch.Pr).SelectMany(p => p.Tests ?? [])
                    .SelectMany(name => BranchVerifier.DeclaredNamespaces(series.Tests.First(t => t.RelativePath == name).BytesFor(null, null)))
                    .Distinct().Order(StringComparer.Ordinal).ToList();
                BranchCheck check = verifier.Verify(branch.Pr.Id, namespaces);
                checks[branch.Pr.Id] = check;
                context.Info($"  {branch.Pr.Id,-24} {(check.Passed ? "ok    " : "FAILED")} {check.Describe(filter)}");
            }
        }
        finally
        {
            checkout.Git.Checked(back);
        }

        return checks;
    }

    private static string Carries(PrDefinition pr) => string.Join(", ", new[]
    {
        (pr.Patches ?? []).Count == 0 ? null : $"{pr.Patches!.Count} patch(es)",
        (pr.Overlay ?? []).Count == 0 ? null : $"{pr.Overlay!.Count} overlay file(s)",
        (pr.Tests ?? []).Count == 0 ? null : $"{pr.Tests!.Count} test file(s)",
    }.Where(s => s != null));

    /// <summary>DIR/&lt;id&gt;.md: what a reviewer needs beside the description: where the branch is, what it needs first, what it overlaps.</summary>
    private static string Describe(BaseInfo baseInfo, PrMap map, Made branch, BranchCheck? check, string filter)
    {
        PrDefinition pr = branch.Pr;
        List<PrDefinition> dependencies = (pr.DependsOn ?? []).Select(d => map.Prs.First(p => p.Id == d)).ToList();
        var text = new StringBuilder();
        text.Append($"# {pr.Title.Trim()}\n\n");
        text.Append($"- Branch: `{pr.Branch}` ({branch.Commit})\n");
        text.Append($"- Base: {map.Target}, commit {baseInfo.Commit} ({baseInfo.Tag})\n");
        text.Append("- Depends on: " + (dependencies.Count == 0 ? "none" : string.Join(", ", dependencies.Select(d => $"{d.Id} (`{d.Branch}`, \"{d.Title.Trim()}\")")) + "; merge first (this branch carries their commits below its own)") + "\n");
        text.Append("- Overlaps: " + ((pr.Overlaps ?? []).Count == 0 ? "none" : string.Join(", ", pr.Overlaps!)) + "\n");
        text.Append("- Carries: " + string.Join("; ", new[]
        {
            (pr.Patches ?? []).Count == 0 ? null : "patches " + string.Join(", ", pr.Patches!),
            (pr.Overlay ?? []).Count == 0 ? null : "overlay " + string.Join(", ", pr.Overlay!),
            (pr.Tests ?? []).Count == 0 ? null : "tests " + string.Join(", ", pr.Tests!),
        }.Where(s => s != null)) + "\n");
        if (check != null)
        {
            text.Append($"- Checked (`scripts/patch prs --verify`, net8.0): {(check.Passed ? "" : "FAILED: ")}{check.Describe(filter)}\n");
        }

        text.Append("\n" + File.ReadAllText(PrMap.DescriptionPath(baseInfo, pr)).Replace("\r\n", "\n").Trim() + "\n");
        return text.ToString();
    }

    /// <summary>
    /// Each PR's patches should say in their Upstream-Status which PR carries them (patches/README.md); a warning, since
    /// the map, not the header, decides what goes where.
    /// </summary>
    private static void UpstreamStatusWarnings(ToolContext context, SeriesDefinition series, IReadOnlyList<PrDefinition> prs)
    {
        foreach (PrDefinition pr in prs)
        {
            foreach (PatchFile patch in series.Patches.Where(p => (pr.Patches ?? []).Contains(p.Name) && !(p.UpstreamStatus ?? "").Contains(pr.Branch, StringComparison.Ordinal)))
            {
                context.Warn($"{patch.Name}: its Upstream-Status does not name {pr.Branch}, the branch of the PR that carries it.");
            }
        }
    }

    /// <summary>A branch checked out in this or another worktree cannot be recreated without pulling that work tree along.</summary>
    private static void RequireBranchesFree(AdbcCheckout checkout, IReadOnlyList<PrDefinition> prs)
    {
        string[] lines = checkout.Git.Checked("worktree", "list", "--porcelain").Split('\n');
        var checkedOut = new Dictionary<string, string>(StringComparer.Ordinal);
        string worktree = "";
        foreach (string line in lines)
        {
            if (line.StartsWith("worktree ", StringComparison.Ordinal))
            {
                worktree = line[9..];
            }
            else if (line.StartsWith("branch refs/heads/", StringComparison.Ordinal))
            {
                checkedOut[line[18..]] = worktree;
            }
        }

        List<string> busy = prs.Where(p => checkedOut.ContainsKey(p.Branch)).Select(p => $"{p.Branch} (checked out in {checkedOut[p.Branch]})").ToList();
        if (busy.Count > 0)
        {
            throw new ToolException(
                ExitCodes.CheckoutState,
                $"prs recreates its branches, but these are checked out:\n{AdbcCheckout.FormatList(busy)}",
                "in each work tree named, check out another commit (`git checkout --detach`), then run prs again");
        }
    }

    private static ToolException NotAtBase(AdbcCheckout checkout, IReadOnlyList<BaseInfo> bases, string head)
    {
        ToolException notABase = checkout.NotABase(bases, head);
        return checkout.ReadProvenance(deleteStale: false) is CheckoutProvenance provenance
            ? new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} is patched ({provenance.BaseTag} + series {provenance.SeriesVersion}); prs builds its branches from the base commit itself.",
                $"`git -C \"{checkout.Root}\" checkout --detach {provenance.BaseCommit[..12]}` (the patched commits stay on your branch), then run prs again")
            : notABase;
    }
}
