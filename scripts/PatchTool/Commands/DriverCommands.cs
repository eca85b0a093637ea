using System.Globalization;

namespace PatchTool;

/// <summary>The options publish and pack share: the configuration, -p NAME=VALUE properties, and --fit-nuget-source.</summary>
internal sealed record BuildOptions(string Configuration, IReadOnlyList<string> Properties, bool Fit);

/// <summary>
/// publish, build and pack: the driver of a patched checkout (or, for publish --allow-unpatched, of a checkout at a base),
/// built through <see cref="DriverBuild"/>. What they add over `dotnet publish` / `dotnet pack`: the checkout's state
/// is checked (patched by a known series, submodules at their pins), what the NuGet source lacks is named (and with
/// --fit-nuget-source worked around), pack versions the driver and the projects it references alike and writes a
/// provenance JSON.
/// </summary>
internal static class DriverCommands
{
    public static int Publish(ToolContext context, BuildOptions options, string framework, string output, bool allowUnpatched, string? notes)
    {
        (AdbcCheckout checkout, BaseInfo baseInfo, CheckoutProvenance? provenance, string project) = ResolveDriver(context, allowUnpatched, "publish");
        context.Info($"Publishing the {(provenance == null ? "unpatched" : $"patched (series {provenance.SeriesVersion})")} driver of {baseInfo.Tag} for {framework} ({options.Configuration}) from {checkout.Root}");
        var build = new DriverBuild(context, checkout, project, options.Properties);
        RequireTarget(build, framework);
        build.Restore(framework, options.Fit);
        List<Substitution> substitutions = build.Substitutions([build.Evaluate(project).AssetsFile]);
        build.Publish(options.Configuration, framework, context.FullPath(output));
        if (notes != null)
        {
            build.RecordNotes(context.FullPath(notes), substitutions);
        }

        context.Info($"Published to {context.FullPath(output)}");
        return ExitCodes.Success;
    }

    /// <summary>
    /// Compiles one target of the driver (no publish folder): what scripts/verify runs for the .NET Framework host's
    /// targets, netstandard2.0 and net472, stock and patched. With --build-notes the outcome (errors, warnings by code,
    /// overrides, substitutions) goes into the notes' "targetBuilds", also when the build fails.
    /// </summary>
    public static int Build(ToolContext context, BuildOptions options, string framework, bool allowUnpatched, string? notes)
    {
        (AdbcCheckout checkout, BaseInfo baseInfo, CheckoutProvenance? provenance, string project) = ResolveDriver(context, allowUnpatched, "build");
        string driver = provenance == null ? "stock" : "patched";
        context.Info($"Building the {(provenance == null ? "unpatched" : $"patched (series {provenance.SeriesVersion})")} driver of {baseInfo.Tag} for {framework} ({options.Configuration}) from {checkout.Root}");
        var build = new DriverBuild(context, checkout, project, options.Properties);
        RequireTarget(build, framework);
        build.Restore(framework, options.Fit);
        List<Substitution> substitutions = build.Substitutions([build.Evaluate(project).AssetsFile]);
        TargetBuild result = build.BuildTarget(driver, options.Configuration, framework);
        if (notes != null)
        {
            DriverBuild.RecordTargetBuild(context.FullPath(notes), result, substitutions);
        }

        context.Info($"  {driver} {framework}: {(result.Succeeded ? "built" : "FAILED")}, {result.Summary}");
        return result.Succeeded ? ExitCodes.Success : throw new ToolException(
            ExitCodes.BuildFailed,
            $"dotnet build of the {driver} driver for {framework} failed:\n    " + string.Join("\n    ", result.Errors.Take(12)),
            "CS errors are compile errors in the checkout: fix driver-overlay/ or the patch commits (then `scripts/patch export`); NU and NETSDK errors are about packages or the SDK");
    }

    /// <summary>Stops with a usage error when the driver does not build <paramref name="framework"/>, not even as upstream builds it on Windows.</summary>
    private static void RequireTarget(DriverBuild build, string framework)
    {
        IReadOnlyList<string> frameworks = build.Frameworks(framework);
        if (!frameworks.Contains(framework, StringComparer.OrdinalIgnoreCase))
        {
            throw new ToolException(ExitCodes.Usage, $"the driver does not target {framework}; it builds {string.Join(", ", frameworks)}.", "pass one of those with -f");
        }
    }

    public static int Pack(ToolContext context, BuildOptions options, string? versionSuffix, string output)
    {
        (AdbcCheckout checkout, BaseInfo baseInfo, CheckoutProvenance? applied, string project) = ResolveDriver(context, allowUnpatched: false, "pack");
        CheckoutProvenance provenance = applied!;
        string suffix = versionSuffix ?? "dbxmem." + provenance.SeriesVersion;
        if (!Regex.IsMatch(suffix, @"^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$"))
        {
            throw new ToolException(ExitCodes.Usage, $"'{suffix}' is not a valid NuGet version suffix.", "use dot-separated letters, digits and '-', e.g. dbxmem.1.0.0 or dbxmem.1.0.0-rc.1");
        }

        output = context.FullPath(output);
        Directory.CreateDirectory(output);
        context.Info($"Packing {baseInfo.Tag} + series {provenance.SeriesVersion} with version suffix '{suffix}' ({options.Configuration}) into {output}");
        // Every project gets the suffix, so the driver's package dependencies on its sibling projects resolve from one folder.
        var build = new DriverBuild(context, checkout, project, options.Properties.Append("VersionSuffix=" + suffix));
        IReadOnlyList<string> frameworks = build.Frameworks(null);
        build.Restore(frameworks, options.Fit);
        List<(string Project, ProjectEvaluation Evaluation)> projects = build.Closure();
        List<Substitution> substitutions = build.Substitutions(projects.Select(p => p.Evaluation.AssetsFile));
        build.DeclareBuiltAgainst(substitutions, frameworks, options.Fit);
        var packages = new List<PackageRecord>();
        foreach ((string path, ProjectEvaluation evaluation) in projects)
        {
            if (!evaluation.IsPackable)
            {
                context.Warn($"{Path.GetRelativePath(checkout.Root, path)} is marked IsPackable=false; not packed.");
                continue;
            }

            packages.Add(build.Pack(path, evaluation, options.Configuration, output));
            context.Info($"  {packages[^1].File}: lib/{string.Join(", lib/", packages[^1].LibFolders)}");
        }

        if (packages.Count == 0)
        {
            throw new ToolException(ExitCodes.BuildFailed, "dotnet pack produced no package.", "check that the driver project is packable (IsPackable)");
        }

        bool clean = checkout.Head() == provenance.PatchedHead && checkout.UncommittedChanges(null).Count == 0;
        if (!clean)
        {
            context.Warn("the checkout differs from the patched commit (uncommitted changes or extra commits); the provenance records workingTreeClean=false.");
        }

        var record = new PackProvenance
        {
            ToolVersion = ToolContext.ToolVersion,
            BaseTag = provenance.BaseTag,
            BaseCommit = provenance.BaseCommit,
            SeriesVersion = provenance.SeriesVersion,
            SeriesHash = provenance.SeriesHash,
            PatchedHead = provenance.PatchedHead ?? "",
            WorkingTreeClean = clean,
            VersionSuffix = suffix,
            Configuration = options.Configuration,
            Frameworks = projects[0].Evaluation.Frameworks.ToList(),
            DotnetSdk = build.Dotnet("--version").Stdout.Trim(),
            MsbuildProperties = build.ShownProperties.Where(p => !p.StartsWith("VersionSuffix=", StringComparison.Ordinal)).ToList(),
            SubstitutedDependencies = substitutions,
            Packages = packages,
            Patches = provenance.Patches,
            OverlayFiles = provenance.OverlayFiles,
            CreatedAtUtc = DateTimeOffset.UtcNow.ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture),
        };
        string file = Path.Combine(output, $"{packages[0].Id}.{packages[0].Version}.provenance.json");
        Json.Write(file, record);
        context.Info($"Provenance: {file}");
        return ExitCodes.Success;
    }

    /// <summary>The checkout, its base, its provenance (null when unpatched and allowed) and the driver project's full path.</summary>
    private static (AdbcCheckout, BaseInfo, CheckoutProvenance?, string) ResolveDriver(ToolContext context, bool allowUnpatched, string verb)
    {
        AdbcCheckout checkout = context.OpenCheckout();
        checkout.RequireNoAmSession();
        PatchRepository repository = context.OpenPatches();
        CheckoutProvenance? provenance = checkout.ReadProvenance(deleteStale: false);
        if (provenance != null && provenance.State != CheckoutProvenance.StateApplied)
        {
            throw new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} is only partly patched (an `apply --3way` was finished by hand).",
                "export the result (`scripts/patch export`), then `git reset --hard <base tag>` and `scripts/patch apply`, so the build matches a recorded series");
        }

        IReadOnlyList<BaseInfo> bases = repository.LoadBases();
        string head = checkout.Head();
        BaseInfo? baseInfo = provenance != null ? repository.LoadBase(provenance.BaseTag) : bases.FirstOrDefault(b => b.Commit == head);
        if (provenance == null && !allowUnpatched)
        {
            throw new ToolException(
                ExitCodes.CheckoutState,
                $"{checkout.Root} is not patched{(baseInfo == null ? "" : $" (it is at {baseInfo.Tag})")}.",
                // A hint names only options of the command that printed it.
                verb is "publish" or "build" ? $"run `scripts/patch apply` first, or pass --allow-unpatched to {verb} the stock driver of a supported base"
                    : "run `scripts/patch apply` first; `scripts/patch publish --allow-unpatched` builds the stock driver of a supported base");
        }

        if (baseInfo == null)
        {
            throw checkout.NotABase(bases, head);
        }

        checkout.RequireSubmodules(baseInfo);
        string project = Path.Combine(checkout.Root, provenance?.DriverProject ?? baseInfo.DriverProject);
        return File.Exists(project) ? (checkout, baseInfo, provenance, project) : throw new ToolException(
            ExitCodes.CheckoutState, $"the driver project {project} does not exist.", "check driverProject in the base's base.json");
    }
}
