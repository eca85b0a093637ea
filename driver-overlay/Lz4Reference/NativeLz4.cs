using System;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace Lz4Reference
{
    /// <summary>
    /// Debian's liblz4 (liblz4.so.1, package liblz4-1) through P/Invoke: the reference encoder and decoder
    /// that the overlay's decoder and the mock server's encoder are checked against.
    /// </summary>
    public static unsafe class NativeLz4
    {
#if NETFRAMEWORK
        // Mono (the .NET Framework stand-in here) has no NativeLibrary resolver; it loads a file name as given.
        private const string Library = "liblz4.so.1";
#else
        private const string Library = "lz4";
#endif
        private const uint FrameApiVersion = 100; // LZ4F_VERSION
        private const int MaxHeaderSize = 19;     // LZ4F_HEADER_SIZE_MAX

        private static readonly Lazy<string?> s_loadError = new Lazy<string?>(TryLoad);

#if !NETFRAMEWORK
        static NativeLz4()
        {
            // The package ships only the versioned soname; DllImport("lz4") would look for liblz4.so.
            NativeLibrary.SetDllImportResolver(typeof(NativeLz4).Assembly, Resolve);
        }
#endif

        /// <summary>True when liblz4 can be loaded; otherwise <see cref="UnavailableReason"/> says why.</summary>
        public static bool IsAvailable => s_loadError.Value == null;

        public static string? UnavailableReason => s_loadError.Value;

        public static byte[] CompressFrame(ReadOnlySpan<byte> data, FrameOptions options)
        {
            EnsureAvailable();
            Preferences prefs = ToPreferences(options, data.Length);
            IntPtr context;
            Check(LZ4F_createCompressionContext(&context, FrameApiVersion), "LZ4F_createCompressionContext");
            try
            {
                nuint bound = LZ4F_compressBound((nuint)data.Length, &prefs);
                byte[] output = new byte[checked((int)bound + MaxHeaderSize + 64)];
                fixed (byte* dst = output)
                fixed (byte* src = data)
                {
                    nuint written = Check(LZ4F_compressBegin(context, dst, (nuint)output.Length, &prefs), "LZ4F_compressBegin");
                    written += Check(LZ4F_compressUpdate(context, dst + written, (nuint)output.Length - written, src, (nuint)data.Length, null), "LZ4F_compressUpdate");
                    written += Check(LZ4F_compressEnd(context, dst + written, (nuint)output.Length - written, null), "LZ4F_compressEnd");
                    Array.Resize(ref output, checked((int)written));
                    return output;
                }
            }
            finally
            {
                LZ4F_freeCompressionContext(context);
            }
        }

        /// <summary>
        /// Decodes every frame in <paramref name="input"/> (concatenated and skippable frames included), the way
        /// the lz4 command-line tool does. Throws <see cref="InvalidDataException"/> with liblz4's error name.
        /// </summary>
        public static byte[] DecompressFrame(ReadOnlySpan<byte> input)
        {
            EnsureAvailable();
            IntPtr context;
            Check(LZ4F_createDecompressionContext(&context, FrameApiVersion), "LZ4F_createDecompressionContext");
            try
            {
                using var output = new MemoryStream();
                byte[] chunk = new byte[1 << 20];
                int consumed = 0;
                nuint hint = 1;
                fixed (byte* src = input)
                fixed (byte* dst = chunk)
                {
                    while (consumed < input.Length)
                    {
                        nuint srcSize = (nuint)(input.Length - consumed);
                        nuint dstSize = (nuint)chunk.Length;
                        hint = Check(LZ4F_decompress(context, dst, &dstSize, src + consumed, &srcSize, null), "LZ4F_decompress");
                        consumed += (int)srcSize;
                        output.Write(chunk, 0, (int)dstSize);
                        if (srcSize == 0 && dstSize == 0)
                        {
                            throw new InvalidDataException("liblz4 made no progress decoding the input");
                        }
                    }

                    // Drain output still buffered in the context after the last input byte.
                    while (hint != 0)
                    {
                        nuint srcSize = 0;
                        nuint dstSize = (nuint)chunk.Length;
                        hint = Check(LZ4F_decompress(context, dst, &dstSize, src + consumed, &srcSize, null), "LZ4F_decompress");
                        output.Write(chunk, 0, (int)dstSize);
                        if (dstSize == 0 && hint != 0)
                        {
                            throw new InvalidDataException($"LZ4 input ended inside a frame (liblz4 expects {hint} more bytes)");
                        }
                    }
                }

                return output.ToArray();
            }
            finally
            {
                LZ4F_freeDecompressionContext(context);
            }
        }

        /// <summary>LZ4_decompress_safe: one raw block into a caller-sized destination. Returns bytes written or a negative value.</summary>
        public static int DecompressBlock(ReadOnlySpan<byte> block, Span<byte> destination)
        {
            EnsureAvailable();
            fixed (byte* src = block)
            fixed (byte* dst = destination)
            {
                return LZ4_decompress_safe(src, dst, block.Length, destination.Length);
            }
        }

        /// <summary>LZ4_decompress_safe_usingDict: a linked block whose matches may reach into <paramref name="dictionary"/>.</summary>
        public static int DecompressBlock(ReadOnlySpan<byte> block, Span<byte> destination, ReadOnlySpan<byte> dictionary)
        {
            EnsureAvailable();
            fixed (byte* src = block)
            fixed (byte* dst = destination)
            fixed (byte* dict = dictionary)
            {
                return LZ4_decompress_safe_usingDict(src, dst, block.Length, destination.Length, dict, dictionary.Length);
            }
        }

        /// <summary>LZ4_compress_default: one raw block. Returns the compressed bytes.</summary>
        public static byte[] CompressBlock(ReadOnlySpan<byte> data)
        {
            EnsureAvailable();
            byte[] output = new byte[LZ4_compressBound(data.Length)];
            fixed (byte* src = data)
            fixed (byte* dst = output)
            {
                int written = LZ4_compress_default(src, dst, data.Length, output.Length);
                if (written <= 0)
                {
                    throw new InvalidOperationException("LZ4_compress_default failed");
                }

                Array.Resize(ref output, written);
                return output;
            }
        }

        private static Preferences ToPreferences(FrameOptions options, int length) => new Preferences
        {
            BlockSizeId = (int)options.BlockSize,
            BlockMode = options.IndependentBlocks ? 1 : 0,
            ContentChecksumFlag = options.ContentChecksum ? 1 : 0,
            FrameType = 0,
            ContentSize = options.ContentSize ? (ulong)length : 0UL,
            DictId = 0,
            BlockChecksumFlag = options.BlockChecksum ? 1 : 0,
            CompressionLevel = options.CompressionLevel,
        };

        private static nuint Check(nuint code, string function)
        {
            if (LZ4F_isError(code) != 0)
            {
                string name = Marshal.PtrToStringAnsi(LZ4F_getErrorName(code)) ?? "unknown error";
                throw new InvalidDataException($"{function}: {name}");
            }

            return code;
        }

        private static void EnsureAvailable()
        {
            if (!IsAvailable)
            {
                throw new InvalidOperationException(UnavailableReason);
            }
        }

        private static string? TryLoad()
        {
            try
            {
                return LZ4_versionNumber() >= 10900 ? null : "liblz4 is older than 1.9.0";
            }
            catch (DllNotFoundException ex)
            {
                return "liblz4 is not installed (Debian: apt-get install liblz4-1): " + ex.Message;
            }
        }

#if !NETFRAMEWORK
        private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? searchPath)
        {
            if (name != Library)
            {
                return IntPtr.Zero;
            }

            foreach (string candidate in new[] { "liblz4.so.1", "liblz4.so", "liblz4.1.dylib", "liblz4.dll", "lz4.dll" })
            {
                if (NativeLibrary.TryLoad(candidate, assembly, searchPath, out IntPtr handle))
                {
                    return handle;
                }
            }

            return IntPtr.Zero;
        }
#endif

        // LZ4F_preferences_t of lz4 1.9.x (LZ4F_frameInfo_t followed by the compression settings).
        [StructLayout(LayoutKind.Sequential)]
        private struct Preferences
        {
            public int BlockSizeId;
            public int BlockMode;
            public int ContentChecksumFlag;
            public int FrameType;
            public ulong ContentSize;
            public uint DictId;
            public int BlockChecksumFlag;
            public int CompressionLevel;
            public uint AutoFlush;
            public uint FavorDecSpeed;
            public uint Reserved0;
            public uint Reserved1;
            public uint Reserved2;
        }

        [DllImport(Library)] private static extern int LZ4_versionNumber();
        [DllImport(Library)] private static extern uint LZ4F_isError(nuint code);
        [DllImport(Library)] private static extern IntPtr LZ4F_getErrorName(nuint code);
        [DllImport(Library)] private static extern nuint LZ4F_createCompressionContext(IntPtr* context, uint version);
        [DllImport(Library)] private static extern nuint LZ4F_freeCompressionContext(IntPtr context);
        [DllImport(Library)] private static extern nuint LZ4F_compressBound(nuint srcSize, Preferences* prefs);
        [DllImport(Library)] private static extern nuint LZ4F_compressBegin(IntPtr context, byte* dst, nuint dstCapacity, Preferences* prefs);
        [DllImport(Library)] private static extern nuint LZ4F_compressUpdate(IntPtr context, byte* dst, nuint dstCapacity, byte* src, nuint srcSize, void* options);
        [DllImport(Library)] private static extern nuint LZ4F_compressEnd(IntPtr context, byte* dst, nuint dstCapacity, void* options);
        [DllImport(Library)] private static extern nuint LZ4F_createDecompressionContext(IntPtr* context, uint version);
        [DllImport(Library)] private static extern nuint LZ4F_freeDecompressionContext(IntPtr context);
        [DllImport(Library)] private static extern nuint LZ4F_decompress(IntPtr context, byte* dst, nuint* dstSize, byte* src, nuint* srcSize, void* options);
        [DllImport(Library)] private static extern int LZ4_decompress_safe(byte* src, byte* dst, int compressedSize, int dstCapacity);
        [DllImport(Library)] private static extern int LZ4_decompress_safe_usingDict(byte* src, byte* dst, int compressedSize, int dstCapacity, byte* dict, int dictSize);
        [DllImport(Library)] private static extern int LZ4_compress_default(byte* src, byte* dst, int srcSize, int dstCapacity);
        [DllImport(Library)] private static extern int LZ4_compressBound(int inputSize);
    }
}
