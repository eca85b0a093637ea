namespace PatchTool;

/// <summary>bases: the supported upstream bases, their repositories, commits and shared series, and where the --adbc checkout stands.</summary>
internal static class BasesCommand
{
    public static int Run(ToolContext context)
    {
        PatchRepository repository = context.OpenPatches();
        AdbcCheckout? checkout = context.CheckoutGiven ? context.OpenCheckout() : null;
        string? head = checkout?.Head();
        CheckoutProvenance? provenance = checkout?.ReadProvenance(deleteStale: false);
        context.Info($"Series {repository.ReadVersion()} in {repository.PatchesDirectory}");
        context.Info($"{"TAG",-24} {"REPOSITORY",-24} {"COMMIT",-40} {"PATCHES",7}  {"SHARED SERIES",-20}  CHECKOUT");
        foreach (BaseInfo baseInfo in repository.LoadBases())
        {
            SeriesDefinition series = repository.LoadSeries(baseInfo);
            string shared = string.Join(",", series.Parts.Where(p => p.IsShared).Select(p => p.SharedName));
            string mark = provenance?.BaseCommit == baseInfo.Commit ? $"patched from here (series {provenance.SeriesVersion})" : head == baseInfo.Commit ? "HEAD is here" : "";
            if (checkout?.TagCommit(baseInfo.Tag) is string tagCommit && tagCommit != baseInfo.Commit)
            {
                context.Warn($"in {checkout.Root}, tag {baseInfo.Tag} points at {tagCommit}, not at {baseInfo.Commit} as base.json says.");
            }

            context.Info($"{baseInfo.Tag,-24} {baseInfo.RepositoryName,-24} {baseInfo.Commit,-40} {series.Patches.Count,7}  {(shared.Length == 0 ? "-" : shared),-20}  {mark}".TrimEnd());
        }

        return ExitCodes.Success;
    }
}
