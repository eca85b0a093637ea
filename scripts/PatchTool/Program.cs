using System.CommandLine;

namespace PatchTool;

/// <summary>
/// The command line (System.CommandLine) and the error contract: a ToolException prints "error:" and "hint:" on stderr
/// and exits with its code (scripts/README.md). <see cref="Run"/> takes its streams, environment and directory, so
/// tests run the whole tool in-process.
/// </summary>
public static class Program
{
    public static int Main(string[] args) => Run(args, Console.Out, Console.Error);

    /// <summary>Runs the tool; <paramref name="environment"/> overrides variables (PATH, git configuration) for this run only.</summary>
    public static int Run(string[] args, TextWriter stdout, TextWriter stderr, IReadOnlyDictionary<string, string?>? environment = null, string? currentDirectory = null)
    {
        var adbc = new Option<string?>("--adbc") { Description = "the driver checkout: a git clone of apache/arrow-adbc or adbc-drivers/databricks (default: the current directory)", HelpName = "PATH", Recursive = true };
        var patches = new Option<string?>("--patches") { Description = "the patches folder (default: patches/ of this repository)", HelpName = "DIR", Recursive = true };
        var overlay = new Option<string?>("--overlay") { Description = "the overlay folder (default: driver-overlay/ of this repository)", HelpName = "DIR", Recursive = true };
        RootCommand root = Commands(r => new ToolContext(
            stdout, stderr, environment, currentDirectory ?? Directory.GetCurrentDirectory(), r.GetValue(adbc), r.GetValue(patches), r.GetValue(overlay)));
        root.Options.Add(adbc);
        root.Options.Add(patches);
        root.Options.Add(overlay);
        ParseResult parsed = root.Parse(args.Length == 0 ? ["--help"] : args);
        try
        {
            if (parsed.Errors.Count > 0)
            {
                string command = parsed.CommandResult.Command == root ? "" : parsed.CommandResult.Command.Name + " ";
                throw new ToolException(ExitCodes.Usage, string.Join(" ", parsed.Errors.Select(e => e.Message)), $"run `scripts/patch {command}--help`");
            }

            return parsed.Invoke(new InvocationConfiguration { Output = stdout, Error = stderr, EnableDefaultExceptionHandler = false });
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
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
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

    private static RootCommand Commands(Func<ParseResult, ToolContext> context)
    {
        var bases = new Command("bases", "list the supported bases (tag, repository, commit, patches, shared series); with --adbc, where that checkout stands");
        bases.SetAction(r => BasesCommand.Run(context(r)));

        var threeWay = new Option<bool>("--3way") { Description = "let git am fall back to a 3-way merge and stop at a conflict for you to resolve (rebasing onto a new tag)" };
        var apply = new Command("apply", "commit the overlay, then git am the series in order, on a checkout at a supported base; records provenance; a second apply is a no-op") { threeWay };
        apply.SetAction(r => ApplyCommand.Run(context(r), r.GetValue(threeWay)));

        var baseTag = new Option<string?>("--base") { Description = "check this base's series (its commit must be in the clone)", HelpName = "TAG" };
        var all = new Option<bool>("--all") { Description = "check every base's series" };
        var check = new Command("check", "dry run: would the series apply? (validates it, applies it to a scratch index; changes nothing)") { baseTag, all };
        check.SetAction(r => CheckCommand.Run(context(r), r.GetValue(baseTag), r.GetValue(all)));

        var checkOnly = new Option<bool>("--check") { Description = "write nothing; exit 7 listing the files that would change" };
        var export = new Command("export", "rewrite the series (patches/<base>/ and the shared series it includes) from the patched checkout's commits, byte-stable") { checkOnly };
        export.SetAction(r => ExportCommand.Run(context(r), r.GetValue(checkOnly)));

        var configuration = new Option<string>("--configuration", "-c") { Description = "build configuration", HelpName = "CONFIG", DefaultValueFactory = _ => "Release" };
        var property = new Option<string[]>("--property", "-p") { Description = "an MSBuild property, repeatable (e.g. -p TargetFrameworks=net8.0)", HelpName = "NAME=VALUE" };
        var fit = new Option<bool>("--fit-nuget-source") { Description = "where your NuGet source substitutes or lacks a pinned dependency, add the smallest MSBuild override (printed and recorded) instead of stopping" };
        BuildOptions Build(ParseResult r) => new(r.GetValue(configuration)!, Properties(r.GetValue(property)), r.GetValue(fit));

        var framework = new Option<string>("--framework", "-f") { Description = "the target framework to publish", HelpName = "TFM", DefaultValueFactory = _ => "net8.0" };
        var publishOutput = new Option<string>("--output", "-o") { Description = "the folder to publish into", HelpName = "DIR", Required = true };
        var allowUnpatched = new Option<bool>("--allow-unpatched") { Description = "publish or build a checkout that is not patched (the stock driver of a supported base)" };
        var notes = new Option<string?>("--build-notes") { Description = "write the overrides, the packages not served and the substituted versions into this JSON file, keeping its other keys (scripts/verify's report reads it)", HelpName = "FILE" };
        var publish = new Command("publish", "restore and dotnet publish the driver for one target framework into a folder a host can load") { configuration, property, fit, framework, publishOutput, allowUnpatched, notes };
        publish.SetAction(r => DriverCommands.Publish(context(r), Build(r), r.GetValue(framework)!, r.GetValue(publishOutput)!, r.GetValue(allowUnpatched), r.GetValue(notes)));

        var buildFramework = new Option<string>("--framework", "-f") { Description = "the target framework to build", HelpName = "TFM", Required = true };
        var buildCommand = new Command("build", "restore and dotnet build one target framework of the driver (no folder to load: a compile check, e.g. of netstandard2.0 and net472)") { configuration, property, fit, buildFramework, allowUnpatched, notes };
        buildCommand.SetAction(r => DriverCommands.Build(context(r), Build(r), r.GetValue(buildFramework)!, r.GetValue(allowUnpatched), r.GetValue(notes)));

        var suffix = new Option<string?>("--version-suffix") { Description = "NuGet version suffix (default: dbxmem.<series version>)", HelpName = "SUFFIX" };
        var packOutput = new Option<string>("--output", "-o") { Description = "folder for the packages", HelpName = "DIR", DefaultValueFactory = _ => "dbxmem-packages" };
        var pack = new Command("pack", "dotnet pack the patched driver and the projects it references, with a provenance JSON beside the packages") { configuration, property, fit, suffix, packOutput };
        pack.SetAction(r => DriverCommands.Pack(context(r), Build(r), r.GetValue(suffix), r.GetValue(packOutput)!));

        var prsOutput = new Option<string>("--output", "-o") { Description = "the folder for the PR files (<id>.md; with --verify also <id>.trx)", HelpName = "DIR", Required = true };
        var verify = new Option<bool>("--verify") { Description = "build the driver and upstream's test project on each branch and run dotnet test; exit 8 if any branch fails" };
        var filter = new Option<string>("--filter") { Description = "the dotnet test filter for --verify", HelpName = "TEST_FILTER", DefaultValueFactory = _ => PrsCommand.DefaultFilter };
        var prs = new Command("prs", "make the base's series into PR-sized branches against upstream (patches/<base>/prs.json), one commit each in dependency order, with a description file per PR") { prsOutput, verify, filter, property, fit };
        prs.SetAction(r => PrsCommand.Run(context(r), r.GetValue(prsOutput)!, r.GetValue(verify), r.GetValue(filter)!, new BuildOptions("", Properties(r.GetValue(property)), r.GetValue(fit))));

        return new RootCommand(
            "dbxmem patch tool: applies the dbxmem memory patch series to a checkout of apache/arrow-adbc or adbc-drivers/databricks, " +
            "exports it back, publishes, builds and packs the patched driver, and makes PR branches for upstream (scripts/README.md).\n" +
            "Exit codes: 0 ok, 1 internal error, 2 usage, 3 environment (git, dotnet, paths), 4 invalid series, 5 checkout state, " +
            "6 a patch does not apply, 7 patches out of date, 8 restore, build or pack failed.")
        {
            bases, apply, check, export, publish, buildCommand, pack, prs,
        };
    }

    private static IReadOnlyList<string> Properties(string[]? values) => (values ?? []).Select(p => p.IndexOf('=') > 0 ? p : throw new ToolException(
        ExitCodes.Usage, $"--property '{p}' is not NAME=VALUE.", "e.g. -p TargetFrameworks=net8.0")).ToList();
}
