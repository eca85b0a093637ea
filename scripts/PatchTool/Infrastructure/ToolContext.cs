using System;
using System.IO;
using System.Reflection;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>What every command gets: output writers, the environment, the parsed command line, and locations.</summary>
    internal sealed class ToolContext
    {
        private string? gitExecutable;

        public ToolContext(CommandLine commandLine, TextWriter stdout, TextWriter stderr, ToolEnvironment environment, string currentDirectory)
        {
            CommandLine = commandLine;
            Out = stdout;
            Err = stderr;
            Environment = environment;
            CurrentDirectory = currentDirectory;
        }

        public CommandLine CommandLine { get; }

        public TextWriter Out { get; }

        public TextWriter Err { get; }

        public ToolEnvironment Environment { get; }

        public string CurrentDirectory { get; }

        public static string ToolVersion =>
            typeof(ToolContext).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "0.0.0";

        public string GitExecutable => gitExecutable ??= Git.Locate(Environment);

        /// <summary>The --adbc checkout (default: the current directory).</summary>
        public AdbcCheckout OpenCheckout()
        {
            string path = Path.GetFullPath(CommandLine.Value("adbc") ?? CurrentDirectory, CurrentDirectory);
            return AdbcCheckout.Open(this, path);
        }

        public PatchRepository OpenPatches()
        {
            string? patches = CommandLine.Value("patches");
            string? overlay = CommandLine.Value("overlay");
            string? root = null;
            if (patches == null || overlay == null)
            {
                root = RepositoryLocator.FindRoot();
                if (root == null)
                {
                    throw new ToolException(
                        ExitCodes.Environment,
                        $"cannot find this repository's patches/ and driver-overlay/ folders from {AppContext.BaseDirectory}.",
                        "pass --patches DIR and --overlay DIR, or run the tool through scripts/patch in a clone of the repository");
                }
            }

            return new PatchRepository(
                Path.GetFullPath(patches ?? Path.Combine(root!, "patches"), CurrentDirectory),
                Path.GetFullPath(overlay ?? Path.Combine(root!, "driver-overlay"), CurrentDirectory));
        }

        public void Info(string line) => Out.WriteLine(line);

        public void Warn(string line) => Err.WriteLine("warning: " + line);
    }
}
