using System.Security.Cryptography;

namespace PatchTool;

/// <summary>
/// One git format-patch (mbox) file of a series, and the edits of its commit message that apply and export make. Text
/// is handled as Latin-1, which maps every byte to one char and back, so patch bodies round-trip byte for byte
/// whatever encoding the upstream files use.
/// </summary>
internal sealed class PatchFile
{
    /// <summary>The DEP-3-like header every patch's commit message carries (patches/README.md).</summary>
    public static readonly string[] RequiredHeaderFields = ["Why", "Upstream-Status", "Base"];

    /// <summary>
    /// The trailer that pins a patch's file name: apply adds it to the commit, so export writes the commit back to the
    /// same file even after its subject changed; export removes it from the file.
    /// </summary>
    public const string FilenameTrailer = "Patch-Filename";

    private static readonly Regex Separator = new("(?m)^---\r?$|^diff --git ");

    private static readonly Regex IndexLine = new(@"^index [0-9a-f]+\.\.[0-9a-f]+((?: [0-7]+)?\r?)$");

    private static readonly Regex HunkHeader = new(@"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@");

    private readonly string message;

    public PatchFile(string name, byte[] bytes)
    {
        Name = name;
        Bytes = bytes;
        Sha256 = Hashing.Sha256Hex(bytes);
        string text = Encoding.Latin1.GetString(bytes);
        message = text[..MessageEnd(text)];
        Match subject = Regex.Match(message, @"(?m)^Subject:[ \t]*([^\r\n]*(?:\r?\n[ \t]+[^\r\n]*)*)");
        Subject = subject.Success ? Regex.Replace(subject.Groups[1].Value, @"\r?\n[ \t]+", " ").Trim() : null;
        IsMbox = text.StartsWith("From ", StringComparison.Ordinal) && Regex.IsMatch(message, "(?m)^From: ") && Subject != null;
        HasDiff = Regex.IsMatch(text, "(?m)^diff --git ");
    }

    public string Name { get; }

    public byte[] Bytes { get; }

    public string Sha256 { get; }

    public string? Subject { get; }

    public bool IsMbox { get; }

    public bool HasDiff { get; }

    /// <summary>The Upstream-Status: line's value, or null.</summary>
    public string? UpstreamStatus => Regex.Match(message, @"(?m)^Upstream-Status:[ \t]*(\S[^\r\n]*)") is { Success: true } m ? m.Groups[1].Value.Trim() : null;

    public IReadOnlyList<string> MissingHeaderFields =>
        RequiredHeaderFields.Where(f => !Regex.IsMatch(message, "(?m)^" + Regex.Escape(f) + @":[ \t]*\S")).ToList();

    public static PatchFile Load(string path) => new(Path.GetFileName(path), File.ReadAllBytes(path));

    /// <summary>
    /// The patch with a "Patch-Filename: name" line right after the message's last non-blank line (or as the first body
    /// line of a subject-only commit): there git am keeps it in the message, and removing the line restores the original
    /// bytes. Never among the mail headers, which am drops.
    /// </summary>
    public static byte[] WithFilenameTrailer(byte[] patch, string name)
    {
        string text = Encoding.Latin1.GetString(WithoutFilenameTrailer(patch, out _));
        int end = MessageEnd(text);
        int headerEnd = text.IndexOf("\n\n", StringComparison.Ordinal);
        int position = headerEnd < 0 || headerEnd >= end ? end : headerEnd + 2;
        for (int lineStart = position; lineStart < end;)
        {
            int newline = text.IndexOf('\n', lineStart);
            int lineEnd = newline < 0 || newline >= end ? end : newline + 1;
            if (!string.IsNullOrWhiteSpace(text[lineStart..lineEnd]))
            {
                position = lineEnd;
            }

            lineStart = lineEnd;
        }

        return Encoding.Latin1.GetBytes(text.Insert(position, $"{FilenameTrailer}: {name}\n"));
    }

    /// <summary>Removes the Patch-Filename line from the message and returns its value (null if absent).</summary>
    public static byte[] WithoutFilenameTrailer(byte[] patch, out string? name)
    {
        string text = Encoding.Latin1.GetString(patch);
        Match match = Regex.Match(text[..MessageEnd(text)], "(?m)^" + FilenameTrailer + @":[ \t]*([^\r\n]*?)[ \t]*\r?\n");
        name = match.Success ? match.Groups[1].Value : null;
        return match.Success ? Encoding.Latin1.GetBytes(text.Remove(match.Index, match.Length)) : patch;
    }

    /// <summary>
    /// "Wire the memory scope into DatabricksDatabase" -> "wire-the-memory-scope-into-databricksdatabase.patch": lower-case
    /// ASCII letters and digits, every other run of characters one '-', at most 64 characters.
    /// </summary>
    public static string NameFromSubject(string subject)
    {
        string stem = Regex.Replace(subject.ToLowerInvariant(), "[^a-z0-9]+", "-").Trim('-');
        stem = stem.Length > 64 ? stem[..64].TrimEnd('-') : stem;
        return (stem.Length == 0 ? "patch" : stem) + ".patch";
    }

    /// <summary>
    /// Whether two patches are the same change at other positions: byte-identical but for the blob ids of `index` lines
    /// and the line numbers and section heading of `@@` hunk headers in their diffs, the parts that depend on where the
    /// change lands in a base's file and that git apply does not match (it finds each hunk by its context lines, at any
    /// offset). What export keeps of a shared patch made on another base that shares it (patches/README.md).
    /// </summary>
    public static bool SameChangeAtOtherPositions(byte[] first, byte[] second)
    {
        string[] a = Encoding.Latin1.GetString(first).Split('\n'), b = Encoding.Latin1.GetString(second).Split('\n');
        if (a.Length != b.Length)
        {
            return false;
        }

        bool inDiff = false;
        for (int i = 0; i < a.Length; i++)
        {
            inDiff |= a[i].StartsWith("diff --git ", StringComparison.Ordinal);
            if (a[i] != b[i] && !(inDiff && PositionFree(a[i]) == PositionFree(b[i])))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>An `index` or `@@` line without its positions (blob ids; start lines and heading, the line counts kept); other lines as they are.</summary>
    private static string PositionFree(string line) =>
        IndexLine.Match(line) is { Success: true } index ? "index .." + index.Groups[1].Value
        : HunkHeader.Match(line) is { Success: true } hunk ? $"@@ -{hunk.Groups[1].Value} +{hunk.Groups[2].Value} @@"
        : line;

    /// <summary>Where the commit message ends: the "---" line format-patch writes before the diff (where git am splits), else the first diff.</summary>
    private static int MessageEnd(string text)
    {
        Match match = Separator.Match(text);
        return match.Success ? match.Index : text.Length;
    }
}

internal static class Hashing
{
    public static string Sha256Hex(byte[] bytes) => Convert.ToHexString(SHA256.HashData(bytes)).ToLowerInvariant();

    public static string Sha256Hex(string text) => Sha256Hex(Encoding.UTF8.GetBytes(text));

    /// <summary>
    /// SHA-256 of a source file with CRLF turned into LF: a Windows clone with core.autocrlf=true has CRLF overlay files,
    /// and the series hash stamped into the driver must be the same on every OS. Patch files are hashed raw: their
    /// bytes are what git applies (patches/.gitattributes keeps them LF).
    /// </summary>
    public static string SourceSha256Hex(byte[] bytes) => Sha256Hex(Encoding.Latin1.GetBytes(Encoding.Latin1.GetString(bytes).Replace("\r\n", "\n")));
}
