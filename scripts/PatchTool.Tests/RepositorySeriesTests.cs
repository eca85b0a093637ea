namespace PatchTool.Tests;

/// <summary>
/// The repository's own patches/ folder, validated without a checkout: every base.json parses, every series lists
/// existing format-patch files with their Why:/Upstream-Status:/Base: header, no patch file is left unlisted, and a
/// base's prs.json, where it has one, maps every patch, overlay file and test file of its series.
/// (Whether they apply needs a clone of upstream: `scripts/patch check --all`, scripts/README.md.)
/// </summary>
public class RepositorySeriesTests
{
    [Fact]
    public void EverySeriesInThisRepository_IsWellFormed()
    {
        string root = ToolContext.RepositoryRoot()!;
        var repository = new PatchRepository(Path.Combine(root, "patches"), Path.Combine(root, "driver-overlay"));

        Assert.Matches(@"^\d+\.\d+\.\d+", repository.ReadVersion());
        Assert.NotEmpty(repository.LoadBases());
        foreach (BaseInfo baseInfo in repository.LoadBases())
        {
            SeriesDefinition series = repository.LoadSeries(baseInfo);
            Assert.True(series.Problems.Count == 0, $"{baseInfo.Tag}: " + string.Join("; ", series.Problems));
            Assert.Empty(series.UnlistedPatchFiles);
            Assert.NotEmpty(series.Overlay);
            IReadOnlyList<string> mapProblems = PrMap.Load(baseInfo)?.Problems(series) ?? [];
            Assert.True(mapProblems.Count == 0, $"{baseInfo.Tag}: " + string.Join("; ", mapProblems));
        }
    }
}
