using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;

namespace DbxMem.PatchTool.Series
{
    /// <summary>
    /// One git format-patch (mbox) file of a series, and the text surgery on its commit message that
    /// apply and export need. Text is handled as Latin-1 because it maps every byte to one char and back:
    /// patch bodies round-trip byte for byte whatever encoding the upstream files use.
    /// </summary>
    internal sealed class PatchFile
    {
        /// <summary>The DEP-3-like header every patch's commit message must carry (patches/README.md).</summary>
        public static readonly IReadOnlyList<string> RequiredHeaderFields = new[] { "Why", "Upstream-Status", "Base" };

        /// <summary>
        /// The trailer that pins a patch's file name. apply adds it to the commit so export can write the
        /// commit back to the same file even if its subject changed; export removes it from the file.
        /// </summary>
        public const string FilenameTrailer = "Patch-Filename";

        private static readonly Encoding Latin1 = Encoding.Latin1;

        private PatchFile(string name, byte[] bytes)
        {
            Name = name;
            Bytes = bytes;
            Sha256 = Hashing.Sha256Hex(bytes);
            string text = Latin1.GetString(bytes);
            string message = MessageRegion(text);
            Subject = ReadSubject(message);
            IsMbox = text.StartsWith("From ", StringComparison.Ordinal) && Regex.IsMatch(message, "(?m)^From: ") && Subject != null;
            HasDiff = Regex.IsMatch(text, "(?m)^diff --git ");
            var fields = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (string field in RequiredHeaderFields)
            {
                Match match = Regex.Match(message, "(?m)^" + Regex.Escape(field) + @":[ \t]*(\S[^\r\n]*)$");
                if (match.Success)
                {
                    fields[field] = match.Groups[1].Value.Trim();
                }
            }

            HeaderFields = fields;
        }

        public string Name { get; }

        public byte[] Bytes { get; }

        public string Sha256 { get; }

        public string? Subject { get; }

        public bool IsMbox { get; }

        public bool HasDiff { get; }

        public IReadOnlyDictionary<string, string> HeaderFields { get; }

        public IReadOnlyList<string> MissingHeaderFields => RequiredHeaderFields.Where(f => !HeaderFields.ContainsKey(f)).ToList();

        public static PatchFile Load(string path) => new PatchFile(Path.GetFileName(path), File.ReadAllBytes(path));

        public static PatchFile FromBytes(string name, byte[] bytes) => new PatchFile(name, bytes);

        /// <summary>The patch with a "Patch-Filename: name" line as the last line of its commit message.</summary>
        public static byte[] WithFilenameTrailer(byte[] patch, string name)
        {
            string text = StripFilenameTrailer(Latin1.GetString(patch), out _);
            int at = TrailerPosition(text);
            string line = FilenameTrailer + ": " + name + "\n";
            return Latin1.GetBytes(text.Substring(0, at) + line + text.Substring(at));
        }

        /// <summary>
        /// Where the trailer goes so that git am keeps it in the message and removing the line later restores
        /// the original bytes: right after the message's last non-blank line (joining its last paragraph), or,
        /// for a subject-only commit, as the first body line. Never inside the mail headers, which am drops.
        /// </summary>
        private static int TrailerPosition(string text)
        {
            int end = MessageEnd(text);
            int headerEnd = text.IndexOf("\n\n", StringComparison.Ordinal);
            int bodyStart = headerEnd < 0 || headerEnd >= end ? end : headerEnd + 2;
            int position = bodyStart;
            int lineStart = bodyStart;
            while (lineStart < end)
            {
                int newline = text.IndexOf('\n', lineStart);
                int lineEnd = newline < 0 || newline >= end ? end : newline + 1;
                if (text.Substring(lineStart, lineEnd - lineStart).Trim().Length > 0)
                {
                    position = lineEnd;
                }

                lineStart = lineEnd;
            }

            return position;
        }

        /// <summary>Removes the Patch-Filename line from the message and returns its value (null if absent).</summary>
        public static byte[] WithoutFilenameTrailer(byte[] patch, out string? name)
        {
            return Latin1.GetBytes(StripFilenameTrailer(Latin1.GetString(patch), out name));
        }

        private static string StripFilenameTrailer(string text, out string? name)
        {
            int end = MessageEnd(text);
            string message = text.Substring(0, end);
            Match match = Regex.Match(message, "(?m)^" + FilenameTrailer + @":[ \t]*([^\r\n]*?)[ \t]*\r?\n");
            if (!match.Success)
            {
                name = null;
                return text;
            }

            name = match.Groups[1].Value;
            return text.Remove(match.Index, match.Length);
        }

        /// <summary>
        /// Where the commit message ends: the start of the "---" line format-patch writes before the diff
        /// (git am's mailinfo splits there too), or the first "diff --git" when a hand-made patch has no "---".
        /// </summary>
        private static int MessageEnd(string text)
        {
            Match separator = Regex.Match(text, "(?m)^---\r?$");
            Match diff = Regex.Match(text, "(?m)^diff --git ");
            if (separator.Success && (!diff.Success || separator.Index < diff.Index))
            {
                return separator.Index;
            }

            return diff.Success ? diff.Index : text.Length;
        }

        private static string MessageRegion(string text) => text.Substring(0, MessageEnd(text));

        private static string? ReadSubject(string message)
        {
            Match match = Regex.Match(message, @"(?m)^Subject:[ \t]*([^\r\n]*(?:\r?\n[ \t]+[^\r\n]*)*)");
            if (!match.Success)
            {
                return null;
            }

            return Regex.Replace(match.Groups[1].Value, @"\r?\n[ \t]+", " ").Trim();
        }
    }
}
