using System.Collections.Generic;
using System.Linq;
using System.Text;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Series
{
    /// <summary>Everything apply needs for one base: the patches in order, the overlay, the version, and any problems.</summary>
    internal sealed class SeriesDefinition
    {
        public SeriesDefinition(
            BaseInfo baseInfo,
            string version,
            IReadOnlyList<PatchFile> patches,
            IReadOnlyList<OverlayFile> overlay,
            IReadOnlyList<string> problems,
            IReadOnlyList<string> unlistedPatchFiles,
            string? seriesText,
            IReadOnlyList<SeriesPart> parts)
        {
            Parts = parts;
            Base = baseInfo;
            Version = version;
            Patches = patches;
            Overlay = overlay;
            Problems = problems;
            UnlistedPatchFiles = unlistedPatchFiles;
            SeriesText = seriesText;
            Hash = ComputeHash();
        }

        public BaseInfo Base { get; }

        public string Version { get; }

        public IReadOnlyList<PatchFile> Patches { get; }

        public IReadOnlyList<OverlayFile> Overlay { get; }

        public IReadOnlyList<string> Problems { get; }

        public IReadOnlyList<string> UnlistedPatchFiles { get; }

        public string? SeriesText { get; }

        /// <summary>The series as runs of the tag's own patches and included shared series, in order.</summary>
        public IReadOnlyList<SeriesPart> Parts { get; }

        /// <summary>
        /// "sha256:&lt;hex&gt;" over a canonical listing of version, base, patches (name + raw sha256, in order)
        /// and overlay files (path + LF-normalised sha256). Equal hashes mean "this exact series".
        /// </summary>
        public string Hash { get; }

        public void EnsureValid()
        {
            if (Problems.Count > 0)
            {
                throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"the series for {Base.Tag} ({Base.Folder}) is invalid:\n  - " + string.Join("\n  - ", Problems),
                    "fix the listed files; patches/README.md describes the series file and the patch header (Why:, Upstream-Status:, Base:)");
            }
        }

        private string ComputeHash()
        {
            var canonical = new StringBuilder();
            canonical.Append("dbxmem-patch-series/1\n");
            canonical.Append("version ").Append(Version).Append('\n');
            canonical.Append("base ").Append(Base.Tag).Append(' ').Append(Base.Commit).Append('\n');
            foreach (PatchFile patch in Patches)
            {
                canonical.Append("patch ").Append(patch.Name).Append(' ').Append(patch.Sha256).Append('\n');
            }

            foreach (OverlayFile file in Overlay.OrderBy(f => f.RelativePath, System.StringComparer.Ordinal))
            {
                canonical.Append("overlay ").Append(file.RelativePath).Append(' ').Append(file.Sha256).Append('\n');
            }

            return "sha256:" + Hashing.Sha256Hex(canonical.ToString());
        }
    }
}
