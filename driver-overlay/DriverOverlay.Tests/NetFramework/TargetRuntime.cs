namespace DriverOverlay.Tests
{
    /// <summary>Which build of the tests is running: the .NET one, or the net472 one (under Mono in scripts/test).</summary>
    internal static class TargetRuntime
    {
        /// <summary>A property, not a constant, so that code for the other build is not unreachable to the compiler.</summary>
        public static bool IsNetFramework { get; } =
#if NETFRAMEWORK
            true;
#else
            false;
#endif

        /// <summary>True under Mono, the .NET Framework stand-in here (its collector and class libraries, not .NET Framework's).</summary>
        public static bool IsMono { get; } = Type.GetType("Mono.Runtime") != null;
    }
}
