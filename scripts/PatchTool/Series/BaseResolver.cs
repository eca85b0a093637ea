using System.Collections.Generic;
using System.Linq;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Series
{
    /// <summary>Matches a checkout's HEAD to a supported base, or explains why it cannot.</summary>
    internal static class BaseResolver
    {
        public static BaseInfo? FindByCommit(IReadOnlyList<BaseInfo> bases, string commit) => bases.FirstOrDefault(b => b.Commit == commit);

        public static ToolException WrongBase(AdbcCheckout checkout, IReadOnlyList<BaseInfo> bases, string head)
        {
            string supported = bases.Count == 0
                ? "none (the patches folder has no <tag>/base.json)"
                : string.Join(", ", bases.Select(b => $"{b.Tag} ({b.Commit.Substring(0, 12)})"));
            string position = $"{head.Substring(0, 12)} ({checkout.Describe(head)})";
            BaseInfo? below = bases.FirstOrDefault(b => checkout.CommitExists(b.Commit) && checkout.IsAncestor(b.Commit, head));
            string detail = below == null ? "" : $" It is {checkout.CountCommits(below.Commit, head)} commit(s) after {below.Tag}, but apply needs the exact base commit.";
            string example = "apache-arrow-adbc-21";
            if (bases.Count > 0)
            {
                // A base named after a branch's commit (not a tag) is checked out by its commit; submodules follow.
                BaseInfo shown = below ?? bases[0];
                example = (checkout.TagCommit(shown.Tag) != null ? shown.Tag : shown.Commit.Substring(0, 12)) +
                    (shown.Submodules.Count > 0 ? $" && git -C \"{checkout.Root}\" submodule update --init --recursive" : "");
            }

            return new ToolException(
                ExitCodes.CheckoutState,
                $"HEAD of {checkout.Root} is {position}, which is not a supported base.{detail}\n  Supported bases: {supported}.",
                $"check out a supported tag first, e.g. `git -C \"{checkout.Root}\" checkout {example}` (a clean tree); to support another tag, add patches/<tag>/ (scripts/README.md, \"Adding a base tag\")");
        }
    }
}
