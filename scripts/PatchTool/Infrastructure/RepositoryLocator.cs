using System;
using System.IO;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// Finds this repository's root from where the tool's binary runs, so the default patches/ and
    /// driver-overlay/ folders do not depend on the current directory (users run the tool from inside
    /// their arrow-adbc checkout). The build puts binaries under &lt;root&gt;/artifacts/, so walking up works;
    /// a copy of the tool elsewhere needs --patches and --overlay.
    /// </summary>
    internal static class RepositoryLocator
    {
        private const string Marker = "scripts/PatchTool/PatchTool.csproj";

        public static string? FindRoot(string? startDirectory = null)
        {
            string? directory = startDirectory ?? AppContext.BaseDirectory;
            for (int depth = 0; directory != null && depth < 32; depth++)
            {
                if (File.Exists(Path.Combine(directory, Marker)))
                {
                    return directory;
                }

                directory = Path.GetDirectoryName(directory.TrimEnd(Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar));
            }

            return null;
        }
    }
}
