using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.RegularExpressions;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// Reads a failed restore's output for the two ways a partial NuGet source breaks upstream's build, and says
    /// what to do about each with options build and pack accept: a package not served at all (NU1101/NU1102/NU1103;
    /// e.g. System.IO.Pipes.AccessControl, which ApacheThrift 0.25.0 needs for netstandard2.0 and net472), and a
    /// pinned version not served, a newer one substituted (NU1603, fatal under upstream's TreatWarningsAsErrors;
    /// e.g. ApacheThrift 0.25.0 for the pinned 0.22.0).
    /// </summary>
    internal static class RestoreDiagnosis
    {
        private static readonly Regex Missing = new Regex(@"error NU110[123]: Unable to find (?:a stable )?package (?<id>[A-Za-z0-9_.-]+?)\.?(?:\s|$)", RegexOptions.Multiline);

        private static readonly Regex Substituted = new Regex(
            @"NU1603: (?:Warning As Error: )?(?<by>\S+(?: \d\S*)?) depends on (?<id>\S+) \(>= (?<pinned>[^)]+)\) but \S+ \S+ was not found\. \S+ (?<resolved>\S+) was resolved instead\.");

        /// <summary>Package ids that no source serves, in order of first mention.</summary>
        public static IReadOnlyList<string> MissingPackages(string output) =>
            Missing.Matches(output).Select(m => m.Groups["id"].Value).Distinct(StringComparer.OrdinalIgnoreCase).ToList();

        /// <summary>"ApacheThrift 0.25.0 for the pinned 0.22.0", one per substituted package.</summary>
        public static IReadOnlyList<string> Substitutions(string output) =>
            Substituted.Matches(output)
                .GroupBy(m => m.Groups["id"].Value, StringComparer.OrdinalIgnoreCase)
                .Select(g => $"{g.Key} {g.First().Groups["resolved"].Value} for the pinned {g.First().Groups["pinned"].Value}")
                .ToList();

        /// <summary>
        /// The NU1603 substitutions a restore recorded in a project.assets.json (NuGet keeps restore warnings there,
        /// so an up-to-date restore that prints nothing still has them), one per package.
        /// </summary>
        public static IReadOnlyList<Substitution> SubstitutionsIn(string assetsFile)
        {
            if (!File.Exists(assetsFile))
            {
                return Array.Empty<Substitution>();
            }

            using JsonDocument assets = JsonDocument.Parse(File.ReadAllText(assetsFile));
            var found = new List<Substitution>();
            if (assets.RootElement.TryGetProperty("logs", out JsonElement logs))
            {
                foreach (JsonElement log in logs.EnumerateArray())
                {
                    string code = log.TryGetProperty("code", out JsonElement c) ? c.GetString() ?? "" : "";
                    string message = log.TryGetProperty("message", out JsonElement m) ? m.GetString() ?? "" : "";
                    Match match = Substituted.Match("NU1603: " + message);
                    if (code == "NU1603" && match.Success)
                    {
                        found.Add(new Substitution { Package = match.Groups["id"].Value, Pinned = match.Groups["pinned"].Value, Resolved = match.Groups["resolved"].Value, By = match.Groups["by"].Value });
                    }
                }
            }

            return found;
        }

        /// <summary>What to do, naming the packages; null when the output shows neither problem.</summary>
        public static string? Hint(string output)
        {
            IReadOnlyList<string> missing = MissingPackages(output);
            IReadOnlyList<string> substituted = Substitutions(output);
            var parts = new List<string>();
            if (missing.Count > 0)
            {
                parts.Add(
                    $"your NuGet sources do not serve {string.Join(", ", missing)}. Add a source that does " +
                    "(`-p RestoreAdditionalProjectSources=URL_OR_FOLDER`, or a NuGet.config with `-p RestoreConfigFile=FILE`), " +
                    "or build only targets that do not need it, e.g. `-p TargetFrameworks=net8.0` (a package then lacks the other targets)");
            }

            if (substituted.Count > 0)
            {
                parts.Add(
                    $"your NuGet sources lack pinned versions and NuGet resolved {string.Join("; ", substituted)} (NU1603, an error under " +
                    "upstream's TreatWarningsAsErrors). Add a source with the pinned versions, or accept the substitutes with " +
                    "`-p WarningsNotAsErrors=NU1603` (the build then uses the versions named here)");
            }

            return parts.Count == 0 ? null : string.Join("; ", parts);
        }
    }

    /// <summary>A pinned dependency the NuGet source lacked and the newer version NuGet resolved instead (NU1603).</summary>
    internal sealed class Substitution
    {
        [JsonPropertyName("package")]
        public string Package { get; set; } = "";

        [JsonPropertyName("pinned")]
        public string Pinned { get; set; } = "";

        [JsonPropertyName("resolved")]
        public string Resolved { get; set; } = "";

        /// <summary>The project or package that depends on it.</summary>
        [JsonPropertyName("by")]
        public string By { get; set; } = "";
    }
}
