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
        public static string Render(string? existingText, string tag, IEnumerable<string> names)
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
                leading = DefaultHeader(tag).ToList();
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
