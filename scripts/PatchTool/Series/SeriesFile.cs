using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace DbxMem.PatchTool.Series
{
    /// <summary>
    /// patches/&lt;tag&gt;/series: the order file (quilt/Electron style). One patch file name per line;
    /// blank lines and lines starting with '#' are ignored. Order lives here rather than in numeric
    /// file-name prefixes so inserting a patch does not rename every later one.
    /// </summary>
    internal static class SeriesFile
    {
        public const string FileName = "series";

        /// <summary>
        /// "include &lt;name&gt;" in a tag's series inserts the shared series patches/shared/&lt;name&gt;/ at that
        /// point: tags whose driver sources are identical share one copy of each patch.
        /// </summary>
        public const string IncludeKeyword = "include";

        public static string IncludeLine(string sharedName) => IncludeKeyword + " " + sharedName;

        /// <summary>The shared series an entry includes, or null when the entry is a patch file name.</summary>
        public static string? IncludedName(string entry)
        {
            string prefix = IncludeKeyword + " ";
            return entry.StartsWith(prefix, StringComparison.Ordinal) ? entry.Substring(prefix.Length).Trim() : null;
        }

        public static IReadOnlyList<string> ParseEntries(string text)
        {
            return Lines(text)
                .Select(l => l.Trim())
                .Where(l => l.Length > 0 && !l.StartsWith('#'))
                .ToList();
        }

        /// <summary>
        /// The text export writes: the existing file's leading comment block (kept so hand-written notes
        /// survive), or a default one, then the names. Always LF, one trailing newline: byte-stable.
        /// </summary>
        public static string Render(string? existingText, string tag, IEnumerable<string> names) =>
            Render(existingText, DefaultHeader(tag), names);

        public static string Render(string? existingText, IEnumerable<string> defaultHeader, IEnumerable<string> names)
        {
            var builder = new StringBuilder();
            List<string> leading = existingText == null
                ? new List<string>()
                : Lines(existingText).TakeWhile(l => l.TrimStart().StartsWith('#') || l.Trim().Length == 0).ToList();
            while (leading.Count > 0 && leading[^1].Trim().Length == 0)
            {
                leading.RemoveAt(leading.Count - 1);
            }

            if (leading.Count == 0)
            {
                leading = defaultHeader.ToList();
            }

            foreach (string line in leading)
            {
                builder.Append(line.TrimEnd()).Append('\n');
            }

            foreach (string name in names)
            {
                builder.Append(name).Append('\n');
            }

            return builder.ToString();
        }

        public static IEnumerable<string> DefaultHeader(string tag)
        {
            yield return $"# Patch order for {tag}: `scripts/patch apply` applies these top to bottom with git am.";
            yield return "# `scripts/patch export` rewrites the names below from the patched checkout's commits.";
        }

        public static IEnumerable<string> DefaultSharedHeader(string sharedName)
        {
            yield return $"# Shared series {sharedName}: patch order for every tag whose series says `include {sharedName}`.";
            yield return "# `scripts/patch export` from any of those tags rewrites the names below (and the files, once).";
        }

        private static IEnumerable<string> Lines(string text)
        {
            string[] lines = text.Replace("\r\n", "\n").Split('\n');
            int count = lines.Length;
            if (count > 0 && lines[count - 1].Length == 0)
            {
                count--;
            }

            return lines.Take(count);
        }
    }
}
