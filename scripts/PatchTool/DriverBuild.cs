using System.Text.Json.Nodes;

namespace PatchTool;

/// <summary>What one evaluation of a project says (dotnet msbuild -getProperty/-getItem, no build).</summary>
internal sealed record ProjectEvaluation(IReadOnlyList<string> Frameworks, string PackageId, string PackageVersion, bool IsPackable, IReadOnlyList<string> References, string AssetsFile);

/// <summary>
/// The one place that restores, publishes and packs a driver checkout: `publish` and `pack` use it, and scripts/verify
/// builds both its drivers through `publish`. A restore comes first: its output tells what this machine's NuGet source
/// lacks, and with --fit-nuget-source the smallest override is added for exactly that (RestoreDiagnosis) instead of
/// stopping, printed, and kept for the pack provenance and verify's report.
/// </summary>
internal sealed class DriverBuild(ToolContext context, AdbcCheckout checkout, string project, IEnumerable<string> properties)
{
    /// <summary>
    /// For every dotnet call: no logo, and no MSBuild or compiler server processes, which would outlive the tool holding
    /// its output pipes open (costs a few seconds of compiler warm-up per build).
    /// </summary>
    private static readonly string[] Flags = ["-nologo", "--disable-build-servers"];

    private readonly List<string> properties = properties.ToList();
    private readonly List<Override> overrides = [];
    private readonly List<string> missing = [];
    private readonly List<StandIn> standIns = [];
    private string? dotnet;

    /// <summary>Every NAME=VALUE the build uses: those given and those added.</summary>
    public IReadOnlyList<string> Properties => properties;

    /// <summary>The same, with the paths of this machine that the overrides hold shown as reports show them ("&lt;git-dir&gt;/...").</summary>
    public IReadOnlyList<string> ShownProperties => properties.Select(p => overrides.FirstOrDefault(o => o.Property == p) is { } o ? $"{o.Name}={o.ShownValue ?? o.Value}" : p).ToList();

    private IEnumerable<string> Arguments => Flags.Concat(properties.Select(p => "-p:" + p));

    private string Relative(string path) => Path.GetRelativePath(checkout.Root, path).Replace('\\', '/');

    public ProcessResult Dotnet(params IEnumerable<string> arguments) => Dotnet(arguments, null);

    /// <summary>Runs the dotnet CLI in the checkout; <paramref name="extraEnvironment"/> adds variables for this run only.</summary>
    public ProcessResult Dotnet(IEnumerable<string> arguments, IReadOnlyDictionary<string, string?>? extraEnvironment) =>
        ProcessRunner.Run(DotnetPath, arguments, checkout.Root, Environment(extraEnvironment));

    private string DotnetPath => dotnet ??= ProcessRunner.Find("dotnet", context.Variable("PATH")) ?? ProcessRunner.Find("dotnet", context.Variable("DOTNET_ROOT")) ?? throw new ToolException(
        ExitCodes.Environment,
        "the dotnet CLI was not found on PATH (or in DOTNET_ROOT).",
        "install the .NET SDK 10 (https://dot.net/download; Windows: `winget install Microsoft.DotNet.SDK.10`) and open a new terminal");

    /// <summary>The environment of every dotnet run: plain, parseable output even when the tool itself runs in a terminal.</summary>
    private Dictionary<string, string?> Environment(IReadOnlyDictionary<string, string?>? extra = null)
    {
        Dictionary<string, string?> environment = context.ChildEnvironment(new Dictionary<string, string?>
        {
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
            ["DOTNET_NOLOGO"] = "1",
            ["MSBUILDTERMINALLOGGER"] = "off",
        });
        foreach ((string name, string? value) in extra ?? new Dictionary<string, string?>())
        {
            environment[name] = value;
        }

        return environment;
    }

    /// <summary>
    /// Restores the driver project for <paramref name="frameworks"/> (what the build must produce). Where it fails on what
    /// the NuGet source lacks and <paramref name="fit"/> is set, adds the smallest override for what the output shows and
    /// tries again (at most three rounds); otherwise stops with a hint naming the packages and the overrides. A property
    /// given with -p is never overridden.
    /// </summary>
    public void Restore(IReadOnlyList<string> frameworks, bool fit)
    {
        // The one target a build narrows to when a missing package has no other way out (pack: net8.0, as before).
        string narrowTo = frameworks.Count == 1 || !frameworks.Contains("net8.0") ? frameworks[0] : "net8.0";
        for (int round = 0; ; round++)
        {
            ProcessResult restore = Dotnet(["restore", project, .. Arguments]);
            if (restore.Succeeded)
            {
                context.Info(overrides.Count == 0 ? "  NuGet: restored; no override needed" : $"  NuGet: restored with {string.Join(" ", overrides.Select(o => o.Argument))}");
                return;
            }

            if (!fit || round == 3 || !AddOverrides(restore.Output, frameworks, narrowTo))
            {
                throw Failed("restore", project, restore, RestoreDiagnosis.Hint(restore.Output, narrowTo)
                    ?? "check your NuGet sources (`dotnet nuget list source`) or network; `-p NAME=VALUE` passes MSBuild properties");
            }
        }
    }

    public void Restore(string framework, bool fit) => Restore([framework], fit);

    /// <summary>The overrides for what one failed restore shows; false when none is left to add.</summary>
    private bool AddOverrides(string output, IReadOnlyList<string> frameworks, string narrowTo)
    {
        int before = overrides.Count;
        if (RestoreDiagnosis.HasSubstitutionErrors(output) && !IsSet("WarningsNotAsErrors"))
        {
            Add(new Override("WarningsNotAsErrors", "NU1603", "the NuGet source lacks pinned versions and NuGet resolved newer ones (NU1603), which upstream's TreatWarningsAsErrors makes fatal"));
        }

        IReadOnlyList<string> notServed = RestoreDiagnosis.MissingPackages(output);
        var held = notServed.Select(id => (Id: id, Project: FindFile(checkout.Root, id + ".csproj"))).Where(p => p.Project != null).ToList();
        if (held.Count > 0 && !IsSet("RestoreAdditionalProjectSources"))
        {
            Add(PackFromCheckout(held!));
        }

        // A listed stand-in, where a target being built needs the package; a package only other targets need is left out
        // by narrowing instead (publish -f net8.0: ApacheThrift needs System.IO.Pipes.AccessControl only on netstandard2.0).
        IReadOnlyDictionary<string, IReadOnlyList<string>> neededBy = RestoreDiagnosis.MissingIn(Evaluate(project).AssetsFile);
        List<StandIn> standIns = notServed.Except(held.Select(p => p.Id)).Select(StandIn.Find).OfType<StandIn>()
            .Where(s => !neededBy.TryGetValue(s.Id, out IReadOnlyList<string>? graphs) || graphs.Intersect(frameworks, StringComparer.OrdinalIgnoreCase).Any())
            .ToList();
        if (standIns.Count > 0 && !IsSet("RestoreAdditionalProjectFallbackFolders"))
        {
            missing.AddRange(standIns.Select(s => s.Id));
            Add(MakeStandIns(standIns));
        }

        List<string> elsewhere = notServed.Except(held.Select(p => p.Id)).Except(standIns.Select(s => s.Id)).ToList();
        if (elsewhere.Count > 0 && !IsSet("TargetFrameworks"))
        {
            missing.AddRange(elsewhere);
            Add(new Override("TargetFrameworks", narrowTo, $"the NuGet source does not serve {string.Join(", ", elsewhere)}; {narrowTo} builds without it"));
        }

        return overrides.Count > before;
    }

    private bool IsSet(string name) => properties.Any(p => p.StartsWith(name + "=", StringComparison.OrdinalIgnoreCase));

    private void Add(Override added)
    {
        overrides.Add(added);
        properties.Add(added.Property);
        context.Info($"  override {added.Argument}: {added.Reason}");
    }

    /// <summary>
    /// Packages the source lacks but whose projects the checkout holds (adbc-drivers/databricks main references
    /// Apache.Arrow.Adbc 0.24.0 as a package; its pinned arrow-adbc submodule has the project) are packed, at the
    /// projects' own versions, into a folder in the git directory that the clone's worktrees share, which becomes a
    /// restore source.
    /// </summary>
    private Override PackFromCheckout(IReadOnlyList<(string Id, string Project)> held)
    {
        string feed = checkout.SharedGitFolder("dbxmem-patch/local-feed");
        Directory.CreateDirectory(feed);
        // One packed by an earlier publish of this clone (verify publishes the stock and the patched driver) is reused.
        foreach ((string id, string dependency) in held.Where(h => !Directory.EnumerateFiles(feed).Any(f => Regex.IsMatch(Path.GetFileName(f), "^" + Regex.Escape(h.Id) + @"\.\d.*\.nupkg$"))))
        {
            // VersionSuffix= drops a -SNAPSHOT suffix: the package gets the version the reference asks for.
            ProcessResult pack = Dotnet(["pack", dependency, "-c", "Release", "-o", feed, "-p:VersionSuffix=", .. Arguments]);
            if (!pack.Succeeded)
            {
                throw Failed("pack", dependency, pack, $"the checkout's own {id} must build to stand in for the package");
            }
        }

        return new Override(
            "RestoreAdditionalProjectSources", feed,
            $"the NuGet source does not serve {string.Join(", ", held.Select(h => h.Id))}, which the checkout itself holds: packed from {string.Join(", ", held.Select(h => Relative(h.Project)))} into a local folder source",
            "<git-dir>/dbxmem-patch/local-feed");
    }

    /// <summary>
    /// Empty stand-ins (StandInPackages) for listed packages the source lacks, in a fallback folder in the git directory
    /// the clone's worktrees share (made once there): restores read it in place, so the NuGet cache never holds them.
    /// </summary>
    private Override MakeStandIns(IReadOnlyList<StandIn> wanted)
    {
        string folder = checkout.SharedGitFolder("dbxmem-patch/stand-ins");
        StandInPackages.Make(folder, wanted, (arguments, directory) => ProcessRunner.Run(DotnetPath, arguments, directory, Environment()));
        standIns.AddRange(wanted.Except(standIns));
        return new Override(
            "RestoreAdditionalProjectFallbackFolders", folder,
            string.Join("; ", wanted.Select(s => $"the NuGet source does not serve {s.Id} {s.Version}: an empty stand-in (no assembly) takes its place in the build, never in a package, because {s.Reason}")),
            "<git-dir>/dbxmem-patch/stand-ins");
    }

    private static string? FindFile(string directory, string name) => File.Exists(Path.Combine(directory, name))
        ? Path.Combine(directory, name)
        : Directory.EnumerateDirectories(directory)
            .Where(d => !Path.GetFileName(d).StartsWith('.') && Path.GetFileName(d) is not ("bin" or "obj"))
            .Select(d => FindFile(d, name)).FirstOrDefault(f => f != null);

    /// <summary>One evaluation of everything publish and pack need (each costs a couple of seconds, so they are asked for together).</summary>
    public ProjectEvaluation Evaluate(string path, params string[] extraProperties)
    {
        string[] names = ["TargetFrameworks", "TargetFramework", "PackageId", "PackageVersion", "IsPackable", "ProjectAssetsFile"];
        ProcessResult result = Dotnet(["msbuild", path, .. names.Select(n => "-getProperty:" + n), "-getItem:ProjectReference", .. Arguments, .. extraProperties.Select(p => "-p:" + p)]);
        if (!result.Succeeded || !result.Stdout.TrimStart().StartsWith('{'))
        {
            throw new ToolException(ExitCodes.BuildFailed, $"could not evaluate {Relative(path)}: {Git.FirstLines(result.Output, 8)}", "check that the project file is intact and the SDK is 8.0 or later (`dotnet --version`)");
        }

        using JsonDocument document = JsonDocument.Parse(result.Stdout);
        JsonElement root = document.RootElement;
        string Property(string name) => root.GetProperty("Properties").TryGetProperty(name, out JsonElement value) ? value.GetString() ?? "" : "";
        List<string> references = root.TryGetProperty("Items", out JsonElement items) && items.TryGetProperty("ProjectReference", out JsonElement list)
            ? list.EnumerateArray().Select(r => Path.GetFullPath(r.GetProperty("FullPath").GetString()!.Replace('\\', Path.DirectorySeparatorChar))).ToList()
            : [];
        string frameworks = Property("TargetFrameworks").Trim().Length > 0 ? Property("TargetFrameworks") : Property("TargetFramework");
        return new ProjectEvaluation(
            frameworks.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries),
            Property("PackageId"), Property("PackageVersion"), !Property("IsPackable").Equals("false", StringComparison.OrdinalIgnoreCase), references, Property("ProjectAssetsFile"));
    }

    /// <summary>
    /// The targets the driver builds, as upstream builds them for its release: the new home declares net472 only where
    /// its IsWindows property is true (its Directory.Build.props sets it from the OS), and the .NET SDK builds net472 on
    /// any OS against the Microsoft.NETFramework.ReferenceAssemblies package, so off Windows IsWindows=true is added
    /// (printed, recorded) when that adds targets: for pack always (<paramref name="wanted"/> null), for one target only
    /// when it is among the added ones. Given -p IsWindows or -p TargetFrameworks, the project's own evaluation stands.
    /// </summary>
    public IReadOnlyList<string> Frameworks(string? wanted)
    {
        IReadOnlyList<string> declared = Evaluate(project).Frameworks;
        if (IsSet("IsWindows") || IsSet("TargetFrameworks") || (wanted != null && declared.Contains(wanted, StringComparer.OrdinalIgnoreCase)))
        {
            return declared;
        }

        IReadOnlyList<string> windows = Evaluate(project, "IsWindows=true").Frameworks;
        List<string> added = windows.Except(declared, StringComparer.OrdinalIgnoreCase).ToList();
        if (added.Count == 0 || (wanted != null && !added.Contains(wanted, StringComparer.OrdinalIgnoreCase)))
        {
            return declared;
        }

        Add(new Override("IsWindows", "true", $"upstream builds {string.Join(", ", added)} only on Windows (its IsWindows condition); the .NET SDK builds it here against the reference assemblies from NuGet"));
        return windows;
    }

    /// <summary>The driver project, then every project it references, transitively, each once, with its evaluation.</summary>
    public List<(string Project, ProjectEvaluation Evaluation)> Closure()
    {
        var closure = new List<(string, ProjectEvaluation)>();
        var queue = new Queue<string>([Path.GetFullPath(project)]);
        while (queue.TryDequeue(out string? next))
        {
            if (closure.All(c => c.Item1 != next))
            {
                ProjectEvaluation evaluation = Evaluate(next);
                closure.Add((next, evaluation));
                evaluation.References.ToList().ForEach(queue.Enqueue);
            }
        }

        return closure;
    }

    public void Publish(string configuration, string framework, string output)
    {
        ProcessResult publish = Dotnet(["publish", project, "-c", configuration, "-f", framework, "-o", output, .. Arguments]);
        if (!publish.Succeeded)
        {
            throw Failed("publish", project, publish, BuildHint(publish));
        }
    }

    /// <summary>dotnet build of one project (the driver, or upstream's test project for `prs --verify`) with the build's properties.</summary>
    public void Build(string path)
    {
        ProcessResult build = Dotnet(["build", path, .. Arguments]);
        if (!build.Succeeded)
        {
            throw Failed("build", path, build, BuildHint(build));
        }
    }

    /// <summary>
    /// dotnet test of a built test project with the build's properties, a filter and a TRX logger writing
    /// <paramref name="trxFile"/>. Upstream's test binaries target net8.0; DOTNET_ROLL_FORWARD=Major runs them on the
    /// newest runtime installed (.NET 10 here). A failing test is not an exception: the TRX file says what ran.
    /// </summary>
    public ProcessResult Test(string path, string filter, string trxFile) => Dotnet(
        ["test", path, "--no-build", .. Arguments, "--filter", filter, "--logger", "trx;LogFileName=" + Path.GetFileName(trxFile), "--results-directory", Path.GetDirectoryName(trxFile)!],
        new Dictionary<string, string?> { ["DOTNET_ROLL_FORWARD"] = "Major" });

    /// <summary>
    /// Packs one project into <paramref name="output"/> and returns what it wrote, after checking the package against the
    /// project's restore: every dependency declared at the version built against, no stand-in named or carried.
    /// </summary>
    public PackageRecord Pack(string path, ProjectEvaluation evaluation, string configuration, string output)
    {
        ProcessResult pack = Dotnet(["pack", path, "-c", configuration, "-o", output, .. Arguments]);
        string file = Path.Combine(output, $"{evaluation.PackageId}.{evaluation.PackageVersion}.nupkg");
        if (!pack.Succeeded)
        {
            throw Failed("pack", path, pack, BuildHint(pack));
        }

        if (!File.Exists(file))
        {
            throw new ToolException(ExitCodes.BuildFailed, $"dotnet pack of {Relative(path)} succeeded but {file} is not there.", "check the project's PackageId and PackageOutputPath");
        }

        PackageContents contents = PackageContents.Read(file);
        IReadOnlyList<string> problems = contents.Problems(evaluation.AssetsFile);
        if (problems.Count > 0)
        {
            throw new ToolException(
                ExitCodes.BuildFailed,
                $"{Path.GetFileName(file)} is not what it was built with: it {string.Join("; it ", problems)}.",
                "a -p that replaces pack's own overrides (CustomBeforeMicrosoftCommonTargets, RestoreAdditionalProjectFallbackFolders) can cause this; pack without it");
        }

        return new PackageRecord(evaluation.PackageId, evaluation.PackageVersion, Path.GetFileName(file), Hashing.Sha256Hex(File.ReadAllBytes(file)), contents.LibFolders);
    }

    /// <summary>
    /// The substitutions the restores recorded, one per package, and the stand-ins the build used (with the packages that
    /// depend on them), printed.
    /// </summary>
    public List<Substitution> Substitutions(IEnumerable<string> assetsFiles)
    {
        List<string> files = assetsFiles.ToList();
        List<Substitution> found = files.SelectMany(RestoreDiagnosis.SubstitutionsIn)
            .Concat(standIns.Select(s => new Substitution(s.Id, s.Version, s.Version, string.Join(", ", files.SelectMany(f => RestoreDiagnosis.Dependents(f, s.Id)).Distinct().Order(StringComparer.Ordinal)), s.Reason)))
            .DistinctBy(s => s.Package, StringComparer.OrdinalIgnoreCase).OrderBy(s => s.Package, StringComparer.Ordinal).ToList();
        found.ForEach(s => context.Info("  NuGet: " + RestoreDiagnosis.Describe(s)));
        return found;
    }

    /// <summary>
    /// Makes the packages declare the versions their assemblies are built against: a pinned version this NuGet source
    /// lacks (ApacheThrift 0.22.0) would otherwise stay in the nuspec while the assembly references the substitute
    /// (0.25.0), and a real feed would give a consumer the pinned one. For each substituted dependency a project pins
    /// itself, a targets file imported into every project (CustomBeforeMicrosoftCommonTargets) raises the pin to the
    /// resolved version (PackageVersion under central package management, the PackageReference otherwise), and the
    /// driver is restored again with it. Stand-ins and the dependencies of packages are left as they are.
    /// </summary>
    public void DeclareBuiltAgainst(IReadOnlyList<Substitution> substitutions, IReadOnlyList<string> frameworks, bool fit)
    {
        List<Substitution> pins = substitutions.Where(s => s.StandIn == null && !s.By.Contains(' ', StringComparison.Ordinal)).ToList();
        if (pins.Count == 0)
        {
            return;
        }

        if (IsSet("CustomBeforeMicrosoftCommonTargets"))
        {
            context.Warn("-p CustomBeforeMicrosoftCommonTargets is given, so the packages keep the pinned versions; pack checks what they declare.");
            return;
        }

        string file = checkout.Git.GitPath("dbxmem-patch/built-against.targets");
        Directory.CreateDirectory(Path.GetDirectoryName(file)!);
        string Items(string item, string condition) => $"  <ItemGroup Condition=\"'$(ManagePackageVersionsCentrally)' {condition} 'true'\">\n" +
            string.Concat(pins.Select(p => $"    <{item} Update=\"{p.Package}\" Version=\"{p.Resolved}\" />\n")) + "  </ItemGroup>\n";
        File.WriteAllText(file, "<Project>\n  <!-- scripts/patch pack: the versions the packages are built against, declared as their dependencies. -->\n" +
            Items("PackageVersion", "==") + Items("PackageReference", "!=") + "</Project>\n");
        Add(new Override(
            "CustomBeforeMicrosoftCommonTargets", file,
            $"the packages declare the versions they are built against ({string.Join(", ", pins.Select(p => $"{p.Package} {p.Resolved}"))}), not the pinned ones the NuGet source lacks",
            "<git-dir>/dbxmem-patch/built-against.targets"));
        Restore(frameworks, fit);
    }

    /// <summary>
    /// Writes the overrides, the packages not served and the substitutions into a build-notes JSON file (scripts/verify's,
    /// read by its report's "Build and measurement" section), keeping whatever else it holds.
    /// </summary>
    public void RecordNotes(string path, IReadOnlyList<Substitution> substitutions)
    {
        JsonObject notes = ReadNotes(path);
        notes["overrides"] = JsonSerializer.SerializeToNode(overrides.Select(o => new { o.Argument, o.Reason }), Json.Options);
        notes["missingPackages"] = JsonSerializer.SerializeToNode(missing.Distinct().Order(StringComparer.Ordinal), Json.Options);
        notes["substitutions"] = JsonSerializer.SerializeToNode(substitutions, Json.Options);
        Json.Write(path, notes);
    }

    /// <summary>dotnet build of the driver for one target, with the build's properties; the result is returned, not thrown.</summary>
    public TargetBuild BuildTarget(string driver, string configuration, string framework)
    {
        ProcessResult build = Dotnet(["build", project, "-c", configuration, "-f", framework, .. Arguments]);
        return TargetBuild.From(driver, framework, build, overrides.Select(o => o.Argument));
    }

    /// <summary>Adds (or replaces) one target build in the build notes' "targetBuilds", keeping whatever else the file holds.</summary>
    public static void RecordTargetBuild(string path, TargetBuild result, IReadOnlyList<Substitution> substitutions)
    {
        JsonObject notes = ReadNotes(path);
        List<JsonNode?> builds = notes["targetBuilds"] is JsonArray existing
            ? existing.Where(b => !(b?["driver"]?.GetValue<string>() == result.Driver && b?["framework"]?.GetValue<string>() == result.Framework)).Select(b => b?.DeepClone()).ToList()
            : [];
        JsonObject entry = JsonSerializer.SerializeToNode(result, Json.Options)!.AsObject();
        entry["substitutions"] = JsonSerializer.SerializeToNode(substitutions, Json.Options);
        builds.Add(entry);
        notes["targetBuilds"] = new JsonArray([.. builds]);
        Json.Write(path, notes);
    }

    private static JsonObject ReadNotes(string path) => File.Exists(path) ? JsonNode.Parse(File.ReadAllText(path))!.AsObject() : new JsonObject();

    private ToolException Failed(string verb, string path, ProcessResult result, string hint)
    {
        List<string> errors = result.Output.Replace("\r\n", "\n").Split('\n').Select(l => l.Trim())
            .Where(l => l.Contains(": error ", StringComparison.Ordinal) || l.StartsWith("error ", StringComparison.Ordinal) || l.Contains("error NU", StringComparison.Ordinal))
            .Distinct().Take(12).ToList();
        return new ToolException(
            ExitCodes.BuildFailed,
            $"dotnet {verb} failed for {Relative(path)}" + (overrides.Count == 0 ? "" : $" (with {string.Join(" ", overrides.Select(o => o.Argument))})") + ":\n    " +
                (errors.Count > 0 ? string.Join("\n    ", errors) : Git.FirstLines(result.Output, 12)),
            hint);
    }

    private static string BuildHint(ProcessResult result) => RestoreDiagnosis.Hint(result.Output, "net8.0") ??
        "CS errors are compile errors in the checkout: fix driver-overlay/ or the patch commits (then `scripts/patch export`); NU and NETSDK errors are about packages or the SDK";
}
