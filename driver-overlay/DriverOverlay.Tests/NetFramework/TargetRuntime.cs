namespace DriverOverlay.Tests
{
    /// <summary>Which build of the tests is running: the .NET one, or the net472 one (under Mono in scripts/test).</summary>
    internal static class TargetRuntime
    {
#if NETFRAMEWORK
        public const bool IsNetFramework = true;
#else
        public const bool IsNetFramework = false;
#endif

        /// <summary>True under Mono, the .NET Framework stand-in here (its collector and class libraries, not .NET Framework's).</summary>
        public static bool IsMono { get; } = Type.GetType("Mono.Runtime") != null;
    }
}
