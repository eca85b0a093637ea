using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>
    /// pack: NuGet packages of the patched driver and of the projects it references (they get the same
    /// version, so the driver's package dependencies resolve from the same folder), plus a provenance JSON.
    /// </summary>
    internal static class PackCommand
    {
        public static int Run(ToolContext context)
        {
            string configuration = context.CommandLine.Value("configuration") ?? "Release";
            DriverProject driver = DriverProject.Resolve(context, allowUnpatched: false);
            CheckoutProvenance provenance = driver.Provenance!;
            string suffix = context.CommandLine.Value("version-suffix") ?? "dbxmem." + provenance.SeriesVersion;
            if (!Regex.IsMatch(suffix, @"^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$"))
            {
                throw new ToolException(ExitCodes.Usage, $"'{suffix}' is not a valid NuGet version suffix.", "use dot-separated letters, digits and '-', e.g. dbxmem.1.0.0 or dbxmem.1.0.0-rc.1");
            }

            string output = Path.GetFullPath(context.CommandLine.Value("output") ?? "dbxmem-packages", context.CurrentDirectory);
            Directory.CreateDirectory(output);
            Dotnet dotnet = Dotnet.Locate(context.Environment, driver.Checkout.Root);
            string suffixProperty = "-p:VersionSuffix=" + suffix;
            IReadOnlyList<string> properties = BuildCommand.MsBuildProperties(context);
            IReadOnlyList<(string Project, ProjectEvaluation Evaluation)> projects = ProjectClosure(dotnet, driver.ProjectPath, properties.Append(suffixProperty).ToArray());
            IReadOnlyList<string> frameworks = projects[0].Evaluation.Frameworks;
            context.Info($"Packing {projects.Count} project(s) with version suffix '{suffix}' ({configuration}) into {output}");
            // Restore first, for every target the project declares: a dependency the NuGet sources lack is then
            // named with the way out, instead of surfacing as one of many pack errors.
            ProcessResult restore = dotnet.Restore(driver.ProjectPath, properties.Append(suffixProperty));
            if (!restore.Succeeded)
            {
                IReadOnlyList<string> errors = Dotnet.ErrorLines(restore);
                throw new ToolException(
                    ExitCodes.BuildFailed,
                    $"dotnet restore failed for {Path.GetRelativePath(driver.Checkout.Root, driver.ProjectPath).Replace('\\', '/')} (targets {string.Join(", ", frameworks)}):\n    " +
                        string.Join("\n    ", (errors.Count > 0 ? errors : new[] { Git.FirstLines(restore.Stdout + restore.Stderr, 12) }).Take(12)),
                    RestoreDiagnosis.Hint(restore.Stdout + restore.Stderr)
                        ?? "check your NuGet sources (`dotnet nuget list source`) or network; `-p NAME=VALUE` passes MSBuild properties");
            }


            var packages = new List<PackageRecord>();
            foreach ((string project, ProjectEvaluation evaluation) in projects)
            {
                string relative = Path.GetRelativePath(driver.Checkout.Root, project).Replace('\\', '/');
                if (!evaluation.IsPackable)
                {
                    context.Warn($"{relative} is marked IsPackable=false; not packed.");
                    continue;
                }

                ProcessResult pack = dotnet.Pack(project, configuration, output, properties.Append(suffixProperty));
                if (!pack.Succeeded)
                {
                    IReadOnlyList<string> errors = Dotnet.ErrorLines(pack);
                    throw new ToolException(
                        ExitCodes.BuildFailed,
                        $"dotnet pack failed for {relative}:\n    " + string.Join("\n    ", (errors.Count > 0 ? errors : new[] { Git.FirstLines(pack.Stdout + pack.Stderr, 12) }).Take(12)),
                        RestoreDiagnosis.Hint(pack.Stdout + pack.Stderr)
                            ?? "run `scripts/patch build` to see which target fails; pack needs every target of the project to build");
                }

                string file = Path.Combine(output, $"{evaluation.PackageId}.{evaluation.PackageVersion}.nupkg");
                if (!File.Exists(file))
                {
                    throw new ToolException(ExitCodes.BuildFailed, $"dotnet pack of {relative} succeeded but {file} is not there.", "check the project's PackageId/PackageOutputPath settings");
                }

                packages.Add(new PackageRecord { Id = evaluation.PackageId, Version = evaluation.PackageVersion, File = Path.GetFileName(file), Sha256 = Series.Hashing.Sha256Hex(File.ReadAllBytes(file)) });
                context.Info($"  {Path.GetFileName(file)}");
            }

            if (packages.Count == 0)
            {
                throw new ToolException(ExitCodes.BuildFailed, "dotnet pack produced no package.", "check that the driver project is packable (IsPackable)");
            }

            bool clean = driver.Checkout.Head() == provenance.PatchedHead && driver.Checkout.UncommittedChanges(null).Count == 0;
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
                Configuration = configuration,
                Frameworks = frameworks.ToList(),
                DotnetSdk = dotnet.Run(new[] { "--version" }).Stdout.Trim(),
                MsBuildProperties = properties.Select(p => p.Substring("-p:".Length)).ToList(),
                SubstitutedDependencies = projects
                    .SelectMany(p => RestoreDiagnosis.SubstitutionsIn(p.Evaluation.AssetsFile))
                    .GroupBy(s => s.Package, StringComparer.OrdinalIgnoreCase)
                    .Select(g => g.First())
                    .OrderBy(s => s.Package, StringComparer.Ordinal)
                    .ToList(),
                Packages = packages,
                Patches = provenance.Patches.Select(p => new PatchRecord { Name = p.Name, Sha256 = p.Sha256, Subject = p.Subject, Commit = p.Commit }).ToList(),
                OverlayFiles = provenance.OverlayFiles.Select(f => new OverlayFileRecord { Path = f.Path, Sha256 = f.Sha256, Generated = f.Generated }).ToList(),
                CreatedAtUtc = DateTimeOffset.UtcNow.ToString("yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture),
            };
            PackageRecord main = packages[0];
            string provenancePath = Path.Combine(output, $"{main.Id}.{main.Version}.provenance.json");
            JsonFiles.Write(provenancePath, record);
            context.Info($"Provenance: {provenancePath}");
            return ExitCodes.Success;
        }

        /// <summary>The driver project first, then every project it references, transitively, each once, with its evaluation.</summary>
        private static IReadOnlyList<(string Project, ProjectEvaluation Evaluation)> ProjectClosure(Dotnet dotnet, string root, string[] properties)
        {
            var ordered = new List<(string, ProjectEvaluation)>();
            var seen = new HashSet<string>(OperatingSystem.IsWindows() ? StringComparer.OrdinalIgnoreCase : StringComparer.Ordinal);
            var queue = new Queue<string>();
            queue.Enqueue(Path.GetFullPath(root));
            while (queue.Count > 0 && ordered.Count < 64)
            {
                string project = queue.Dequeue();
                if (!seen.Add(project))
                {
                    continue;
                }

                ProjectEvaluation evaluation = dotnet.Evaluate(project, properties);
                ordered.Add((project, evaluation));
                foreach (string reference in evaluation.ProjectReferences)
                {
                    queue.Enqueue(reference);
                }
            }

            return ordered;
        }
    }
}
