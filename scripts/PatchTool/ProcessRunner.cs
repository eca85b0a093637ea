using System.Diagnostics;
using System.Threading.Tasks;

namespace PatchTool;

/// <summary>The outcome of one child process; stdout as raw bytes, because patches must round-trip byte for byte.</summary>
internal sealed record ProcessResult(int ExitCode, byte[] StdoutBytes, string Stderr)
{
    public string Stdout => Encoding.UTF8.GetString(StdoutBytes);

    public string Output => Stdout + Stderr;

    public bool Succeeded => ExitCode == 0;
}

/// <summary>Runs child processes with both streams drained concurrently, so a chatty child (dotnet, git am) never blocks on a full pipe.</summary>
internal static class ProcessRunner
{
    /// <summary>Runs <paramref name="executable"/>; an <paramref name="environment"/> value of null removes that variable.</summary>
    public static ProcessResult Run(string executable, IEnumerable<string> arguments, string workingDirectory, IReadOnlyDictionary<string, string?> environment, byte[]? stdin = null)
    {
        var start = new ProcessStartInfo(executable)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            StandardErrorEncoding = Encoding.UTF8,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach ((string name, string? value) in environment)
        {
            if (value == null)
            {
                start.Environment.Remove(name);
            }
            else
            {
                start.Environment[name] = value;
            }
        }

        using var process = new Process { StartInfo = start };
        try
        {
            process.Start();
        }
        catch (Exception ex) when (ex is System.ComponentModel.Win32Exception or FileNotFoundException)
        {
            throw new ToolException(ExitCodes.Environment, $"could not start '{executable}': {ex.Message}", "check that it is installed and on PATH");
        }

        Task<byte[]> stdout = ReadAllAsync(process.StandardOutput.BaseStream);
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        if (stdin != null)
        {
            process.StandardInput.BaseStream.Write(stdin);
        }

        process.StandardInput.Close();
        process.WaitForExit();
        return new ProcessResult(process.ExitCode, stdout.GetAwaiter().GetResult(), stderr.GetAwaiter().GetResult());
    }

    /// <summary>
    /// The full path of <paramref name="name"/> on a PATH value, or null. The tool looks executables up itself so that
    /// "git is missing" is reported as such, with what to install, before anything is touched.
    /// </summary>
    public static string? Find(string name, string? pathVariable)
    {
        string[] candidates = OperatingSystem.IsWindows() ? [name + ".exe", name + ".cmd", name] : [name];
        foreach (string directory in (pathVariable ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            foreach (string candidate in candidates)
            {
                string full = Path.Combine(directory.Trim('"'), candidate);
                if (File.Exists(full))
                {
                    return full;
                }
            }
        }

        return null;
    }

    private static async Task<byte[]> ReadAllAsync(Stream stream)
    {
        using var buffer = new MemoryStream();
        await stream.CopyToAsync(buffer).ConfigureAwait(false);
        return buffer.ToArray();
    }
}
