namespace DbxMem.PatchTool.Tests.Support
{
    /// <summary>Exit code and captured output of one tool run.</summary>
    internal sealed class ToolResult
    {
        public ToolResult(int exitCode, string stdout, string stderr)
        {
            ExitCode = exitCode;
            Stdout = stdout;
            Stderr = stderr;
        }

        public int ExitCode { get; }

        public string Stdout { get; }

        public string Stderr { get; }

        public string Output => Stdout + Stderr;

        public override string ToString() => $"exit {ExitCode}\n--- stdout ---\n{Stdout}\n--- stderr ---\n{Stderr}";
    }
}
