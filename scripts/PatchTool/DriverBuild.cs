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
    private string? dotnet;

    /// <summary>Every NAME=VALUE the build uses: those given and those added.</summary>
    public IReadOnlyList<string> Properties => properties;

    private IEnumerable<string> Arguments => Flags.Concat(properties.Select(p => "-p:" + p));

    private string Relative(string path) => Path.GetRelativePath(checkout.Root, path).Replace('\\', '/');

    public ProcessResult Dotnet(params IEnumerable<string> arguments) => Dotnet(arguments, null);

    /// <summary>Runs the dotnet CLI in the checkout; <paramref name="extraEnvironment"/> adds variables for this run only.</summary>
    public ProcessResult Dotnet(IEnumerable<string> arguments, IReadOnlyDictionary<string, string?>? extraEnvironment)
    {
        dotnet ??= ProcessRunner.Find("dotnet", context.Variable("PATH")) ?? ProcessRunner.Find("dotnet", context.Variable("DOTNET_ROOT")) ?? throw new ToolException(
            ExitCodes.Environment,
            "the dotnet CLI was not found on PATH (or in DOTNET_ROOT).",
            "install the .NET SDK 10 (https://dot.net/download; Windows: `winget install Microsoft.DotNet.SDK.10`) and open a new terminal");
        // Plain, parseable output even when the tool itself runs in a terminal.
        Dictionary<string, string?> environment = context.ChildEnvironment(new Dictionary<string, string?>
        {
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
            ["DOTNET_NOLOGO"] = "1",
            ["MSBUILDTERMINALLOGGER"] = "off",
        });
        foreach ((string name, string? value) in extraEnvironment ?? new Dictionary<string, string?>())
        {
            environment[name] = value;
        }

        return ProcessRunner.Run(dotnet, arguments, checkout.Root, environment);
    }

    /// <summary>
    /// Restores the driver project. Where it fails on what the NuGet source lacks and <paramref name="fit"/> is set, adds
    /// the smallest override for what the output shows and tries again (at most three rounds); otherwise stops with a
    /// hint naming the packages and the overrides. A property given with -p is never overridden.
    /// </summary>
    public void Restore(string framework, bool fit)
    {
        for (int round = 0; ; round++)
        {
            ProcessResult restore = Dotnet(["restore", project, .. Arguments]);
            if (restore.Succeeded)
            {
                context.Info(round == 0 ? "  NuGet: restored; no override needed" : $"  NuGet: restored with {string.Join(" ", overrides.Select(o => o.Argument))}");
                return;
            }

            if (!fit || round == 3 || !AddOverrides(restore.Output, framework))
            {
                throw Failed("restore", project, restore, RestoreDiagnosis.Hint(restore.Output, framework)
                    ?? "check your NuGet sources (`dotnet nuget list source`) or network; `-p NAME=VALUE` passes MSBuild properties");
            }
        }
    }

    /// <summary>The overrides for what one failed restore shows; false when none is left to add.</summary>
    private bool AddOverrides(string output, string framework)
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

        List<string> elsewhere = notServed.Except(held.Select(p => p.Id)).ToList();
        if (elsewhere.Count > 0 && !IsSet("TargetFrameworks"))
        {
            missing.AddRange(elsewhere);
            Add(new Override("TargetFrameworks", framework, $"the NuGet source does not serve {string.Join(", ", elsewhere)}; {framework} builds without it"));
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

    private static string? FindFile(string directory, string name) => File.Exists(Path.Combine(directory, name))
        ? Path.Combine(directory, name)
        : Directory.EnumerateDirectories(directory)
            .Where(d => !Path.GetFileName(d).StartsWith('.') && Path.GetFileName(d) is not ("bin" or "obj"))
            .Select(d => FindFile(d, name)).FirstOrDefault(f => f != null);

    /// <summary>One evaluation of everything publish and pack need (each costs a couple of seconds, so they are asked for together).</summary>
    public ProjectEvaluation Evaluate(string path)
    {
        string[] names = ["TargetFrameworks", "TargetFramework", "PackageId", "PackageVersion", "IsPackable", "ProjectAssetsFile"];
        ProcessResult result = Dotnet(["msbuild", path, .. names.Select(n => "-getProperty:" + n), "-getItem:ProjectReference", .. Arguments]);
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

    /// <summary>Packs one project into <paramref name="output"/> and returns what it wrote.</summary>
    public PackageRecord Pack(string path, ProjectEvaluation evaluation, string configuration, string output)
    {
        ProcessResult pack = Dotnet(["pack", path, "-c", configuration, "-o", output, .. Arguments]);
        string file = Path.Combine(output, $"{evaluation.PackageId}.{evaluation.PackageVersion}.nupkg");
        return !pack.Succeeded ? throw Failed("pack", path, pack, BuildHint(pack))
            : File.Exists(file) ? new PackageRecord(evaluation.PackageId, evaluation.PackageVersion, Path.GetFileName(file), Hashing.Sha256Hex(File.ReadAllBytes(file)))
            : throw new ToolException(ExitCodes.BuildFailed, $"dotnet pack of {Relative(path)} succeeded but {file} is not there.", "check the project's PackageId and PackageOutputPath");
    }

    /// <summary>The substitutions the restores recorded, one per package, and printed.</summary>
    public List<Substitution> Substitutions(IEnumerable<string> assetsFiles)
    {
        List<Substitution> found = assetsFiles.SelectMany(RestoreDiagnosis.SubstitutionsIn).DistinctBy(s => s.Package, StringComparer.OrdinalIgnoreCase).OrderBy(s => s.Package, StringComparer.Ordinal).ToList();
        found.ForEach(s => context.Info("  NuGet: " + RestoreDiagnosis.Describe(s)));
        return found;
    }

    /// <summary>
    /// Writes the overrides, the packages not served and the substitutions into a build-notes JSON file (scripts/verify's,
    /// read by its report's "Build and measurement" section), keeping whatever else it holds.
    /// </summary>
    public void RecordNotes(string path, IReadOnlyList<Substitution> substitutions)
    {
        JsonObject notes = File.Exists(path) ? JsonNode.Parse(File.ReadAllText(path))!.AsObject() : new JsonObject();
        notes["overrides"] = JsonSerializer.SerializeToNode(overrides.Select(o => new { o.Argument, o.Reason }), Json.Options);
        notes["missingPackages"] = JsonSerializer.SerializeToNode(missing.Distinct().Order(StringComparer.Ordinal), Json.Options);
        notes["substitutions"] = JsonSerializer.SerializeToNode(substitutions, Json.Options);
        Json.Write(path, notes);
    }

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
