namespace PatchTool;

/// <summary>
/// One MSBuild property that --fit-nuget-source added so the driver restores from this machine's NuGet source, and why.
/// <see cref="Argument"/> is what reports show: <paramref name="ShownValue"/> keeps paths of this machine out of them.
/// </summary>
internal sealed record Override(string Name, string Value, string Reason, string? ShownValue = null)
{
    public string Property => $"{Name}={Value}";

    public string Argument => $"-p:{Name}={ShownValue ?? Value}";
}

/// <summary>
/// Reads a restore's output for the two ways a partial NuGet source breaks upstream's build: a package not served at
/// all (NU1101/NU1102/NU1103; e.g. System.IO.Pipes.AccessControl, which ApacheThrift 0.25.0 needs for netstandard2.0
/// and net472), and a pinned version not served with a newer one substituted (NU1603, fatal under upstream's
/// TreatWarningsAsErrors; e.g. ApacheThrift 0.25.0 for the pinned 0.22.0).
/// </summary>
internal static class RestoreDiagnosis
{
    private static readonly Regex Missing = new(@"error NU110[123]: Unable to find (?:a stable )?package (?<id>[A-Za-z0-9_.-]+?)\.?(?:\s|$)", RegexOptions.Multiline);

    private static readonly Regex Substituted = new(
        @"NU1603: (?:Warning As Error: )?(?<by>\S+(?: \d\S*)?) depends on (?<id>\S+) \(>= (?<pinned>[^)]+)\) but \S+ \S+ was not found\. \S+ (?<resolved>\S+) was resolved instead\.");

    /// <summary>Package ids no source serves, in order of first mention.</summary>
    public static IReadOnlyList<string> MissingPackages(string output) =>
        Missing.Matches(output).Select(m => m.Groups["id"].Value).Distinct(StringComparer.OrdinalIgnoreCase).ToList();

    public static bool HasSubstitutionErrors(string output) => output.Contains("error NU1603", StringComparison.Ordinal);

    /// <summary>The substitutions in NuGet output, one per package.</summary>
    public static IReadOnlyList<Substitution> Substitutions(string output) => Substituted.Matches(output)
        .Select(m => new Substitution(m.Groups["id"].Value, m.Groups["pinned"].Value, m.Groups["resolved"].Value, m.Groups["by"].Value))
        .DistinctBy(s => s.Package, StringComparer.OrdinalIgnoreCase)
        .ToList();

    /// <summary>
    /// The substitutions a restore recorded in a project.assets.json: NuGet keeps restore warnings there, so an
    /// up-to-date restore that prints nothing still has them.
    /// </summary>
    public static IReadOnlyList<Substitution> SubstitutionsIn(string assetsFile)
    {
        IEnumerable<string> messages = Logs(assetsFile).Where(l => l.TryGetProperty("code", out JsonElement c) && c.GetString() == "NU1603").Select(l => "NU1603: " + l.GetProperty("message").GetString());
        return Substitutions(string.Join("\n", messages));
    }

    /// <summary>
    /// The packages a failed restore could not find, each with the targets whose graphs need it, from the logs NuGet keeps
    /// in the project.assets.json (NU1101/NU1102/NU1103 with their targetGraphs). Empty when the file is not there.
    /// </summary>
    public static IReadOnlyDictionary<string, IReadOnlyList<string>> MissingIn(string assetsFile)
    {
        var missing = new Dictionary<string, IReadOnlyList<string>>(StringComparer.OrdinalIgnoreCase);
        foreach (JsonElement log in Logs(assetsFile).Where(l => l.TryGetProperty("code", out JsonElement c) && c.GetString() is "NU1101" or "NU1102" or "NU1103" && l.TryGetProperty("libraryId", out _)))
        {
            string id = log.GetProperty("libraryId").GetString()!;
            IEnumerable<string> graphs = log.TryGetProperty("targetGraphs", out JsonElement g) ? g.EnumerateArray().Select(e => e.GetString()!.Split('/')[0]) : [];
            missing[id] = (missing.TryGetValue(id, out IReadOnlyList<string>? known) ? known : []).Union(graphs).ToList();
        }

        return missing;
    }

    /// <summary>The packages ("ApacheThrift 0.25.0") that depend on <paramref name="id"/> in a restore's graphs.</summary>
    public static IReadOnlyList<string> Dependents(string assetsFile, string id)
    {
        if (!File.Exists(assetsFile))
        {
            return [];
        }

        using JsonDocument assets = JsonDocument.Parse(File.ReadAllText(assetsFile));
        return assets.RootElement.GetProperty("targets").EnumerateObject().SelectMany(t => t.Value.EnumerateObject())
            .Where(l => l.Value.TryGetProperty("dependencies", out JsonElement d) && d.EnumerateObject().Any(p => p.Name.Equals(id, StringComparison.OrdinalIgnoreCase)))
            .Select(l => l.Name.Replace('/', ' ')).Distinct().ToList();
    }

    private static List<JsonElement> Logs(string assetsFile)
    {
        if (!File.Exists(assetsFile))
        {
            return [];
        }

        using JsonDocument assets = JsonDocument.Parse(File.ReadAllText(assetsFile));
        return assets.RootElement.TryGetProperty("logs", out JsonElement logs) ? logs.EnumerateArray().Select(l => l.Clone()).ToList() : [];
    }

    /// <summary>
    /// "built against ApacheThrift 0.25.0; the tag pins 0.22.0", or for a stand-in "built against an empty stand-in for
    /// System.IO.Pipes.AccessControl 5.0.0 (ApacheThrift 0.25.0 asks for it): REASON" (scripts/report/verify_notes.py words them alike).
    /// </summary>
    public static string Describe(Substitution s) => s.StandIn != null
        ? $"built against an empty stand-in for {s.Package} {s.Resolved} ({(s.By.Length > 0 ? s.By : "a dependency")} asks for it; the NuGet source does not serve it): {s.StandIn}"
        : $"built against {s.Package} {s.Resolved}; " + (s.By.Contains(' ') ? $"{s.By} asks for {s.Pinned}" : $"the tag pins {s.Pinned}");

    /// <summary>What to do about a failed restore, naming the packages and only options publish and pack accept; null when the output shows neither problem.</summary>
    public static string? Hint(string output, string framework)
    {
        IReadOnlyList<string> missing = MissingPackages(output);
        var parts = new List<string>();
        if (missing.Count > 0)
        {
            parts.Add($"your NuGet sources do not serve {string.Join(", ", missing)}. Add a source that does (`-p RestoreAdditionalProjectSources=URL_OR_FOLDER`, " +
                $"or a NuGet.config with `-p RestoreConfigFile=FILE`), or build only a target that does not need it, e.g. `-p TargetFrameworks={framework}`");
        }

        if (HasSubstitutionErrors(output))
        {
            parts.Add($"your NuGet sources lack pinned versions and NuGet resolved {string.Join("; ", Substitutions(output).Select(s => $"{s.Package} {s.Resolved} for the pinned {s.Pinned}"))} " +
                "(NU1603, an error under upstream's TreatWarningsAsErrors). Add a source with the pinned versions, or accept the substitutes with `-p WarningsNotAsErrors=NU1603`");
        }

        return parts.Count == 0 ? null : string.Join("; ", parts) + ". `--fit-nuget-source` adds the smallest of these overrides for you and records it.";
    }
}
