namespace PatchTool;

/// <summary>
/// The git CLI in one directory. Every call pins the settings that would make output depend on the user's
/// configuration (colour, path quoting, signing), and <see cref="Checked(string[])"/> turns a failure into a
/// ToolException that quotes git's own message.
/// </summary>
internal sealed class Git(ToolContext context, string directory)
{
    private static readonly string[] PinnedConfig =
        ["-c", "color.ui=false", "-c", "core.quotePath=false", "-c", "advice.detachedHead=false", "-c", "commit.gpgSign=false"];

    private readonly Dictionary<string, string> gitPaths = new(StringComparer.Ordinal);

    public string Directory { get; } = directory;

    public ProcessResult Run(IEnumerable<string> arguments, IReadOnlyDictionary<string, string?>? extraEnvironment = null, byte[]? stdin = null) =>
        ProcessRunner.Run(context.GitExecutable, PinnedConfig.Concat(arguments), Directory, context.ChildEnvironment(extraEnvironment), stdin);

    public ProcessResult Run(params string[] arguments) => Run((IEnumerable<string>)arguments);

    /// <summary>Trimmed stdout, or a ToolException (exit <paramref name="exitCode"/>) with git's message and <paramref name="hint"/>.</summary>
    public string Checked(IReadOnlyList<string> arguments, IReadOnlyDictionary<string, string?>? extraEnvironment = null, string? hint = null, int exitCode = ExitCodes.Environment)
    {
        ProcessResult result = Run(arguments, extraEnvironment);
        return result.Succeeded ? result.Stdout.Trim() : throw new ToolException(
            exitCode, $"`git {string.Join(" ", arguments)}` failed in {Directory} (exit {result.ExitCode}): {FirstLines(result.Stderr + result.Stdout, 8)}", hint);
    }

    public string Checked(params string[] arguments) => Checked((IReadOnlyList<string>)arguments);

    /// <summary>A path inside the git directory (right for linked worktrees too), cached: commands ask for the same few many times.</summary>
    public string GitPath(string relative)
    {
        lock (gitPaths)
        {
            if (!gitPaths.TryGetValue(relative, out string? path))
            {
                path = Path.GetFullPath(Checked("rev-parse", "--git-path", relative), Directory);
                gitPaths[relative] = path;
            }

            return path;
        }
    }

    public static string FirstLines(string text, int count)
    {
        string[] lines = text.Replace("\r\n", "\n").Split('\n', StringSplitOptions.RemoveEmptyEntries);
        return string.Join("\n    ", lines.Take(count)) + (lines.Length > count ? "\n    ..." : "");
    }
}
