using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Series
{
    /// <summary>A source file of driver-overlay/, copied verbatim into the checkout's overlay folder.</summary>
    internal sealed class OverlayFile
    {
        /// <summary>The file apply generates next to the overlay; an overlay file of that name would be overwritten.</summary>
        public const string GeneratedFileName = "PatchSeriesInfo.cs";

        public OverlayFile(string relativePath, byte[] bytes)
        {
            RelativePath = relativePath;
            Bytes = bytes;
            Sha256 = Hashing.SourceSha256Hex(bytes);
        }

        /// <summary>Path below the overlay folder, forward slashes.</summary>
        public string RelativePath { get; }

        public byte[] Bytes { get; }

        public string Sha256 { get; }

        /// <summary>
        /// The file as apply copies it into a driver whose namespace is <paramref name="driverNamespace"/>: each
        /// declaration of the overlay's own namespace (<see cref="BaseInfo.DefaultOverlayNamespace"/>, or one below it)
        /// names the driver's instead, so the overlay's internal types sit beside the driver's. Nothing else changes:
        /// string literals that spell the namespace (the meter name) stay, so dashboards work with either driver.
        /// </summary>
        public byte[] BytesFor(string driverNamespace)
        {
            if (driverNamespace == BaseInfo.DefaultOverlayNamespace)
            {
                return Bytes;
            }

            string text = Encoding.UTF8.GetString(Bytes);
            return Encoding.UTF8.GetBytes(NamespaceDeclaration.Replace(text, m => m.Groups["keyword"].Value + driverNamespace));
        }

        private static readonly Regex NamespaceDeclaration = new Regex(
            @"^(?<keyword>[ \t]*namespace[ \t]+)" + Regex.Escape(BaseInfo.DefaultOverlayNamespace) + @"(?=[.\s;{]|$)",
            RegexOptions.Multiline | RegexOptions.CultureInvariant);

        /// <summary>
        /// The overlay's *.cs files, recursively, in ordinal order. Skipped: bin/, obj/, hidden folders, and
        /// any subfolder with its own .csproj (a nested project, e.g. tests, is not driver source).
        /// A .csproj at the top of the overlay folder is fine: it is the overlay's standalone build and is not copied.
        /// </summary>
        public static IReadOnlyList<OverlayFile> LoadAll(string overlayRoot)
        {
            if (!Directory.Exists(overlayRoot))
            {
                throw new ToolException(
                    ExitCodes.Environment,
                    $"overlay folder {overlayRoot} does not exist.",
                    "pass --overlay DIR, or run the tool from a clone of this repository (it uses driver-overlay/)");
            }

            var files = new List<OverlayFile>();
            Collect(overlayRoot, overlayRoot, files, isRoot: true);
            files.Sort((a, b) => string.CompareOrdinal(a.RelativePath, b.RelativePath));
            OverlayFile? clash = files.FirstOrDefault(f => f.RelativePath == GeneratedFileName);
            if (clash != null)
            {
                throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"{Path.Combine(overlayRoot, GeneratedFileName)} clashes with the file apply generates in the overlay folder.",
                    "rename the overlay file; PatchSeriesInfo.cs is written by the tool (series version, base, hash)");
            }

            return files;
        }

        private static void Collect(string root, string directory, List<OverlayFile> files, bool isRoot)
        {
            if (!isRoot)
            {
                string name = Path.GetFileName(directory);
                if (name is "bin" or "obj" || name.StartsWith('.') || Directory.EnumerateFiles(directory, "*.csproj").Any())
                {
                    return;
                }
            }

            foreach (string file in Directory.EnumerateFiles(directory, "*.cs"))
            {
                string relative = Path.GetRelativePath(root, file).Replace('\\', '/');
                files.Add(new OverlayFile(relative, File.ReadAllBytes(file)));
            }

            foreach (string sub in Directory.EnumerateDirectories(directory))
            {
                Collect(root, sub, files, isRoot: false);
            }
        }
    }
}
