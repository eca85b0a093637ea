namespace PatchTool;

/// <summary>
/// Exit codes: part of the tool's contract (scripts/README.md), so scripts and CI can tell "fix your checkout" from
/// "fix the patches" without parsing text.
/// </summary>
internal static class ExitCodes
{
    public const int Success = 0;
    public const int InternalError = 1;
    public const int Usage = 2;
    public const int Environment = 3;
    public const int InvalidSeries = 4;
    public const int CheckoutState = 5;
    public const int Conflict = 6;
    public const int PatchesOutOfDate = 7;
    public const int BuildFailed = 8;
}

/// <summary>
/// An expected failure: the message says what went wrong, the hint what to do. Program.Run prints both and exits with
/// the code; no stack trace, because nothing the user did would be explained by one.
/// </summary>
internal sealed class ToolException(int exitCode, string message, string? hint = null) : Exception(message)
{
    public int ExitCode { get; } = exitCode;

    public string? Hint { get; } = hint;
}
