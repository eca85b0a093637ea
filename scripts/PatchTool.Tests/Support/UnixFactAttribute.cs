using System;
using Xunit;

namespace DbxMem.PatchTool.Tests.Support
{
    /// <summary>A fact that needs bash: skipped, with the reason, on Windows.</summary>
    public sealed class UnixFactAttribute : FactAttribute
    {
        public UnixFactAttribute()
        {
            if (OperatingSystem.IsWindows())
            {
                Skip = "exercises the bash wrapper scripts/patch; on Windows the wrapper is scripts/patch.ps1, which is not run here";
            }
        }
    }
}
