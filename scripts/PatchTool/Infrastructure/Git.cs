using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// The git CLI, run in one directory. Every call pins the settings that would otherwise make output
    /// depend on the user's configuration (colour, path quoting), and turns a failure into a ToolException
    /// that quotes git's own message.
    /// </summary>
    internal sealed class Git
    {
        private static readonly string[] PinnedConfig =
        {
            "-c", "color.ui=false",
            "-c", "core.quotePath=false",
            "-c", "advice.detachedHead=false",
            "-c", "commit.gpgSign=false",
        };

        private readonly ToolEnvironment environment;

        private readonly Dictionary<string, string> gitPaths = new Dictionary<string, string>(StringComparer.Ordinal);

        public Git(string executable, string workingDirectory, ToolEnvironment environment)
        {
            Executable = executable;
            WorkingDirectory = workingDirectory;
            this.environment = environment;
        }

        public string Executable { get; }

        public string WorkingDirectory { get; }

        /// <summary>Finds git on PATH or fails with what to do.</summary>
        public static string Locate(ToolEnvironment environment)
        {
            string? found = ExecutableLocator.Find("git", environment.Get("PATH"));
            if (found == null)
            {
                throw new ToolException(
                    ExitCodes.Environment,
                    "git was not found on PATH; the patch tool drives the git command line to apply and export patches.",
                    OperatingSystem.IsWindows()
                        ? "install Git for Windows (https://git-scm.com/download/win, or `winget install Git.Git`) and open a new terminal"
                        : "install git (Debian/Ubuntu: `sudo apt-get install git`; Fedora: `sudo dnf install git`; macOS: `xcode-select --install`)");
            }

            return found;
        }

        public Git In(string directory) => new Git(Executable, directory, environment);

        public ProcessResult Run(IEnumerable<string> arguments, IReadOnlyDictionary<string, string?>? extraEnvironment = null, byte[]? stdin = null)
        {
            return ProcessRunner.Run(
                Executable,
                PinnedConfig.Concat(arguments),
                WorkingDirectory,
                environment.ChildEnvironment(extraEnvironment),
                stdin);
        }

        public ProcessResult Run(params string[] arguments) => Run((IEnumerable<string>)arguments);

        /// <summary>Runs git and returns trimmed stdout, or throws with git's message and <paramref name="hint"/>.</summary>
        public string Checked(IEnumerable<string> arguments, string? hint = null, IReadOnlyDictionary<string, string?>? extraEnvironment = null, int exitCode = ExitCodes.Environment)
        {
            List<string> list = arguments.ToList();
            ProcessResult result = Run(list, extraEnvironment);
            if (!result.Succeeded)
            {
                throw new ToolException(
                    exitCode,
                    $"`git {string.Join(" ", list)}` failed in {WorkingDirectory} (exit {result.ExitCode}): {FirstLines(result.Stderr + result.Stdout, 8)}",
                    hint);
            }

            return result.Stdout.Trim();
        }

        public string Checked(params string[] arguments) => Checked((IEnumerable<string>)arguments);

        /// <summary>Resolves a path inside the git directory (works for linked worktrees too) to an absolute path.</summary>
        public string GitPath(string relative)
        {
            // Cached: commands ask for the same few paths many times, and each ask would be a git process.
            lock (gitPaths)
            {
                if (!gitPaths.TryGetValue(relative, out string? path))
                {
                    path = Path.GetFullPath(Path.Combine(WorkingDirectory, Checked("rev-parse", "--git-path", relative)));
                    gitPaths[relative] = path;
                }

                return path;
            }
        }

        public static string FirstLines(string text, int count)
        {
            string[] lines = text.Replace("\r\n", "\n").Split('\n', StringSplitOptions.RemoveEmptyEntries);
            string joined = string.Join(Environment.NewLine + "    ", lines.Take(count));
            return lines.Length > count ? joined + Environment.NewLine + "    ..." : joined;
        }
    }
}
