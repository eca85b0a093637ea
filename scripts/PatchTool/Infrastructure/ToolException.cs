using System;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// An expected failure: the message says what went wrong, the hint says what to do about it.
    /// Program.Run prints both and returns the exit code; no stack trace, because the user did nothing wrong
    /// that a stack trace would help with.
    /// </summary>
    internal sealed class ToolException : Exception
    {
        public ToolException(int exitCode, string message, string? hint = null)
            : base(message)
        {
            ExitCode = exitCode;
            Hint = hint;
        }

        public int ExitCode { get; }

        public string? Hint { get; }
    }
}
