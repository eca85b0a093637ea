using System.Collections.Generic;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// The identity on commits the tool itself makes (the overlay commit, the committer of applied patches,
    /// --force backups). Fixed, so that applying the same series to the same base gives the same commit ids
    /// on every machine, and so apply works where git has no user.name/user.email configured (CI).
    /// Patch authors and author dates come from the patch files and are preserved.
    /// </summary>
    internal static class ToolIdentity
    {
        public const string Name = "dbxmem patch tool";

        public const string Email = "patch-tool@dbxmem.invalid";

        public static Dictionary<string, string?> Committer() => new Dictionary<string, string?>
        {
            ["GIT_COMMITTER_NAME"] = Name,
            ["GIT_COMMITTER_EMAIL"] = Email,
        };

        public static Dictionary<string, string?> AuthorAndCommitter(string date) => new Dictionary<string, string?>
        {
            ["GIT_AUTHOR_NAME"] = Name,
            ["GIT_AUTHOR_EMAIL"] = Email,
            ["GIT_AUTHOR_DATE"] = date,
            ["GIT_COMMITTER_NAME"] = Name,
            ["GIT_COMMITTER_EMAIL"] = Email,
            ["GIT_COMMITTER_DATE"] = date,
        };
    }
}
