using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>build: dotnet build of the driver project, one target framework at a time, with a per-target report.</summary>
    internal static class BuildCommand
    {
        public static int Run(ToolContext context)
        {
            string configuration = context.CommandLine.Value("configuration") ?? "Release";
            DriverProject driver = DriverProject.Resolve(context, context.CommandLine.Has("allow-unpatched"));
            Dotnet dotnet = Dotnet.Locate(context.Environment, driver.Checkout.Root);
            IReadOnlyList<string> properties = MsBuildProperties(context);
            IReadOnlyList<string> frameworks = SelectFrameworks(context, dotnet.Evaluate(driver.ProjectPath, properties.ToArray()).Frameworks);
            string relative = Path.GetRelativePath(driver.Checkout.Root, driver.ProjectPath).Replace('\\', '/');
            context.Info($"Building {relative} ({configuration}) for {string.Join(", ", frameworks)}: " +
                (driver.Provenance == null ? $"UNPATCHED {driver.BaseTag}" : $"{driver.BaseTag} + series {driver.Provenance.SeriesVersion}"));

            ProcessResult restore = dotnet.Restore(driver.ProjectPath, properties);
            if (!restore.Succeeded)
            {
                IReadOnlyList<string> errors = Dotnet.ErrorLines(restore);
                throw new ToolException(
                    ExitCodes.BuildFailed,
                    $"dotnet restore failed for {relative}:\n    " + string.Join("\n    ", (errors.Count > 0 ? errors : new[] { Git.FirstLines(restore.Stdout + restore.Stderr, 12) }).Take(12)),
                    RestoreDiagnosis.Hint(restore.Stdout + restore.Stderr)
                        ?? "check your NuGet sources (`dotnet nuget list source`) or network; `-p NAME=VALUE` passes MSBuild properties");
            }

            var results = BuildEach(dotnet, driver.ProjectPath, configuration, frameworks, properties);
            PrintResults(context, driver.Checkout.Root, results);
            int failed = results.Count(r => !r.Succeeded);
            if (failed > 0)
            {
                context.Err.WriteLine($"error: {failed} of {results.Count} target(s) failed to build.");
                context.Err.WriteLine(failed < results.Count
                    ? "hint: a failure in one target only (e.g. net472) often means a missing reference pack (NETSDK1045/NETSDK1127 name what to install) or an API that target lacks; `--framework` builds the others."
                    : "hint: CS errors are compile errors in the checkout: fix overlay files in driver-overlay/ or the patch commits (then `scripts/patch export`); NU/NETSDK errors are about packages or the SDK.");
                return ExitCodes.BuildFailed;
            }

            context.Info($"All {results.Count} target(s) built.");
            return ExitCodes.Success;
        }

        internal sealed class TargetResult
        {
            public TargetResult(string framework, bool succeeded, string? output, IReadOnlyList<string> errors)
            {
                Framework = framework;
                Succeeded = succeeded;
                Output = output;
                Errors = errors;
            }

            public string Framework { get; }

            public bool Succeeded { get; }

            /// <summary>The built assembly (TargetPath) when the build succeeded.</summary>
            public string? Output { get; }

            public IReadOnlyList<string> Errors { get; }
        }

        /// <summary>--property NAME=VALUE options as -p: arguments for dotnet.</summary>
        public static IReadOnlyList<string> MsBuildProperties(ToolContext context)
        {
            var properties = new List<string>();
            foreach (string property in context.CommandLine.Values("property"))
            {
                int equals = property.IndexOf('=');
                if (equals <= 0)
                {
                    throw new ToolException(ExitCodes.Usage, $"--property '{property}' is not NAME=VALUE.", "e.g. --property NuGetAudit=false");
                }

                properties.Add("-p:" + property);
            }

            return properties;
        }

        public static IReadOnlyList<string> SelectFrameworks(ToolContext context, IReadOnlyList<string> all)
        {
            string? requested = context.CommandLine.Value("framework");
            if (requested == null)
            {
                return all;
            }

            var selected = requested.Split(new[] { ';', ',' }, StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).ToList();
            List<string> unknown = selected.Where(f => !all.Contains(f, StringComparer.OrdinalIgnoreCase)).ToList();
            if (unknown.Count > 0)
            {
                throw new ToolException(ExitCodes.Usage, $"the driver project does not target {string.Join(", ", unknown)}.", $"it targets: {string.Join(", ", all)}");
            }

            return selected;
        }

        public static IReadOnlyList<TargetResult> BuildEach(Dotnet dotnet, string project, string configuration, IReadOnlyList<string> frameworks, IReadOnlyList<string> properties)
        {
            var results = new List<TargetResult>();
            foreach (string framework in frameworks)
            {
                ProcessResult build = dotnet.Build(project, configuration, framework, properties);
                if (build.Succeeded)
                {
                    results.Add(new TargetResult(framework, true, Dotnet.BuiltAssembly(build, project), Array.Empty<string>()));
                }
                else
                {
                    IReadOnlyList<string> errors = Dotnet.ErrorLines(build);
                    results.Add(new TargetResult(framework, false, null, errors.Count > 0 ? errors : new[] { Git.FirstLines(build.Stdout + build.Stderr, 10) }));
                }
            }

            return results;
        }

        private static void PrintResults(ToolContext context, string root, IReadOnlyList<TargetResult> results)
        {
            foreach (TargetResult result in results)
            {
                if (result.Succeeded)
                {
                    string shown = result.Output == null ? "" : Path.GetRelativePath(root, result.Output).Replace('\\', '/');
                    context.Info($"  {result.Framework,-16} ok      {shown}");
                }
                else
                {
                    context.Err.WriteLine($"  {result.Framework,-16} FAILED");
                    foreach (string error in result.Errors.Take(10))
                    {
                        context.Err.WriteLine("      " + error);
                    }
                }
            }
        }
    }
}
