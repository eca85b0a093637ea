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

        /// <summary>An evaluated MSBuild property (dotnet msbuild -getProperty), without building.</summary>
        public string GetProperty(string project, string property, params string[] globalProperties)
        {
            ProcessResult result = Run(new[] { "msbuild", project, "-nologo", "-getProperty:" + property }.Concat(globalProperties));
            if (!result.Succeeded)
            {
                throw new ToolException(
                    ExitCodes.BuildFailed,
                    $"could not evaluate {property} of {project}: {Git.FirstLines(result.Stdout + result.Stderr, 8)}",
                    "make sure the SDK is 8.0 or later (`dotnet --version`) and the project file is intact");
            }

            return result.Stdout.Trim();
        }

        /// <summary>Full paths of the project's ProjectReference items (dotnet msbuild -getItem).</summary>
        public IReadOnlyList<string> ProjectReferences(string project)
        {
            ProcessResult result = Run(new[] { "msbuild", project, "-nologo", "-getItem:ProjectReference" });
            if (!result.Succeeded)
            {
                throw new ToolException(ExitCodes.BuildFailed, $"could not list the project references of {project}: {Git.FirstLines(result.Stdout + result.Stderr, 8)}");
            }

            string json = result.Stdout.Trim();
            if (json.Length == 0 || !json.StartsWith('{'))
            {
                return Array.Empty<string>();
            }

            using JsonDocument document = JsonDocument.Parse(json);
            if (!document.RootElement.TryGetProperty("Items", out JsonElement items) || !items.TryGetProperty("ProjectReference", out JsonElement references))
            {
                return Array.Empty<string>();
            }

            var paths = new List<string>();
            foreach (JsonElement reference in references.EnumerateArray())
            {
                string? full = reference.TryGetProperty("FullPath", out JsonElement fullPath) ? fullPath.GetString() : null;
                if (full != null)
                {
                    paths.Add(Path.GetFullPath(full.Replace('\\', Path.DirectorySeparatorChar)));
                }
            }

            return paths;
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
}
