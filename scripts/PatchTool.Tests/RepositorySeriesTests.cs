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

    [Fact]
    public void EverySeriesReadme_ListsItsSeriesAsExportWritesIt()
    {
        string root = ToolContext.RepositoryRoot()!;
        var repository = new PatchRepository(Path.Combine(root, "patches"), Path.Combine(root, "driver-overlay"));
        var folders = new Dictionary<string, IReadOnlyList<string>>();
        foreach (BaseInfo baseInfo in repository.LoadBases())
        {
            folders[baseInfo.Folder] = SeriesFile.Entries(Path.Combine(baseInfo.Folder, SeriesFile.Name)).ToList();
            foreach (SeriesPart part in repository.LoadSeries(baseInfo).Parts.Where(p => p.IsShared))
            {
                folders[part.Folder] = part.Names;
            }
        }

        foreach ((string folder, IReadOnlyList<string> entries) in folders)
        {
            string expected = SeriesReadme.Render(folder, entries, name => File.Exists(Path.Combine(folder, name)) ? PatchFile.Load(Path.Combine(folder, name)) : null);
            string actual = File.Exists(Path.Combine(folder, SeriesReadme.FileName)) ? File.ReadAllText(Path.Combine(folder, SeriesReadme.FileName)).Replace("\r\n", "\n") : "";
            Assert.True(expected == actual, $"{folder}/{SeriesReadme.FileName} does not list its series as `scripts/patch export` writes it: run export, or edit the series and the patches' messages, not the list");
        }
    }
}
