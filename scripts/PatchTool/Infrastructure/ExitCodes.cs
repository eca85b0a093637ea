namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// Process exit codes. They are part of the tool's contract (scripts/README.md lists them),
    /// so scripts and CI can tell "fix your checkout" from "fix the patches" without parsing text.
    /// </summary>
    internal static class ExitCodes
    {
        public const int Success = 0;

        /// <summary>A bug in the tool: an exception nobody anticipated.</summary>
        public const int InternalError = 1;

        /// <summary>Unknown command or option, missing or malformed option value.</summary>
        public const int Usage = 2;

        /// <summary>git or dotnet missing, --adbc not a git work tree, a folder that does not exist.</summary>
        public const int Environment = 3;

        /// <summary>The patch data is invalid: VERSION, base.json, series, or a patch header.</summary>
        public const int InvalidSeries = 4;

        /// <summary>The checkout is in the wrong state: unsupported base, dirty tree, not patched, patched by another series.</summary>
        public const int CheckoutState = 5;

        /// <summary>A patch does not apply (apply, check).</summary>
        public const int Conflict = 6;

        /// <summary>export --check: the patch files differ from what the checkout's commits export to.</summary>
        public const int PatchesOutOfDate = 7;

        /// <summary>dotnet build or dotnet pack failed.</summary>
        public const int BuildFailed = 8;
    }
}
