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
            string folder = Path.Combine(PatchesDirectory, tag);
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

        /// <summary>Reads the series of one base, the overlay and VERSION; problems are collected, not thrown.</summary>
        public SeriesDefinition LoadSeries(BaseInfo baseInfo)
        {
            string version = ReadVersion();
            IReadOnlyList<OverlayFile> overlay = OverlayFile.LoadAll(OverlayDirectory);
            var problems = new List<string>();
            var patches = new List<PatchFile>();
            string seriesPath = Path.Combine(baseInfo.Folder, SeriesFile.FileName);
            string? seriesText = File.Exists(seriesPath) ? File.ReadAllText(seriesPath) : null;
            var listed = new HashSet<string>(StringComparer.Ordinal);
            if (seriesText == null)
            {
                problems.Add($"{seriesPath} is missing (create it, even empty, to list the patches in order)");
            }
            else
            {
                foreach (string entry in SeriesFile.ParseEntries(seriesText))
                {
                    if (entry.Contains('/') || entry.Contains('\\') || !entry.EndsWith(".patch", StringComparison.Ordinal))
                    {
                        problems.Add($"series entry '{entry}' must be a file name ending in .patch, in the same folder");
                        continue;
                    }

                    if (!listed.Add(entry))
                    {
                        problems.Add($"series lists '{entry}' twice");
                        continue;
                    }

                    string file = Path.Combine(baseInfo.Folder, entry);
                    if (!File.Exists(file))
                    {
                        problems.Add($"series lists '{entry}' but {file} does not exist");
                        continue;
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

                    patches.Add(patch);
                }
            }

            List<string> unlisted = Directory.EnumerateFiles(baseInfo.Folder, "*.patch")
                .Select(Path.GetFileName)
                .Where(n => n != null && !listed.Contains(n))
                .Select(n => n!)
                .OrderBy(n => n, StringComparer.Ordinal)
                .ToList();
            return new SeriesDefinition(baseInfo, version, patches, overlay, problems, unlisted, seriesText);
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
