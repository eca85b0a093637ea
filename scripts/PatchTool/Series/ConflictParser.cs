using System.Collections.Generic;
using System.Text.RegularExpressions;

namespace DbxMem.PatchTool.Series
{
    /// <summary>Pulls the file names out of git apply / git am failure messages, so errors can name them.</summary>
    internal static class ConflictParser
    {
        private static readonly Regex[] Patterns =
        {
            new Regex(@"^error: patch failed: (.+):\d+$", RegexOptions.Multiline),
            new Regex(@"^error: (.+): patch does not apply$", RegexOptions.Multiline),
            new Regex(@"^error: (.+): does not exist in index$", RegexOptions.Multiline),
            new Regex(@"^error: (.+): already exists in index$", RegexOptions.Multiline),
            new Regex(@"^error: (.+): already exists in working directory$", RegexOptions.Multiline),
            new Regex(@"^error: (.+): does not match index$", RegexOptions.Multiline),
            new Regex(@"^error: (.+): No such file or directory$", RegexOptions.Multiline),
            new Regex(@"^CONFLICT \([^)]*\): Merge conflict in (.+)$", RegexOptions.Multiline),
            new Regex(@"^U (.+)$", RegexOptions.Multiline),
        };

        public static IReadOnlyList<string> Files(string gitOutput)
        {
            var files = new List<string>();
            string text = gitOutput.Replace("\r\n", "\n");
            foreach (Regex pattern in Patterns)
            {
                foreach (Match match in pattern.Matches(text))
                {
                    string file = match.Groups[1].Value.Trim();
                    if (!files.Contains(file))
                    {
                        files.Add(file);
                    }
                }
            }

            return files;
        }
    }
}
