using System.Collections.Generic;
using System.Linq;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Provenance;
using DbxMem.PatchTool.Series;

namespace DbxMem.PatchTool.Commands
{
    /// <summary>bases: the supported upstream tags, their repositories and commits, and where the --adbc checkout stands.</summary>
    internal static class BasesCommand
    {
        public static int Run(ToolContext context)
        {
            PatchRepository repository = context.OpenPatches();
            IReadOnlyList<BaseInfo> bases = repository.LoadBases();
            string version = repository.ReadVersion();
            AdbcCheckout? checkout = context.CommandLine.Has("adbc") ? context.OpenCheckout() : null;
            string? head = checkout?.Head();
            CheckoutProvenance? provenance = checkout?.ReadProvenance(context, deleteStale: false);

            context.Info($"Series {version} in {repository.PatchesDirectory}");
            if (bases.Count == 0)
            {
                context.Info("No bases yet: add patches/<tag>/base.json (scripts/README.md, \"Adding a base tag\").");
                return ExitCodes.Success;
            }

            context.Info($"{"TAG",-24} {"REPOSITORY",-24} {"COMMIT",-40} {"PATCHES",7}  {"SHARED SERIES",-20}  CHECKOUT");
            foreach (BaseInfo baseInfo in bases)
            {
                SeriesDefinition series = repository.LoadSeries(baseInfo);
                string count = series.SeriesText == null ? "-" : series.Patches.Count.ToString(System.Globalization.CultureInfo.InvariantCulture);
                string shared = string.Join(",", series.Parts.Where(p => p.IsShared).Select(p => p.SharedName));
                string mark = "";
                if (checkout != null)
                {
                    if (provenance != null && provenance.BaseCommit == baseInfo.Commit)
                    {
                        mark = $"patched from here (series {provenance.SeriesVersion})";
                    }
                    else if (head == baseInfo.Commit)
                    {
                        mark = "HEAD is here";
                    }

                    string? tagCommit = checkout.TagCommit(baseInfo.Tag);
                    if (tagCommit != null && tagCommit != baseInfo.Commit)
                    {
                        context.Warn($"in {checkout.Root}, tag {baseInfo.Tag} points at {tagCommit}, not {baseInfo.Commit} as base.json says.");
                    }
                }

                context.Info($"{baseInfo.Tag,-24} {baseInfo.RepositoryName,-24} {baseInfo.Commit,-40} {count,7}  {(shared.Length == 0 ? "-" : shared),-20}  {mark}".TrimEnd());
            }

            return ExitCodes.Success;
        }
    }
}
