namespace PatchTool;

/// <summary>
/// The outcome of `build`: one target of one driver (stock or patched) compiled with upstream's warnings-as-errors.
/// Warnings are counted once each (MSBuild repeats them in its summary), by code; a warning without a code (Source
/// Link's about this clone's remotes) by the file that raised it. scripts/verify's report shows them per target and driver.
/// </summary>
internal sealed record TargetBuild(string Driver, string Framework, bool Succeeded, IReadOnlyList<string> Errors, IReadOnlyDictionary<string, int> Warnings, IReadOnlyList<string> Overrides)
{
    private static readonly Regex Warning = new(@"^(?<origin>.*?)(?:\([\d,]+\))?\s*:\s+warning\s*(?<code>[A-Za-z]+\d+)?\s*:", RegexOptions.Multiline);

    public static TargetBuild From(string driver, string framework, ProcessResult build, IEnumerable<string> overrides)
    {
        List<string> lines = build.Output.Replace("\r\n", "\n").Split('\n').Select(l => l.Trim()).Where(l => l.Length > 0).Distinct().ToList();
        var warnings = new SortedDictionary<string, int>(StringComparer.Ordinal);
        foreach (Match match in lines.Select(l => Warning.Match(l)).Where(m => m.Success))
        {
            string key = match.Groups["code"].Success ? match.Groups["code"].Value : Path.GetFileNameWithoutExtension(match.Groups["origin"].Value.Trim());
            warnings[key] = warnings.GetValueOrDefault(key) + 1;
        }

        List<string> errors = lines.Where(l => l.Contains(": error ", StringComparison.Ordinal) || l.StartsWith("error ", StringComparison.Ordinal)).ToList();
        return new TargetBuild(driver, framework, build.Succeeded, errors, warnings, overrides.ToList());
    }

    /// <summary>"0 errors, 47 warnings (NU1603 40, Microsoft.Build.Tasks.Git 7)".</summary>
    public string Summary => $"{Errors.Count} error(s), {Warnings.Values.Sum()} warning(s)" +
        (Warnings.Count == 0 ? "" : $" ({string.Join(", ", Warnings.Select(w => $"{w.Key} {w.Value}"))})");
}
