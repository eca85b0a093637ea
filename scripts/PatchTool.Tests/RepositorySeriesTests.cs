using System.Collections.Generic;
using System.IO;
using DbxMem.PatchTool.Infrastructure;
using DbxMem.PatchTool.Series;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    /// <summary>
    /// The repository's own patches/ folder, validated without a checkout: every base.json parses, every series
    /// lists existing format-patch files, and every patch carries its Why:/Upstream-Status:/Base: header.
    /// (Whether the patches apply needs an arrow-adbc clone: `scripts/patch check --all`, see scripts/README.md.)
    /// </summary>
    public class RepositorySeriesTests
    {
        [Fact]
        public void EverySeriesInThisRepository_IsWellFormed()
        {
            string root = RepositoryLocator.FindRoot()!;
            var repository = new PatchRepository(Path.Combine(root, "patches"), Path.Combine(root, "driver-overlay"));

            IReadOnlyList<BaseInfo> bases = repository.LoadBases();

            Assert.NotEmpty(bases);
            Assert.Matches(@"^\d+\.\d+\.\d+", repository.ReadVersion());
            foreach (BaseInfo baseInfo in bases)
            {
                SeriesDefinition series = repository.LoadSeries(baseInfo);
                Assert.True(series.Problems.Count == 0, $"{baseInfo.Tag}: " + string.Join("; ", series.Problems));
                Assert.Empty(series.UnlistedPatchFiles);
                Assert.NotEmpty(series.Overlay);
            }
        }
    }
}
