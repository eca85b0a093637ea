namespace PatchTool.Tests.Support;

/// <summary>A temporary folder (in <paramref name="parent"/>, default the system's) deleted with everything in it when disposed.</summary>
internal sealed class TempDirectory(string prefix = "patchtool-tests-", string? parent = null) : IDisposable
{
    public string Path { get; } = Directory.CreateDirectory(System.IO.Path.Combine(parent ?? System.IO.Path.GetTempPath(), prefix + Guid.NewGuid().ToString("N"))).FullName;

    public string Combine(params string[] parts) => System.IO.Path.Combine([Path, .. parts]);

    public void Dispose() => Delete(Path);

    public static void Delete(string path)
    {
        try
        {
            // git writes read-only object files; Windows refuses to delete those until the flag is cleared.
            foreach (string file in Directory.EnumerateFiles(path, "*", SearchOption.AllDirectories))
            {
                File.SetAttributes(file, FileAttributes.Normal);
            }

            Directory.Delete(path, recursive: true);
        }
        catch (IOException)
        {
            // A leftover temporary folder must not fail a test that passed (another run may be deleting it too).
        }
    }
}

/// <summary>Exit code and captured output of one tool run.</summary>
internal sealed record ToolResult(int ExitCode, string Stdout, string Stderr)
{
    public override string ToString() => $"exit {ExitCode}\n--- stdout ---\n{Stdout}\n--- stderr ---\n{Stderr}";
}

/// <summary>A fact that needs bash: skipped, with the reason, on Windows.</summary>
public sealed class UnixFactAttribute : FactAttribute
{
    public UnixFactAttribute()
    {
        if (OperatingSystem.IsWindows())
        {
            Skip = "runs a bash script of scripts/; on Windows the patch wrapper is scripts/patch.ps1, which is not run here";
        }
    }
}
