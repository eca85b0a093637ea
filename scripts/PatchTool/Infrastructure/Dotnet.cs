using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>The dotnet CLI, for build and pack of the patched driver.</summary>
    internal sealed class Dotnet
    {
        /// <summary>
        /// Flags for every build: no lingering MSBuild/compiler server processes (they would outlive the tool and
        /// keep its output pipes open), no logo. Costs a few seconds of compiler warm-up per build.
        /// </summary>
        private static readonly string[] BuildFlags = { "-nologo", "--disable-build-servers" };

        private readonly ToolEnvironment environment;

        private Dotnet(string executable, string workingDirectory, ToolEnvironment environment)
        {
            Executable = executable;
            WorkingDirectory = workingDirectory;
            this.environment = environment;
        }

        public string Executable { get; }

        public string WorkingDirectory { get; }

        public static Dotnet Locate(ToolEnvironment environment, string workingDirectory)
        {
            string? found = ExecutableLocator.Find("dotnet", environment.Get("PATH"));
            if (found == null)
            {
                string? root = environment.Get("DOTNET_ROOT");
                if (root != null)
                {
                    found = ExecutableLocator.Find("dotnet", root);
                }
            }

            if (found == null)
            {
                throw new ToolException(
                    ExitCodes.Environment,
                    "the dotnet CLI was not found on PATH (or in DOTNET_ROOT).",
                    "install the .NET SDK 8 or later (https://dot.net/download; Windows: `winget install Microsoft.DotNet.SDK.10`) and open a new terminal");
            }

            return new Dotnet(found, workingDirectory, environment);
        }

        public ProcessResult Run(IEnumerable<string> arguments)
        {
            var extra = new Dictionary<string, string?>
            {
                ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
                ["DOTNET_NOLOGO"] = "1",
                ["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1",
                // Plain, parseable output even when the tool itself runs in a terminal.
                ["MSBUILDTERMINALLOGGER"] = "off",
            };
            return ProcessRunner.Run(Executable, arguments, WorkingDirectory, environment.ChildEnvironment(extra));
        }

        public ProcessResult Build(string project, string configuration, string framework, IEnumerable<string> properties)
        {
            return Run(new[] { "build", project, "--no-restore", "-c", configuration, "-f", framework }.Concat(BuildFlags).Concat(properties));
        }

        public ProcessResult Restore(string project, IEnumerable<string> properties)
        {
            return Run(new[] { "restore", project }.Concat(BuildFlags).Concat(properties));
        }

        public ProcessResult Pack(string project, string configuration, string output, IEnumerable<string> properties)
        {
            return Run(new[] { "pack", project, "-c", configuration, "-o", output }.Concat(BuildFlags).Concat(properties));
        }

        /// <summary>
        /// Evaluates the project once (dotnet msbuild -getProperty/-getItem, no build) for everything build and
        /// pack need: each evaluation costs a couple of seconds, so they are asked for together.
        /// </summary>
        public ProjectEvaluation Evaluate(string project, params string[] globalProperties)
        {
            var arguments = new List<string> { "msbuild", project, "-nologo" };
            arguments.AddRange(new[] { "TargetFrameworks", "TargetFramework", "PackageId", "PackageVersion", "IsPackable", "ProjectAssetsFile" }.Select(p => "-getProperty:" + p));
            arguments.Add("-getItem:ProjectReference");
            arguments.AddRange(globalProperties);
            ProcessResult result = Run(arguments);
            string json = result.Stdout.Trim();
            if (!result.Succeeded || !json.StartsWith('{'))
            {
                throw new ToolException(
                    ExitCodes.BuildFailed,
                    $"could not evaluate {project}: {Git.FirstLines(result.Stdout + result.Stderr, 8)}",
                    "make sure the SDK is 8.0 or later (`dotnet --version`) and the project file is intact");
            }

            using JsonDocument document = JsonDocument.Parse(json);
            JsonElement root = document.RootElement;
            string Property(string name) =>
                root.TryGetProperty("Properties", out JsonElement properties) && properties.TryGetProperty(name, out JsonElement value) ? value.GetString() ?? "" : "";

            var references = new List<string>();
            if (root.TryGetProperty("Items", out JsonElement items) && items.TryGetProperty("ProjectReference", out JsonElement referenceItems))
            {
                foreach (JsonElement reference in referenceItems.EnumerateArray())
                {
                    string? full = reference.TryGetProperty("FullPath", out JsonElement fullPath) ? fullPath.GetString() : null;
                    if (full != null)
                    {
                        references.Add(Path.GetFullPath(full.Replace('\\', Path.DirectorySeparatorChar)));
                    }
                }
            }

            string frameworks = Property("TargetFrameworks");
            if (frameworks.Trim().Length == 0)
            {
                frameworks = Property("TargetFramework");
            }

            return new ProjectEvaluation(
                frameworks.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Distinct(StringComparer.OrdinalIgnoreCase).ToList(),
                Property("PackageId"),
                Property("PackageVersion"),
                !string.Equals(Property("IsPackable"), "false", StringComparison.OrdinalIgnoreCase),
                references,
                Property("ProjectAssetsFile"));
        }

        /// <summary>
        /// The assembly a build produced, from the classic logger's "ProjectName -> path" line (saves another
        /// evaluation); null if the line is missing.
        /// </summary>
        public static string? BuiltAssembly(ProcessResult build, string project)
        {
            string name = Path.GetFileNameWithoutExtension(project);
            string? found = null;
            foreach (string line in build.Stdout.Replace("\r\n", "\n").Split('\n'))
            {
                string trimmed = line.Trim();
                string prefix = name + " -> ";
                if (trimmed.StartsWith(prefix, StringComparison.Ordinal))
                {
                    found = trimmed.Substring(prefix.Length).Trim();
                }
            }

            return found;
        }

        /// <summary>The lines of MSBuild output that carry errors, de-duplicated (multi-targeting repeats them).</summary>
        public static IReadOnlyList<string> ErrorLines(ProcessResult result)
        {
            return (result.Stdout + "\n" + result.Stderr)
                .Replace("\r\n", "\n")
                .Split('\n')
                .Select(l => l.Trim())
                .Where(l => l.Contains(": error ", StringComparison.Ordinal) || l.StartsWith("error ", StringComparison.Ordinal) || l.Contains("error NU", StringComparison.Ordinal))
                .Distinct(StringComparer.Ordinal)
                .ToList();
        }
    }

    /// <summary>What one evaluation of a project says.</summary>
    internal sealed class ProjectEvaluation
    {
        public ProjectEvaluation(IReadOnlyList<string> frameworks, string packageId, string packageVersion, bool isPackable, IReadOnlyList<string> projectReferences, string assetsFile)
        {
            AssetsFile = assetsFile;
            Frameworks = frameworks;
            PackageId = packageId;
            PackageVersion = packageVersion;
            IsPackable = isPackable;
            ProjectReferences = projectReferences;
        }

        public IReadOnlyList<string> Frameworks { get; }

        public string PackageId { get; }

        public string PackageVersion { get; }

        public bool IsPackable { get; }

        public IReadOnlyList<string> ProjectReferences { get; }

        /// <summary>obj/project.assets.json: what the restore resolved, and its warnings.</summary>
        public string AssetsFile { get; }
    }
}
