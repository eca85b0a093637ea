using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Series
{
    /// <summary>
    /// The patch data of this repository (or of --patches/--overlay folders): patches/VERSION, one folder per
    /// supported upstream tag, and the overlay sources.
    /// </summary>
    internal sealed class PatchRepository
    {
        public const string VersionFileName = "VERSION";

        public PatchRepository(string patchesDirectory, string overlayDirectory)
        {
            PatchesDirectory = Path.GetFullPath(patchesDirectory);
            OverlayDirectory = Path.GetFullPath(overlayDirectory);
        }

        public string PatchesDirectory { get; }

        public string OverlayDirectory { get; }

        public string ReadVersion()
        {
            RequirePatchesDirectory();
            string file = Path.Combine(PatchesDirectory, VersionFileName);
            if (!File.Exists(file))
            {
                throw new ToolException(ExitCodes.InvalidSeries, $"{file} is missing.", "create it with the series version on one line, e.g. 1.0.0");
            }

            string version = File.ReadAllText(file).Trim();
            if (!Regex.IsMatch(version, @"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$"))
            {
                throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"{file} holds '{version}', which is not a version like 1.0.0 or 1.1.0-rc.1.",
                    "write a semantic version; it becomes part of the NuGet version suffix (dbxmem.<version>)");
            }

            return version;
        }

        /// <summary>Every folder with a base.json, ordered by tag.</summary>
        public IReadOnlyList<BaseInfo> LoadBases()
        {
            RequirePatchesDirectory();
            return Directory.EnumerateDirectories(PatchesDirectory)
                .Where(d => File.Exists(Path.Combine(d, "base.json")))
                .OrderBy(d => Path.GetFileName(d), StringComparer.Ordinal)
                .Select(BaseInfo.Load)
                .ToList();
        }

        public BaseInfo LoadBase(string tag)
        {
            string folder = Path.Combine(PatchesDirectory, BaseInfo.FolderName(tag));
            if (!File.Exists(Path.Combine(folder, "base.json")))
            {
                string known = string.Join(", ", LoadBases().Select(b => b.Tag));
                throw new ToolException(
                    ExitCodes.InvalidSeries,
                    $"there is no series for '{tag}' ({folder}/base.json does not exist).",
                    $"supported bases: {(known.Length == 0 ? "none" : known)}; to add one, see 'Adding a base tag' in scripts/README.md");
            }

            return BaseInfo.Load(folder);
        }

        /// <summary>patches/shared/: series that several tags include (tags whose driver sources are identical).</summary>
        public string SharedDirectory => Path.Combine(PatchesDirectory, SharedFolderName);

        public const string SharedFolderName = "shared";

        public string SharedSeriesFolder(string name) => Path.Combine(SharedDirectory, name);

        /// <summary>The tags whose series includes the shared series <paramref name="name"/>, in tag order.</summary>
        public IReadOnlyList<string> TagsIncluding(string name)
        {
            return LoadBases()
                .Where(b => ReadEntries(b.Folder).Any(e => SeriesFile.IncludedName(e) == name))
                .Select(b => b.Tag)
                .ToList();
        }

        /// <summary>Reads the series of one base, the overlay and VERSION; problems are collected, not thrown.</summary>
        public SeriesDefinition LoadSeries(BaseInfo baseInfo)
        {
            string version = ReadVersion();
            IReadOnlyList<OverlayFile> overlay = OverlayFile.LoadAll(OverlayDirectory);
            var problems = new List<string>();
            var patches = new List<PatchFile>();
            var parts = new List<SeriesPart>();
            var listedEverywhere = new HashSet<string>(StringComparer.Ordinal);
            var unlisted = new List<string>();
            string seriesPath = Path.Combine(baseInfo.Folder, SeriesFile.FileName);
            string? seriesText = File.Exists(seriesPath) ? File.ReadAllText(seriesPath) : null;
            if (seriesText == null)
            {
                problems.Add($"{seriesPath} is missing (create it, even empty, to list the patches in order)");
            }
            else
            {
                var own = new List<string>();
                var includedHere = new HashSet<string>(StringComparer.Ordinal);
                foreach (string entry in SeriesFile.ParseEntries(seriesText))
                {
                    string? shared = SeriesFile.IncludedName(entry);
                    if (shared == null)
                    {
                        if (LoadPatchEntry(baseInfo.Folder, entry, listedEverywhere, problems) is PatchFile patch)
                        {
                            patches.Add(patch);
                            own.Add(entry);
                        }

                        continue;
                    }

                    if (!Regex.IsMatch(shared, @"^[A-Za-z0-9][A-Za-z0-9._-]*$") || !includedHere.Add(shared))
                    {
                        problems.Add($"'{entry}': a series includes a shared series (a folder name under patches/{SharedFolderName}/) at most once");
                        continue;
                    }

                    string folder = SharedSeriesFolder(shared);
                    string sharedSeriesPath = Path.Combine(folder, SeriesFile.FileName);
                    if (!File.Exists(sharedSeriesPath))
                    {
                        problems.Add($"'{entry}': {sharedSeriesPath} does not exist");
                        continue;
                    }

                    if (own.Count > 0)
                    {
                        parts.Add(new SeriesPart(baseInfo.Folder, null, own, null));
                        own = new List<string>();
                    }

                    string sharedText = File.ReadAllText(sharedSeriesPath);
                    var names = new List<string>();
                    foreach (string sharedEntry in SeriesFile.ParseEntries(sharedText))
                    {
                        if (SeriesFile.IncludedName(sharedEntry) != null)
                        {
                            problems.Add($"{sharedSeriesPath}: '{sharedEntry}': a shared series lists patches only (no nested include)");
                        }
                        else
                        {
                            // Listed names count even before their file exists (see SeriesPart.Names); the missing
                            // file is still a problem for apply and check.
                            names.Add(sharedEntry);
                            if (LoadPatchEntry(folder, sharedEntry, listedEverywhere, problems) is PatchFile patch)
                            {
                                patches.Add(patch);
                            }
                        }
                    }

                    parts.Add(new SeriesPart(folder, shared, names, sharedText));
                    unlisted.AddRange(UnlistedIn(folder, names).Select(n => $"{SharedFolderName}/{shared}/{n}"));
                }

                if (own.Count > 0)
                {
                    parts.Add(new SeriesPart(baseInfo.Folder, null, own, null));
                }
            }

            var ownNames = new HashSet<string>(parts.Where(p => !p.IsShared).SelectMany(p => p.Names), StringComparer.Ordinal);
            unlisted.InsertRange(0, UnlistedIn(baseInfo.Folder, ownNames));
            return new SeriesDefinition(baseInfo, version, patches, overlay, problems, unlisted, seriesText, parts);
        }

        private static IEnumerable<string> ReadEntries(string folder)
        {
            string path = Path.Combine(folder, SeriesFile.FileName);
            return File.Exists(path) ? SeriesFile.ParseEntries(File.ReadAllText(path)) : Array.Empty<string>();
        }

        private static List<string> UnlistedIn(string folder, IEnumerable<string> listed)
        {
            var set = new HashSet<string>(listed, StringComparer.Ordinal);
            return Directory.EnumerateFiles(folder, "*.patch")
                .Select(Path.GetFileName)
                .Where(n => n != null && !set.Contains(n))
                .Select(n => n!)
                .OrderBy(n => n, StringComparer.Ordinal)
                .ToList();
        }

        /// <summary>Loads one series entry from <paramref name="folder"/>; a problem (not an exception) when it is unusable.</summary>
        private static PatchFile? LoadPatchEntry(string folder, string entry, HashSet<string> listed, List<string> problems)
        {
            if (entry.Contains('/') || entry.Contains('\\') || !entry.EndsWith(".patch", StringComparison.Ordinal))
            {
                problems.Add($"series entry '{entry}' must be a file name ending in .patch, in the same folder (or `{SeriesFile.IncludeKeyword} <shared series>`)");
                return null;
            }

            if (!listed.Add(entry))
            {
                problems.Add($"series lists '{entry}' twice (patch names are unique across a tag's series and the shared series it includes)");
                return null;
            }

            string file = Path.Combine(folder, entry);
            if (!File.Exists(file))
            {
                problems.Add($"series lists '{entry}' but {file} does not exist");
                return null;
            }

            PatchFile patch = PatchFile.Load(file);
            if (!patch.IsMbox)
            {
                problems.Add($"{entry} is not a git format-patch file (it needs the 'From <sha> ...' line and From:/Subject: headers); make it with `scripts/patch export`");
            }
            else if (!patch.HasDiff)
            {
                problems.Add($"{entry} holds no 'diff --git' section");
            }

            if (patch.MissingHeaderFields.Count > 0)
            {
                problems.Add($"{entry} lacks the header field(s) {string.Join(", ", patch.MissingHeaderFields.Select(f => f + ":"))} in its commit message");
            }

            return patch;
        }

        private void RequirePatchesDirectory()
        {
            if (!Directory.Exists(PatchesDirectory))
            {
                throw new ToolException(
                    ExitCodes.Environment,
                    $"patches folder {PatchesDirectory} does not exist.",
                    "pass --patches DIR, or run the tool from a clone of this repository (it uses patches/)");
            }
        }
    }
}
