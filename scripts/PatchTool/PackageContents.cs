using System.IO.Compression;
using System.Xml.Linq;

namespace PatchTool;

/// <summary>A dependency a package declares for one target (its short name, e.g. net472) and the lowest version it accepts.</summary>
internal sealed record DeclaredDependency(string Framework, string Id, string MinVersion);

/// <summary>
/// What a consumer's restore sees of a .nupkg: the target folders under lib/ and the dependencies its nuspec declares.
/// pack checks them against what the assemblies were built against (the project's restore), so a package never asks a
/// real feed for a version older than the one compiled against, and never names or carries a stand-in.
/// </summary>
internal sealed record PackageContents(IReadOnlyList<string> LibFolders, IReadOnlyList<DeclaredDependency> Dependencies, IReadOnlyList<string> Files)
{
    public static PackageContents Read(string nupkg)
    {
        using ZipArchive zip = ZipFile.OpenRead(nupkg);
        List<string> files = zip.Entries.Select(e => e.FullName).ToList();
        ZipArchiveEntry nuspec = zip.Entries.Single(e => !e.FullName.Contains('/') && e.FullName.EndsWith(".nuspec", StringComparison.OrdinalIgnoreCase));
        XDocument document;
        using (Stream stream = nuspec.Open())
        {
            document = XDocument.Load(stream);
        }

        var dependencies = new List<DeclaredDependency>();
        foreach (XElement group in document.Descendants().Where(e => e.Name.LocalName == "group" && e.Parent?.Name.LocalName == "dependencies"))
        {
            string framework = ShortName((string?)group.Attribute("targetFramework") ?? "any");
            dependencies.AddRange(group.Elements().Where(e => e.Name.LocalName == "dependency").Select(d =>
                new DeclaredDependency(framework, (string)d.Attribute("id")!, MinVersion((string?)d.Attribute("version") ?? ""))));
        }

        List<string> lib = files.Where(f => f.StartsWith("lib/", StringComparison.Ordinal) && f.Count(c => c == '/') >= 2)
            .Select(f => f.Split('/')[1]).Distinct().Order(StringComparer.Ordinal).ToList();
        return new PackageContents(lib, dependencies, files);
    }

    /// <summary>
    /// Every way this package departs from what it was built with: a declared version other than the one the project's
    /// restore (<paramref name="assetsFile"/>) resolved for that target, or a stand-in named or carried.
    /// </summary>
    public IReadOnlyList<string> Problems(string assetsFile)
    {
        var problems = new List<string>();
        Dictionary<string, Dictionary<string, string>> resolved = ResolvedPackages(assetsFile);
        foreach (DeclaredDependency dependency in Dependencies)
        {
            if (StandIn.Find(dependency.Id) is { } standIn)
            {
                problems.Add($"declares the stand-in {standIn.Id} for {dependency.Framework}");
            }
            else if (resolved.TryGetValue(dependency.Framework, out Dictionary<string, string>? packages) && packages.TryGetValue(dependency.Id, out string? version)
                && !version.Equals(dependency.MinVersion, StringComparison.OrdinalIgnoreCase))
            {
                problems.Add($"declares {dependency.Id} >= {dependency.MinVersion} for {dependency.Framework} but was built against {version}");
            }
        }

        problems.AddRange(Files.Where(f => StandIn.Known.Any(s => Path.GetFileName(f).Equals(s.Id + ".dll", StringComparison.OrdinalIgnoreCase))).Select(f => "carries " + f));
        return problems;
    }

    /// <summary>Package id to resolved version, per target (short name), from a project.assets.json; project references are left out.</summary>
    private static Dictionary<string, Dictionary<string, string>> ResolvedPackages(string assetsFile)
    {
        var result = new Dictionary<string, Dictionary<string, string>>(StringComparer.OrdinalIgnoreCase);
        if (!File.Exists(assetsFile))
        {
            return result;
        }

        using JsonDocument assets = JsonDocument.Parse(File.ReadAllText(assetsFile));
        foreach (JsonProperty target in assets.RootElement.GetProperty("targets").EnumerateObject())
        {
            // Recent SDKs key targets by alias ("net472"), older ones by full name (".NETFramework,Version=v4.7.2"); a RID graph has "/rid".
            string framework = ShortName(target.Name.Split('/')[0].Replace(",Version=v", "", StringComparison.Ordinal));
            Dictionary<string, string> packages = result.TryGetValue(framework, out var known) ? known : result[framework] = new(StringComparer.OrdinalIgnoreCase);
            foreach (JsonProperty library in target.Value.EnumerateObject().Where(l => l.Value.TryGetProperty("type", out JsonElement type) && type.GetString() == "package"))
            {
                string[] idAndVersion = library.Name.Split('/');
                packages[idAndVersion[0]] = idAndVersion[1];
            }
        }

        return result;
    }

    /// <summary>".NETFramework4.7.2" to net472, ".NETStandard2.0" to netstandard2.0, ".NETCoreApp3.1" to netcoreapp3.1; short names stay.</summary>
    public static string ShortName(string framework)
    {
        Match match = Regex.Match(framework, @"^\.NET(?<name>Framework|Standard|CoreApp)(?<version>[\d.]+)$", RegexOptions.IgnoreCase);
        return !match.Success ? framework.ToLowerInvariant()
            : match.Groups["name"].Value.Equals("Framework", StringComparison.OrdinalIgnoreCase) ? "net" + match.Groups["version"].Value.Replace(".", "", StringComparison.Ordinal)
            : "net" + match.Groups["name"].Value.ToLowerInvariant() + match.Groups["version"].Value;
    }

    /// <summary>The lowest version a nuspec range accepts: "1.0.0" and "[1.0.0, )" both give 1.0.0.</summary>
    private static string MinVersion(string range) => range.Trim().TrimStart('[', '(').Split(',')[0].Trim().TrimEnd(']', ')');
}
