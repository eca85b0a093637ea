using System;
using System.Collections.Generic;
using System.IO;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.RegularExpressions;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Series
{
    /// <summary>
    /// patches/&lt;tag&gt;/base.json: the upstream commit a series was made on and where the driver lives in that tree.
    /// Paths are repository-relative with forward slashes, as git prints them.
    /// </summary>
    internal sealed class BaseInfo
    {
        /// <summary>The overlay's own namespace (driver-overlay/*.cs declare it); the driver's in apache/arrow-adbc.</summary>
        public const string DefaultOverlayNamespace = "Apache.Arrow.Adbc.Drivers.Databricks";

        public const string DefaultRepository = "apache/arrow-adbc";

        /// <summary>The base's name: the upstream tag (e.g. csharp/v1.1.7), or a name for a commit of a branch.</summary>
        [JsonPropertyName("tag")]
        public string Tag { get; set; } = "";

        /// <summary>Optional: the upstream repository (default apache/arrow-adbc), for people and reports.</summary>
        [JsonPropertyName("repository")]
        public string? Repository { get; set; }

        [JsonPropertyName("commit")]
        public string Commit { get; set; } = "";

        [JsonPropertyName("driverDir")]
        public string DriverDir { get; set; } = "";

        [JsonPropertyName("overlayDir")]
        public string OverlayDir { get; set; } = "";

        [JsonPropertyName("driverProject")]
        public string DriverProject { get; set; } = "";

        /// <summary>
        /// Optional: the driver's namespace, when it is not the overlay's own. apply then declares the copied overlay
        /// files (and the generated PatchSeriesInfo) in it; nothing else in them changes.
        /// </summary>
        [JsonPropertyName("overlayNamespace")]
        public string? OverlayNamespace { get; set; }

        /// <summary>
        /// Optional: submodules (paths from the checkout root, parents before their own submodules) the driver builds
        /// from; apply, build and pack need them checked out at the commits the checkout pins.
        /// </summary>
        [JsonPropertyName("submodules")]
        public List<string> Submodules { get; set; } = new List<string>();

        [JsonPropertyName("notes")]
        public string? Notes { get; set; }

        [JsonIgnore]
        public string Folder { get; private set; } = "";

        [JsonIgnore]
        public string Namespace => string.IsNullOrWhiteSpace(OverlayNamespace) ? DefaultOverlayNamespace : OverlayNamespace!;

        [JsonIgnore]
        public string RepositoryName => string.IsNullOrWhiteSpace(Repository) ? DefaultRepository : Repository!;

        /// <summary>The folder of a base under patches/: its tag, with '/' (csharp/v1.1.7) written as '-'.</summary>
        public static string FolderName(string tag) => tag.Replace('/', '-');

        public static BaseInfo Load(string folder)
        {
            string file = Path.Combine(folder, "base.json");
            string folderName = Path.GetFileName(folder);
            BaseInfo? info;
            try
            {
                info = JsonSerializer.Deserialize<BaseInfo>(File.ReadAllText(file), new JsonSerializerOptions { ReadCommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
            }
            catch (JsonException ex)
            {
                throw Invalid(file, $"is not valid JSON: {ex.Message}");
            }

            if (info == null)
            {
                throw Invalid(file, "is empty");
            }

            info.Folder = folder;
            if (!Regex.IsMatch(info.Tag, @"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$") || FolderName(info.Tag) != folderName)
            {
                throw Invalid(file, $"has \"tag\": \"{info.Tag}\" but lives in folder '{folderName}'; the folder name must be the tag, with '/' written as '-'");
            }

            if (!Regex.IsMatch(info.Commit, "^[0-9a-f]{40}$"))
            {
                throw Invalid(file, $"has \"commit\": \"{info.Commit}\"; it must be the full 40-hex commit id (git rev-parse {info.Tag}^{{commit}})");
            }

            RequireRelative(file, "driverDir", info.DriverDir);
            RequireRelative(file, "overlayDir", info.OverlayDir);
            RequireRelative(file, "driverProject", info.DriverProject);
            foreach (string submodule in info.Submodules)
            {
                RequireRelative(file, "submodules", submodule);
            }

            if (!info.DriverProject.EndsWith(".csproj", StringComparison.Ordinal))
            {
                throw Invalid(file, $"has \"driverProject\": \"{info.DriverProject}\"; it must name a .csproj file");
            }

            if (!Regex.IsMatch(info.Namespace, @"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"))
            {
                throw Invalid(file, $"has \"overlayNamespace\": \"{info.OverlayNamespace}\", which is not a C# namespace");
            }

            return info;
        }

        private static void RequireRelative(string file, string field, string value)
        {
            if (string.IsNullOrWhiteSpace(value) || value.StartsWith('/') || value.Contains('\\') || value.Contains("..", StringComparison.Ordinal) || value.Contains(':', StringComparison.Ordinal) || value.EndsWith('/'))
            {
                throw Invalid(file, $"has \"{field}\": \"{value}\"; it must be a path relative to the checkout root, with forward slashes and no trailing slash");
            }
        }

        private static ToolException Invalid(string file, string what)
        {
            return new ToolException(ExitCodes.InvalidSeries, $"{file} {what}.", "fix base.json; patches/README.md describes its fields");
        }
    }
}
