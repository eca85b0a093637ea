using System.Reflection;

namespace PatchTool;

/// <summary>
/// What every command gets: the output writers, the environment, the current directory and the global options.
/// Environment overrides exist so tests run the tool in-process with another PATH or an isolated git configuration
/// without changing the test process's own environment, which other tests share.
/// </summary>
internal sealed class ToolContext(
    TextWriter stdout, TextWriter stderr, IReadOnlyDictionary<string, string?>? environment, string currentDirectory, string? adbc, string? patches, string? overlay)
{
    private string? gitExecutable;

    public TextWriter Out { get; } = stdout;

    public TextWriter Err { get; } = stderr;

    public string CurrentDirectory { get; } = currentDirectory;

    /// <summary>True when --adbc was given (bases then also says where that checkout stands).</summary>
    public bool CheckoutGiven => adbc != null;

    public static string ToolVersion =>
        typeof(ToolContext).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "0.0.0";

    public string GitExecutable => gitExecutable ??= ProcessRunner.Find("git", Variable("PATH")) ?? throw new ToolException(
        ExitCodes.Environment,
        "git was not found on PATH; the patch tool drives the git command line to apply and export patches.",
        OperatingSystem.IsWindows()
            ? "install Git for Windows (`winget install Git.Git`) and open a new terminal"
            : "install git (Debian/Ubuntu: `sudo apt-get install git`; Fedora: `sudo dnf install git`; macOS: `xcode-select --install`)");

    public string? Variable(string name) =>
        environment != null && environment.TryGetValue(name, out string? value) ? value : System.Environment.GetEnvironmentVariable(name);

    /// <summary>The overrides plus <paramref name="extra"/>, for a child process.</summary>
    public Dictionary<string, string?> ChildEnvironment(IReadOnlyDictionary<string, string?>? extra = null)
    {
        var merged = new Dictionary<string, string?>(environment ?? new Dictionary<string, string?>(), StringComparer.Ordinal);
        foreach ((string name, string? value) in extra ?? new Dictionary<string, string?>())
        {
            merged[name] = value;
        }

        return merged;
    }

    public string FullPath(string path) => Path.GetFullPath(path, CurrentDirectory);

    /// <summary>The --adbc checkout (default: the current directory).</summary>
    public AdbcCheckout OpenCheckout() => AdbcCheckout.Open(this, FullPath(adbc ?? CurrentDirectory));

    public PatchRepository OpenPatches()
    {
        string? root = patches != null && overlay != null ? null : RepositoryRoot() ?? throw new ToolException(
            ExitCodes.Environment,
            $"cannot find this repository's patches/ and driver-overlay/ folders from {AppContext.BaseDirectory}.",
            "pass --patches DIR and --overlay DIR, or run the tool through scripts/patch in a clone of the repository");
        return new PatchRepository(FullPath(patches ?? Path.Combine(root!, "patches")), FullPath(overlay ?? Path.Combine(root!, "driver-overlay")));
    }

    /// <summary>
    /// This repository's root, found by walking up from the tool's binary (the wrappers build it under artifacts/), so
    /// the default patches/ and driver-overlay/ do not depend on the current directory: users run the tool from inside
    /// their driver checkout.
    /// </summary>
    public static string? RepositoryRoot()
    {
        for (string? directory = AppContext.BaseDirectory; directory != null; directory = Path.GetDirectoryName(directory.TrimEnd('/', '\\')))
        {
            if (File.Exists(Path.Combine(directory, "scripts", "PatchTool", "PatchTool.csproj")))
            {
                return directory;
            }
        }

        return null;
    }

    public void Info(string line) => Out.WriteLine(line);

    public void Warn(string line) => Err.WriteLine("warning: " + line);
}
