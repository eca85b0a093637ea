using System.Text.Json.Serialization;

namespace PatchTool;

/// <summary>
/// patches/&lt;base&gt;/prs.json: how a base's series splits into pull requests against upstream (patches/README.md,
/// "prs.json"). Every patch, overlay file and test file of the series is in exactly one PR or in notForwarded, and
/// <see cref="Problems"/> says otherwise, so the map cannot go stale while the series changes.
/// </summary>
[JsonUnmappedMemberHandling(JsonUnmappedMemberHandling.Disallow)]
internal sealed class PrMap
{
    public const string FileName = "prs.json";

    /// <summary>What the PRs are opened against, for humans and the PR files (e.g. "adbc-drivers/databricks main").</summary>
    public string Target { get; set; } = "";

    public List<PrDefinition> Prs { get; set; } = [];

    /// <summary>Patch file names and overlay or test file paths that stay in the fork (the version stamp), each named once.</summary>
    public List<string>? NotForwarded { get; set; } = [];

    [JsonIgnore]
    public string Path { get; private set; } = "";

    /// <summary>The base's prs.json, or null when it has none.</summary>
    public static PrMap? Load(BaseInfo baseInfo)
    {
        string file = System.IO.Path.Combine(baseInfo.Folder, FileName);
        if (!File.Exists(file))
        {
            return null;
        }

        try
        {
            PrMap map = Json.Read<PrMap>(file);
            map.Path = file;
            return map;
        }
        catch (JsonException ex)
        {
            throw new ToolException(ExitCodes.InvalidSeries, $"{file} is not a valid PR map: {ex.Message}", "patches/README.md (\"prs.json\") describes its fields");
        }
    }

    /// <summary>Everything wrong with the map for <paramref name="series"/>; empty when prs can make every branch.</summary>
    public IReadOnlyList<string> Problems(SeriesDefinition series)
    {
        var problems = new List<string>();
        string where = $"{BaseInfo.FolderName(series.Base.Tag)}/{FileName}";
        if (string.IsNullOrWhiteSpace(Target))
        {
            problems.Add($"{where}: \"target\" is empty; name what the PRs are opened against, e.g. \"adbc-drivers/databricks main\"");
        }

        // What the series holds, by kind: the name a PR lists it by.
        var items = new List<(string Kind, string Name)>();
        items.AddRange(series.Patches.Select(p => ("patch", p.Name)));
        items.AddRange(series.Overlay.Select(f => ("overlay file", f.RelativePath)));
        items.AddRange(series.Tests.Select(f => ("test file", f.RelativePath)));
        var carriedBy = new Dictionary<(string Kind, string Name), List<string>>();
        foreach (PrDefinition pr in Prs)
        {
            string label = $"{where}: PR '{pr.Id}'";
            if (!Regex.IsMatch(pr.Id ?? "", "^[a-z0-9][a-z0-9._-]*$"))
            {
                problems.Add($"{where}: a PR's \"id\" is '{pr.Id}'; use lower-case letters, digits, '.', '_' and '-' (it names the PR's file, <id>.md)");
            }

            if (Prs.Count(p => p.Id == pr.Id) > 1 && Prs.First(p => p.Id == pr.Id) == pr)
            {
                problems.Add($"{label} is defined {Prs.Count(p => p.Id == pr.Id)} times");
            }

            if (!IsBranchName(pr.Branch ?? ""))
            {
                problems.Add($"{label}: \"branch\" '{pr.Branch}' is not a branch name git accepts (letters, digits, '.', '_', '-', '/' between parts)");
            }
            else if (Prs.Count(p => p.Branch == pr.Branch) > 1 && Prs.First(p => p.Branch == pr.Branch) == pr)
            {
                problems.Add($"{label}: branch '{pr.Branch}' is used by PRs {string.Join(", ", Prs.Where(p => p.Branch == pr.Branch).Select(p => p.Id))}");
            }

            if (!IsConventionalCommit(pr.Title ?? ""))
            {
                problems.Add($"{label}: \"title\" '{pr.Title}' is not a Conventional Commits subject such as 'fix(csharp): drain in-flight downloads' (upstream's CODING_GUIDELINES.md section 8)");
            }

            if (string.IsNullOrWhiteSpace(pr.Description) || pr.Description.StartsWith('/') || pr.Description.Contains("..") || pr.Description.Contains('\\'))
            {
                problems.Add($"{label}: \"description\" must name a file relative to {BaseInfo.FolderName(series.Base.Tag)}/ (e.g. prs/{pr.Id}.md)");
            }
            else if (!File.Exists(DescriptionPath(series.Base, pr)))
            {
                problems.Add($"{label}: the description {DescriptionPath(series.Base, pr)} does not exist");
            }

            if (pr.AllItems.Count == 0)
            {
                problems.Add($"{label} carries nothing (no patches, overlay or tests)");
            }

            foreach ((string kind, string name) in pr.AllItems)
            {
                if (!items.Contains((kind, name)))
                {
                    problems.Add($"{label} lists the {kind} '{name}', which is not in {series.Base.Tag}'s series");
                }
                else
                {
                    Carriers(carriedBy, (kind, name)).Add($"PR '{pr.Id}'");
                }
            }

            foreach (string dependency in pr.DependsOn ?? [])
            {
                if (Prs.All(p => p.Id != dependency))
                {
                    problems.Add($"{label} depends on '{dependency}', which is no PR's id");
                }
            }

            foreach (string overlap in (pr.Overlaps ?? []).Where(o => !Regex.IsMatch(o, @"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)?#[0-9]+$")))
            {
                problems.Add($"{label}: \"overlaps\" entry '{overlap}' is not a PR reference such as #610 or apache/arrow-adbc#3654");
            }
        }

        foreach (string name in NotForwarded ?? [])
        {
            List<(string Kind, string Name)> matches = items.Where(i => i.Name == name).ToList();
            if (matches.Count == 0)
            {
                problems.Add($"{where}: \"notForwarded\" names '{name}', which is no patch, overlay file or test file of {series.Base.Tag}'s series");
            }

            matches.ForEach(item => Carriers(carriedBy, item).Add("notForwarded"));
        }

        foreach ((string kind, string name) in items)
        {
            List<string> carriers = carriedBy.TryGetValue((kind, name), out List<string>? found) ? found : [];
            if (carriers.Count == 0)
            {
                problems.Add($"{where}: the {kind} '{name}' is in no PR and not in \"notForwarded\"; put it in the PR that carries it");
            }
            else if (carriers.Count > 1)
            {
                problems.Add($"{where}: the {kind} '{name}' is in {string.Join(" and ", carriers)}; it belongs in exactly one");
            }
        }

        if (problems.Count == 0 && FindCycle() is IReadOnlyList<string> cycle)
        {
            problems.Add($"{where}: the dependencies form a cycle: {string.Join(" -> ", cycle)}");
        }

        return problems;
    }

    /// <summary>Throws (exit 4) listing <see cref="Problems"/>, if any.</summary>
    public void EnsureValid(SeriesDefinition series)
    {
        IReadOnlyList<string> problems = Problems(series);
        if (problems.Count > 0)
        {
            throw new ToolException(
                ExitCodes.InvalidSeries,
                $"the PR map {Path} does not fit the series of {series.Base.Tag}:\n  - " + string.Join("\n  - ", problems),
                "fix prs.json (patches/README.md, \"prs.json\"): every patch, overlay file and test file in exactly one PR or in notForwarded");
        }
    }

    /// <summary>The PRs with each after the PRs it depends on; otherwise in the file's order. Needs a valid map.</summary>
    public IReadOnlyList<PrDefinition> InDependencyOrder()
    {
        var ordered = new List<PrDefinition>();
        while (ordered.Count < Prs.Count)
        {
            ordered.Add(Prs.First(p => !ordered.Contains(p) && (p.DependsOn ?? []).All(d => ordered.Any(o => o.Id == d))));
        }

        return ordered;
    }

    /// <summary>
    /// The PRs a branch is built from, in dependency order: every PR <paramref name="pr"/> depends on, directly or not,
    /// then itself. Each becomes one commit of the branch.
    /// </summary>
    public IReadOnlyList<PrDefinition> Chain(PrDefinition pr)
    {
        var needed = new HashSet<string>(StringComparer.Ordinal);
        var pending = new Stack<string>([pr.Id]);
        while (pending.TryPop(out string? id))
        {
            if (needed.Add(id))
            {
                (Prs.First(p => p.Id == id).DependsOn ?? []).ForEach(pending.Push);
            }
        }

        return InDependencyOrder().Where(p => needed.Contains(p.Id)).ToList();
    }

    public static string DescriptionPath(BaseInfo baseInfo, PrDefinition pr) => System.IO.Path.GetFullPath(System.IO.Path.Combine(baseInfo.Folder, pr.Description));

    /// <summary>What `git check-ref-format --branch` accepts, for the names a map would plausibly use.</summary>
    private static bool IsBranchName(string name) =>
        Regex.IsMatch(name, @"^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$") && !name.Contains("..") && !name.EndsWith(".lock", StringComparison.Ordinal) && !name.EndsWith('.');

    /// <summary>type(scope)!: description, the form upstream's PR titles take (feat, fix, docs, refactor, test, chore, ...).</summary>
    private static bool IsConventionalCommit(string title) =>
        Regex.IsMatch(title, @"^(feat|fix|docs|style|refactor|perf|test|build|ci|chore|revert)!?(\([a-z0-9_.-]+\))?!?: \S.*$");

    private static List<string> Carriers(Dictionary<(string, string), List<string>> carriedBy, (string, string) item) =>
        carriedBy.TryGetValue(item, out List<string>? list) ? list : carriedBy[item] = [];

    /// <summary>One dependency cycle as ids (the first repeated at the end), or null.</summary>
    private IReadOnlyList<string>? FindCycle()
    {
        var done = new HashSet<string>(StringComparer.Ordinal);
        foreach (PrDefinition start in Prs)
        {
            var path = new List<string>();
            if (Visit(start.Id, path, done) is IReadOnlyList<string> cycle)
            {
                return cycle;
            }
        }

        return null;
    }

    private IReadOnlyList<string>? Visit(string id, List<string> path, HashSet<string> done)
    {
        int at = path.IndexOf(id);
        if (at >= 0)
        {
            return [.. path.Skip(at), id];
        }

        if (done.Contains(id))
        {
            return null;
        }

        path.Add(id);
        foreach (string dependency in Prs.First(p => p.Id == id).DependsOn ?? [])
        {
            if (Visit(dependency, path, done) is IReadOnlyList<string> cycle)
            {
                return cycle;
            }
        }

        path.RemoveAt(path.Count - 1);
        done.Add(id);
        return null;
    }
}

/// <summary>One PR of a <see cref="PrMap"/>: a branch with one commit on top of its dependencies' branches.</summary>
[JsonUnmappedMemberHandling(JsonUnmappedMemberHandling.Disallow)]
internal sealed class PrDefinition
{
    public string Id { get; set; } = "";
    public string Branch { get; set; } = "";

    /// <summary>The commit subject and PR title, a Conventional Commits subject.</summary>
    public string Title { get; set; } = "";

    /// <summary>Patch file names as the series lists them; applied in series order.</summary>
    public List<string>? Patches { get; set; } = [];

    /// <summary>Overlay files, as paths below driver-overlay/.</summary>
    public List<string>? Overlay { get; set; } = [];

    /// <summary>Test files, as paths below the base's testOverlay.</summary>
    public List<string>? Tests { get; set; } = [];

    public List<string>? DependsOn { get; set; } = [];

    /// <summary>Open upstream PRs that touch the same code (#575, #610), for the PR's description.</summary>
    public List<string>? Overlaps { get; set; } = [];

    /// <summary>The PR description's file, relative to the base's folder; it becomes the commit body.</summary>
    public string Description { get; set; } = "";

    [JsonIgnore]
    public IReadOnlyList<(string Kind, string Name)> AllItems =>
    [
        .. (Patches ?? []).Select(p => ("patch", p)),
        .. (Overlay ?? []).Select(f => ("overlay file", f)),
        .. (Tests ?? []).Select(f => ("test file", f)),
    ];
}
