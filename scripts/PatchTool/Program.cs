using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using DbxMem.PatchTool.Commands;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool
{
    /// <summary>
    /// Entry point. <see cref="Run"/> is the whole tool with its output streams passed in, so tests run it
    /// in-process; Main only binds it to the console.
    /// </summary>
    public static class Program
    {
        private static readonly OptionSpec[] GlobalOptions =
        {
            new OptionSpec("adbc", true, "the apache/arrow-adbc git checkout (default: the current directory)", valueName: "PATH"),
            new OptionSpec("patches", true, "the patches folder (default: patches/ of this repository)", valueName: "DIR"),
            new OptionSpec("overlay", true, "the overlay folder (default: driver-overlay/ of this repository)", valueName: "DIR"),
            new OptionSpec("version", false, "print the tool version"),
        };

        private static readonly IReadOnlyList<CommandInfo> Commands = new[]
        {
            new CommandInfo(
                "bases",
                "list the supported upstream tags and their commits",
                "Lists patches/<tag>/ folders (tag, commit, number of patches, the shared series each includes). With --adbc,\n" +
                "marks the base the checkout is at " +
                "(or was patched from) and warns when the checkout's tag points elsewhere than base.json says.",
                Array.Empty<OptionSpec>(),
                BasesCommand.Run),
            new CommandInfo(
                "apply",
                "apply the overlay and the series to a checkout at a supported base",
                "Requires HEAD at a supported base commit and a clean tree. Commits the overlay (plus a generated\n" +
                "PatchSeriesInfo.cs) as one commit, then `git am`s each patch in series order (author, date and message\n" +
                "preserved; commits are reproducible). Records provenance in <git-dir>/dbxmem-patch/provenance.json.\n" +
                "Already patched by this exact series: nothing to do (exit 0). A patch that does not apply: nothing is changed,\n" +
                "and the error names the patch and the files.",
                new[]
                {
                    new OptionSpec("force", false, "move uncommitted changes into a git stash entry first"),
                    new OptionSpec("3way", false, "let git am fall back to a 3-way merge, and stop at a conflict for you to resolve (rebasing)"),
                },
                ApplyCommand.Run),
            new CommandInfo(
                "check",
                "dry run: would the series apply? (changes nothing)",
                "Validates the series (files, patch headers) and applies it to a scratch index built from the base commit;\n" +
                "the checkout's index, files and HEAD are not touched. Default base: HEAD's, or the recorded one if patched.",
                new[]
                {
                    new OptionSpec("base", true, "check the series of this tag (its commit must be in the clone)", valueName: "TAG"),
                    new OptionSpec("all", false, "check every base's series"),
                    new OptionSpec("3way", false, "allow 3-way merges, as `apply --3way` would"),
                },
                CheckCommand.Run),
            new CommandInfo(
                "status",
                "show the base, whether patched and by which series, and what changed since",
                "Reports the base, the applied series version and hash, whether the repository's series still matches,\n" +
                "commits made after apply, and overlay or other files modified since apply. Always exits 0 when it can report.",
                new[] { new OptionSpec("json", false, "print the status as JSON") },
                StatusCommand.Run),
            new CommandInfo(
                "revert",
                "return the checkout to the recorded base commit",
                "git reset --hard to the recorded base and removes the provenance. Refuses when that would lose work\n" +
                "(uncommitted changes, commits made after apply, a git am session) unless --force.",
                new[] { new OptionSpec("force", false, "discard that work (uncommitted changes are moved into a git stash entry first)") },
                RevertCommand.Run),
            new CommandInfo(
                "export",
                "regenerate patches/<base-tag>/ from the patched checkout's commits",
                "Writes one patch per commit after the overlay commit (deterministic format-patch; file name from the\n" +
                "Patch-Filename: trailer apply adds, or from the subject), deletes patch files no longer produced, and\n" +
                "rewrites series. The commits of a shared series the tag's series includes go to patches/shared/<name>/,\n" +
                "once, whichever of its tags is exported. Changes to the overlay folder are never exported (edit\n" +
                "driver-overlay/ instead).",
                new[] { new OptionSpec("check", false, "write nothing; exit 7 and list the files that would change") },
                ExportCommand.Run),
            new CommandInfo(
                "build",
                "dotnet build the patched driver, per target framework",
                "Restores, then builds the driver project once per target framework (net8.0, netstandard2.0, net472 for the\n" +
                "Databricks driver) and reports each. Exit 8 if any target fails.",
                new[]
                {
                    new OptionSpec("configuration", true, "build configuration (default: Release)", alias: "c", valueName: "CONFIG"),
                    new OptionSpec("framework", true, "build only these targets (comma-separated)", alias: "f", valueName: "TFM"),
                    new OptionSpec("allow-unpatched", false, "build a checkout that is not patched (the stock driver of a supported base)"),
                    new OptionSpec("property", true, "an MSBuild property for restore and build, repeatable (e.g. -p NuGetAudit=false)", alias: "p", valueName: "NAME=VALUE"),
                },
                BuildCommand.Run),
            new CommandInfo(
                "pack",
                "dotnet pack the patched driver as NuGet packages with a provenance JSON",
                "Packs the driver project and the projects it references with one version suffix (default\n" +
                "dbxmem.<series version>, e.g. 0.21.0-dbxmem.1.0.0), and writes <id>.<version>.provenance.json beside them.",
                new[]
                {
                    new OptionSpec("version-suffix", true, "NuGet version suffix (default: dbxmem.<series version>)", valueName: "SUFFIX"),
                    new OptionSpec("output", true, "folder for the packages (default: ./dbxmem-packages)", alias: "o", valueName: "DIR"),
                    new OptionSpec("configuration", true, "build configuration (default: Release)", alias: "c", valueName: "CONFIG"),
                    new OptionSpec("property", true, "an MSBuild property for pack, repeatable (e.g. -p NuGetAudit=false)", alias: "p", valueName: "NAME=VALUE"),
                },
                PackCommand.Run),
        };

        public static int Main(string[] args)
        {
            return Run(args, Console.Out, Console.Error);
        }

        /// <summary>Runs the tool. <paramref name="environment"/> overrides variables (PATH, git config) for this run only.</summary>
        public static int Run(string[] args, TextWriter stdout, TextWriter stderr, IReadOnlyDictionary<string, string?>? environment = null, string? currentDirectory = null)
        {
            try
            {
                CommandLine commandLine = CommandLine.Parse(
                    args,
                    Commands.ToDictionary(c => c.Name, c => (IReadOnlyList<OptionSpec>)c.Options),
                    GlobalOptions);
                if (commandLine.Has("version"))
                {
                    stdout.WriteLine(ToolContext.ToolVersion);
                    return ExitCodes.Success;
                }

                CommandInfo? command = Commands.FirstOrDefault(c => c.Name == commandLine.Command);
                if (commandLine.Help || command == null)
                {
                    stdout.Write(command == null ? GeneralHelp() : command.Help(GlobalOptions));
                    return commandLine.Help || args.Length == 0 ? ExitCodes.Success : ExitCodes.Usage;
                }

                var context = new ToolContext(commandLine, stdout, stderr, new ToolEnvironment(environment), currentDirectory ?? Directory.GetCurrentDirectory());
                return command.Handler(context);
            }
            catch (ToolException ex)
            {
                stderr.WriteLine("error: " + ex.Message);
                if (ex.Hint != null)
                {
                    stderr.WriteLine("hint: " + ex.Hint);
                }

                return ex.ExitCode;
            }
            catch (Exception ex) when (ex is IOException || ex is UnauthorizedAccessException)
            {
                stderr.WriteLine("error: " + ex.Message);
                stderr.WriteLine("hint: check that the paths exist and are writable, and that no other process holds the files");
                return ExitCodes.Environment;
            }
            catch (Exception ex)
            {
                stderr.WriteLine("internal error (please report it with the command you ran): " + ex);
                return ExitCodes.InternalError;
            }
            finally
            {
                stdout.Flush();
                stderr.Flush();
            }
        }

        private static string GeneralHelp()
        {
            var text = new System.Text.StringBuilder();
            text.Append("dbxmem patch tool ").Append(ToolContext.ToolVersion).Append(
                ": applies the dbxmem memory patch series to an apache/arrow-adbc checkout.\n\n" +
                "usage: patch [--adbc PATH] [--patches DIR] [--overlay DIR] COMMAND [options]\n\n" +
                "commands:\n");
            foreach (CommandInfo command in Commands)
            {
                text.Append("  ").Append(command.Name.PadRight(8)).Append("  ").Append(command.Summary).Append('\n');
            }

            text.Append("\nglobal options:\n");
            AppendOptions(text, GlobalOptions);
            text.Append("\n`patch COMMAND --help` describes a command. Exit codes: 0 ok, 1 internal error, 2 usage, 3 environment\n" +
                "(git/dotnet/paths), 4 invalid series, 5 checkout state, 6 patch does not apply, 7 patches out of date, 8 build/pack failed.\n");
            return text.ToString();
        }

        private static void AppendOptions(System.Text.StringBuilder text, IEnumerable<OptionSpec> options)
        {
            foreach (OptionSpec option in options)
            {
                string name = (option.Alias == null ? "" : "-" + option.Alias + ", ") + "--" + option.Name + (option.TakesValue ? " " + option.ValueName : "");
                text.Append("  ").Append(name.PadRight(28)).Append(' ').Append(option.Description).Append('\n');
            }
        }

        private sealed class CommandInfo
        {
            public CommandInfo(string name, string summary, string description, IReadOnlyList<OptionSpec> options, Func<ToolContext, int> handler)
            {
                Name = name;
                Summary = summary;
                Description = description;
                Options = options;
                Handler = handler;
            }

            public string Name { get; }

            public string Summary { get; }

            public string Description { get; }

            public IReadOnlyList<OptionSpec> Options { get; }

            public Func<ToolContext, int> Handler { get; }

            public string Help(IEnumerable<OptionSpec> globalOptions)
            {
                var text = new System.Text.StringBuilder();
                text.Append("usage: patch ").Append(Name).Append(Options.Count > 0 ? " [options]" : "").Append(" [--adbc PATH]\n\n");
                text.Append(Summary).Append(".\n\n").Append(Description).Append('\n');
                if (Options.Count > 0)
                {
                    text.Append("\noptions:\n");
                    AppendOptions(text, Options);
                }

                text.Append("\nglobal options:\n");
                AppendOptions(text, globalOptions);
                text.Append("\nscripts/README.md documents the files each command reads and writes, and the exit codes.\n");
                return text.ToString();
            }
        }
    }
}
