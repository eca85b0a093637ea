using System;
using System.Security.Cryptography;
using System.Text;

namespace DbxMem.PatchTool.Series
{
    internal static class Hashing
    {
        public static string Sha256Hex(byte[] bytes) => Convert.ToHexString(SHA256.HashData(bytes)).ToLowerInvariant();

        public static string Sha256Hex(string text) => Sha256Hex(Encoding.UTF8.GetBytes(text));

        /// <summary>
        /// SHA-256 of a source file with CRLF turned into LF first. A Windows clone with core.autocrlf=true has
        /// CRLF overlay files; normalising keeps the series hash (stamped into the driver) the same on every OS.
        /// Patch files are hashed raw instead: their bytes are what git applies (patches/.gitattributes keeps them LF).
        /// </summary>
        public static string SourceSha256Hex(byte[] bytes)
        {
            int crlf = 0;
            for (int i = 0; i + 1 < bytes.Length; i++)
            {
                if (bytes[i] == '\r' && bytes[i + 1] == '\n')
                {
                    crlf++;
                }
            }

            if (crlf == 0)
            {
                return Sha256Hex(bytes);
            }

            var normalized = new byte[bytes.Length - crlf];
            int o = 0;
            for (int i = 0; i < bytes.Length; i++)
            {
                if (bytes[i] == '\r' && i + 1 < bytes.Length && bytes[i + 1] == '\n')
                {
                    continue;
                }

                normalized[o++] = bytes[i];
            }

            return Sha256Hex(normalized);
        }
    }
}
