#if NETFRAMEWORK
namespace System.Runtime.CompilerServices
{
    /// <summary>
    /// What the compiler needs for <c>init</c> accessors and records; .NET 5 and later define it, .NET Framework does not.
    /// Compiled into the net472 builds of the reference and of the overlay's tests (which link this file).
    /// </summary>
    internal static class IsExternalInit
    {
    }
}
#endif
