#if NETFRAMEWORK
using System.Buffers;
using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

// The .NET Core members the tests call, for their net472 build (run under Mono, the .NET Framework stand-in). Only
// the tests use them: the overlay itself compiles for net472 without any (driver-overlay/StandaloneBuild). Each
// does what its .NET member does, through what .NET Framework offers.

namespace System
{
    internal static class NetFrameworkStaticShims
    {
        extension(GC)
        {
            /// <summary>
            /// Mono's corlib has the .NET Core method (public, absent from the net472 reference assemblies); .NET
            /// Framework 4.7.2 itself has none, and there the allocation tests cannot measure.
            /// </summary>
            public static long GetAllocatedBytesForCurrentThread() => (long)(s_allocatedBytesForCurrentThread
                ?? throw new PlatformNotSupportedException("this runtime has no GC.GetAllocatedBytesForCurrentThread (.NET Framework; Mono has it)"))
                .Invoke(null, null)!;
        }

        extension(Enum)
        {
            public static T[] GetValues<T>() where T : struct, Enum => (T[])Enum.GetValues(typeof(T));
        }

        extension(Convert)
        {
            public static byte[] FromHexString(string hex)
            {
                if (hex.Length % 2 != 0)
                {
                    throw new FormatException("a hex string has an even number of digits");
                }

                byte[] bytes = new byte[hex.Length / 2];
                for (int i = 0; i < bytes.Length; i++)
                {
                    bytes[i] = byte.Parse(hex.Substring(2 * i, 2), Globalization.NumberStyles.HexNumber, Globalization.CultureInfo.InvariantCulture);
                }

                return bytes;
            }
        }

        private static readonly MethodInfo? s_allocatedBytesForCurrentThread =
            typeof(GC).GetMethod("GetAllocatedBytesForCurrentThread", BindingFlags.Public | BindingFlags.Static, null, Type.EmptyTypes, null);
    }
}

namespace System.Collections.Generic
{
    internal sealed class ReferenceEqualityComparer : IEqualityComparer<object?>
    {
        public static ReferenceEqualityComparer Instance { get; } = new ReferenceEqualityComparer();

        public new bool Equals(object? x, object? y) => ReferenceEquals(x, y);

        public int GetHashCode(object? obj) => RuntimeHelpers.GetHashCode(obj!);
    }
}

namespace DriverOverlay.Tests
{
    internal static class NetFrameworkShims
    {
        extension(Task task)
        {
            public bool IsCompletedSuccessfully => task.Status == TaskStatus.RanToCompletion;
        }

        /// <summary>As .NET 6's: the task's own outcome if it ends within <paramref name="timeout"/>, else a TimeoutException.</summary>
        public static async Task WaitAsync(this Task task, TimeSpan timeout)
        {
            using var timer = new CancellationTokenSource();
            if (await Task.WhenAny(task, Task.Delay(timeout, timer.Token)).ConfigureAwait(false) != task)
            {
                throw new TimeoutException($"the task did not complete within {timeout}");
            }

            timer.Cancel();
            await task.ConfigureAwait(false);
        }

        public static async Task<T> WaitAsync<T>(this Task<T> task, TimeSpan timeout)
        {
            await ((Task)task).WaitAsync(timeout).ConfigureAwait(false);
            return await task.ConfigureAwait(false);
        }

        public static int Read(this Stream stream, Span<byte> destination)
        {
            byte[] buffer = ArrayPool<byte>.Shared.Rent(destination.Length);
            try
            {
                int read = stream.Read(buffer, 0, destination.Length);
                buffer.AsSpan(0, read).CopyTo(destination);
                return read;
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }

        public static async ValueTask<int> ReadAsync(this Stream stream, Memory<byte> destination, CancellationToken cancellationToken = default)
        {
            if (MemoryMarshal.TryGetArray(destination, out ArraySegment<byte> segment))
            {
                return await stream.ReadAsync(segment.Array!, segment.Offset, segment.Count, cancellationToken).ConfigureAwait(false);
            }

            byte[] buffer = new byte[destination.Length];
            int read = await stream.ReadAsync(buffer, 0, buffer.Length, cancellationToken).ConfigureAwait(false);
            buffer.AsSpan(0, read).CopyTo(destination.Span);
            return read;
        }

        /// <summary>Reads straight into the array (the span overload below goes through a temporary).</summary>
        public static int ReadAtLeast(this Stream stream, byte[] buffer, int minimumBytes, bool throwOnEndOfStream = true)
        {
            int total = 0;
            while (total < minimumBytes)
            {
                int read = stream.Read(buffer, total, buffer.Length - total);
                if (read == 0)
                {
                    if (throwOnEndOfStream)
                    {
                        throw new EndOfStreamException($"the stream ended after {total} of {minimumBytes} bytes");
                    }

                    break;
                }

                total += read;
            }

            return total;
        }

        public static void ReadExactly(this Stream stream, byte[] buffer) => stream.ReadAtLeast(buffer, buffer.Length);

        public static void ReadExactly(this Stream stream, Span<byte> destination)
        {
            byte[] buffer = new byte[destination.Length];
            stream.ReadExactly(buffer);
            buffer.CopyTo(destination);
        }

        public static void NextBytes(this Random random, Span<byte> destination)
        {
            byte[] bytes = new byte[destination.Length];
            random.NextBytes(bytes);
            bytes.CopyTo(destination);
        }

        public static int IndexOfAnyExcept(this Span<byte> span, byte value)
        {
            for (int i = 0; i < span.Length; i++)
            {
                if (span[i] != value)
                {
                    return i;
                }
            }

            return -1;
        }
    }
}
#endif
