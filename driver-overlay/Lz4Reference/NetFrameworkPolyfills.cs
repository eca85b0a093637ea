#if NETFRAMEWORK
// What the compiler needs for C# features the net472 builds of the tests and the memory probe use (run under Mono, the
// .NET Framework stand-in): .NET 5 and later define these types, .NET Framework does not. Compiled into Lz4Reference's
// net472 build and linked into the others.

namespace System.Runtime.CompilerServices
{
    /// <summary><c>init</c> accessors and records.</summary>
    internal static class IsExternalInit
    {
    }
}

namespace System
{
    /// <summary>The index from the end (<c>array[^1]</c>, <c>text[..^2]</c>): the compiler needs the type.</summary>
    internal readonly struct Index
    {
        private readonly int _value;

        public Index(int value, bool fromEnd = false)
        {
            if (value < 0)
            {
                throw new ArgumentOutOfRangeException(nameof(value), "must not be negative");
            }

            _value = fromEnd ? ~value : value;
        }

        public static Index Start => new Index(0);

        public static Index End => new Index(0, fromEnd: true);

        public static implicit operator Index(int value) => new Index(value);

        public int GetOffset(int length) => _value < 0 ? length + _value + 1 : _value;
    }

    /// <summary>A range (<c>text[a..b]</c>), which C# turns into Substring for a string.</summary>
    internal readonly struct Range
    {
        public Range(Index start, Index end)
        {
            Start = start;
            End = end;
        }

        public Index Start { get; }

        public Index End { get; }

        public static Range StartAt(Index start) => new Range(start, Index.End);

        public static Range EndAt(Index end) => new Range(Index.Start, end);

        public static Range All => new Range(Index.Start, Index.End);
    }
}
#endif
