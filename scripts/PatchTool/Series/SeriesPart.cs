using System.Collections.Generic;

namespace DbxMem.PatchTool.Series
{
    /// <summary>
    /// One run of a base's series: either patches in the tag's own folder, or a shared series
    /// (patches/shared/&lt;name&gt;/) that the tag's series file includes. Export needs the parts to write each
    /// patch back where it came from, so a patch shared by several tags is stored (and edited) once.
    /// </summary>
    internal sealed class SeriesPart
    {
        public SeriesPart(string folder, string? sharedName, IReadOnlyList<string> names, string? seriesText)
        {
            Folder = folder;
            SharedName = sharedName;
            Names = names;
            SeriesText = seriesText;
        }

        /// <summary>Where the part's patch files live.</summary>
        public string Folder { get; }

        /// <summary>The shared series' name, or null for the tag's own patches.</summary>
        public string? SharedName { get; }

        public bool IsShared => SharedName != null;

        /// <summary>
        /// The patch file names of this part, in series order, as listed: a name whose file does not exist yet counts
        /// too, so listing a new commit's patch name in a shared series is how that commit joins it on export.
        /// </summary>
        public IReadOnlyList<string> Names { get; }

        /// <summary>The shared series' own order file text (null for the tag's own part).</summary>
        public string? SeriesText { get; }
    }
}
