using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Serialization;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>status: base, patched or not, by which series, and what changed since apply.</summary>
    internal static class StatusCommand
    {
        /// <summary>The machine-readable form (status --json); the text form prints the same facts.</summary>
        internal sealed class StatusReport
        {
            [JsonPropertyName("checkout")]
            public string Checkout { get; set; } = "";

            [JsonPropertyName("head")]
            public string Head { get; set; } = "";

            [JsonPropertyName("baseTag")]
            public string? BaseTag { get; set; }

            [JsonPropertyName("baseCommit")]
            public string? BaseCommit { get; set; }

            [JsonPropertyName("atBase")]
            public bool AtBase { get; set; }

            [JsonPropertyName("patched")]
            public bool Patched { get; set; }

            [JsonPropertyName("state")]
            public string? State { get; set; }

            [JsonPropertyName("seriesVersion")]
            public string? SeriesVersion { get; set; }

            [JsonPropertyName("seriesHash")]
            public string? SeriesHash { get; set; }

            /// <summary>Null when the repository has no series for the base.</summary>
            [JsonPropertyName("matchesRepositorySeries")]
            public bool? MatchesRepositorySeries { get; set; }

            [JsonPropertyName("amInProgress")]
            public bool AmInProgress { get; set; }

            [JsonPropertyName("commitsAfterApply")]
            public int CommitsAfterApply { get; set; }

            [JsonPropertyName("modifiedOverlayFiles")]
            public List<string> ModifiedOverlayFiles { get; set; } = new List<string>();

            [JsonPropertyName("modifiedFiles")]
            public List<string> ModifiedFiles { get; set; } = new List<string>();
        }

        public static int Run(ToolContext context)
        {
            PatchRepository repository = context.OpenPatches();
            AdbcCheckout checkout = context.OpenCheckout();
            StatusReport report = Collect(context, checkout, repository);
            if (context.CommandLine.Has("json"))
            {
                context.Out.WriteLine(JsonSerializer.Serialize(report, JsonFiles.Options));
                return ExitCodes.Success;
            }

            Print(context, report);
            return ExitCodes.Success;
        }

        public static StatusReport Collect(ToolContext context, AdbcCheckout checkout, PatchRepository repository)
        {
            IReadOnlyList<BaseInfo> bases = repository.LoadBases();
            string head = checkout.Head();
            var report = new StatusReport { Checkout = checkout.Root, Head = head, AmInProgress = checkout.AmInProgress };
            CheckoutProvenance? provenance = checkout.ReadProvenance(context, deleteStale: false);
            if (provenance == null)
            {
                BaseInfo? atHead = BaseResolver.FindByCommit(bases, head);
                report.AtBase = atHead != null;
                report.BaseTag = atHead?.Tag;
                report.BaseCommit = atHead?.Commit;
                if (atHead != null)
                {
                    report.ModifiedFiles = checkout.UncommittedChanges(atHead.DriverDir).Select(c => c.Substring(3)).ToList();
                }

                return report;
            }

            report.Patched = true;
            report.State = provenance.State;
            report.BaseTag = provenance.BaseTag;
            report.BaseCommit = provenance.BaseCommit;
            report.SeriesVersion = provenance.SeriesVersion;
            report.SeriesHash = provenance.SeriesHash;
            BaseInfo? current = bases.FirstOrDefault(b => b.Tag == provenance.BaseTag);
            if (current != null)
            {
                report.MatchesRepositorySeries = repository.LoadSeries(current).Hash == provenance.SeriesHash;
            }

            string reference = provenance.PatchedHead ?? head;
            if (provenance.PatchedHead != null && checkout.CommitExists(provenance.PatchedHead) && checkout.IsAncestor(provenance.PatchedHead, head))
            {
                report.CommitsAfterApply = checkout.CountCommits(provenance.PatchedHead, head);
            }

            report.ModifiedOverlayFiles = ModifiedOverlayFiles(checkout, provenance);
            string overlayPrefix = provenance.OverlayDir + "/";
            var changed = new SortedSet<string>(StringComparer.Ordinal);
            if (checkout.CommitExists(reference))
            {
                foreach (string path in checkout.Git.Checked("diff", "--name-only", "--no-renames", reference).Split('\n', StringSplitOptions.RemoveEmptyEntries))
                {
                    changed.Add(path);
                }
            }

            foreach (string change in checkout.UncommittedChanges(provenance.DriverDir))
            {
                changed.Add(change.Substring(3));
            }

            report.ModifiedFiles = changed.Where(p => !p.StartsWith(overlayPrefix, StringComparison.Ordinal)).ToList();
            return report;
        }

        /// <summary>Overlay files whose content differs from what apply wrote, plus files added to the overlay folder since.</summary>
        private static List<string> ModifiedOverlayFiles(AdbcCheckout checkout, CheckoutProvenance provenance)
        {
            var modified = new List<string>();
            var known = new HashSet<string>(StringComparer.Ordinal);
            foreach (OverlayFileRecord file in provenance.OverlayFiles)
            {
                known.Add(file.Path);
                string full = Path.Combine(checkout.Root, file.Path);
                if (!File.Exists(full))
                {
                    modified.Add(file.Path + " (deleted)");
                }
                else if (Hashing.SourceSha256Hex(File.ReadAllBytes(full)) != file.Sha256)
                {
                    modified.Add(file.Path);
                }
            }

            string overlayRoot = Path.Combine(checkout.Root, provenance.OverlayDir);
            if (Directory.Exists(overlayRoot))
            {
                foreach (string full in Directory.EnumerateFiles(overlayRoot, "*", SearchOption.AllDirectories).OrderBy(f => f, StringComparer.Ordinal))
                {
                    string relative = Path.GetRelativePath(checkout.Root, full).Replace('\\', '/');
                    if (!known.Contains(relative) && !relative.Contains("/bin/", StringComparison.Ordinal) && !relative.Contains("/obj/", StringComparison.Ordinal))
                    {
                        modified.Add(relative + " (added)");
                    }
                }
            }

            return modified;
        }

        private static void Print(ToolContext context, StatusReport report)
        {
            context.Info($"checkout:  {report.Checkout}");
            context.Info($"HEAD:      {report.Head}");
            if (!report.Patched)
            {
                context.Info(report.AtBase
                    ? $"base:      {report.BaseTag} ({report.BaseCommit}); HEAD is at the base commit"
                    : "base:      none: HEAD is not a supported base commit (`scripts/patch bases` lists them)");
                context.Info("patched:   no");
                if (report.ModifiedFiles.Count > 0)
                {
                    context.Info($"uncommitted changes ({report.ModifiedFiles.Count}):");
                    context.Info(AdbcCheckout.FormatList(report.ModifiedFiles));
                }

                if (report.AmInProgress)
                {
                    context.Info("git am:    a session is in progress (not started by this tool's apply, which would have recorded provenance)");
                }

                return;
            }

            context.Info($"base:      {report.BaseTag} ({report.BaseCommit})");
            string state = report.State == CheckoutProvenance.StateApplied ? "yes" : "partly: apply --3way stopped on a conflict" + (report.AmInProgress ? " (git am in progress)" : " (finished by hand)");
            context.Info($"patched:   {state}, series {report.SeriesVersion} ({report.SeriesHash})");
            context.Info("repository series: " + (report.MatchesRepositorySeries switch
            {
                true => "same as applied",
                false => "differs from what was applied (revert and apply again to update)",
                null => "no series for this base in the patches folder",
            }));
            if (report.CommitsAfterApply > 0)
            {
                context.Info($"commits after apply: {report.CommitsAfterApply} (`scripts/patch export` turns them into patches)");
            }

            context.Info(report.ModifiedOverlayFiles.Count == 0 ? "overlay files: unchanged since apply" : $"overlay files modified since apply ({report.ModifiedOverlayFiles.Count}):");
            if (report.ModifiedOverlayFiles.Count > 0)
            {
                context.Info(AdbcCheckout.FormatList(report.ModifiedOverlayFiles));
            }

            context.Info(report.ModifiedFiles.Count == 0 ? "other files: unchanged since apply" : $"other files modified since apply ({report.ModifiedFiles.Count}):");
            if (report.ModifiedFiles.Count > 0)
            {
                context.Info(AdbcCheckout.FormatList(report.ModifiedFiles));
            }
        }
    }
}
