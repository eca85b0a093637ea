using System.Collections.Generic;
using System.Text.Json.Serialization;
using DbxMem.PatchTool.Infrastructure;

namespace DbxMem.PatchTool.Provenance
{
    /// <summary>Written next to the packages by `pack`: what was built, from what, with what.</summary>
    internal sealed class PackProvenance
    {
        public const string SchemaId = "dbxmem-pack-provenance/1";

        [JsonPropertyName("schema")]
        public string Schema { get; set; } = SchemaId;

        [JsonPropertyName("toolVersion")]
        public string ToolVersion { get; set; } = "";

        [JsonPropertyName("baseTag")]
        public string BaseTag { get; set; } = "";

        [JsonPropertyName("baseCommit")]
        public string BaseCommit { get; set; } = "";

        [JsonPropertyName("seriesVersion")]
        public string SeriesVersion { get; set; } = "";

        [JsonPropertyName("seriesHash")]
        public string SeriesHash { get; set; } = "";

        [JsonPropertyName("patchedHead")]
        public string PatchedHead { get; set; } = "";

        /// <summary>False when files of the checkout differed from the patched commit at pack time.</summary>
        [JsonPropertyName("workingTreeClean")]
        public bool WorkingTreeClean { get; set; }

        [JsonPropertyName("versionSuffix")]
        public string VersionSuffix { get; set; } = "";

        [JsonPropertyName("configuration")]
        public string Configuration { get; set; } = "";

        [JsonPropertyName("frameworks")]
        public List<string> Frameworks { get; set; } = new List<string>();

        [JsonPropertyName("dotnetSdk")]
        public string DotnetSdk { get; set; } = "";

        /// <summary>The -p NAME=VALUE properties the packages were built with (e.g. a substitute's warning relief).</summary>
        [JsonPropertyName("msbuildProperties")]
        public List<string> MsBuildProperties { get; set; } = new List<string>();

        /// <summary>Pinned dependencies the NuGet source lacked, and the versions the packages were built against instead.</summary>
        [JsonPropertyName("substitutedDependencies")]
        public List<Substitution> SubstitutedDependencies { get; set; } = new List<Substitution>();

        [JsonPropertyName("packages")]
        public List<PackageRecord> Packages { get; set; } = new List<PackageRecord>();

        [JsonPropertyName("patches")]
        public List<PatchRecord> Patches { get; set; } = new List<PatchRecord>();

        [JsonPropertyName("overlayFiles")]
        public List<OverlayFileRecord> OverlayFiles { get; set; } = new List<OverlayFileRecord>();

        [JsonPropertyName("createdAtUtc")]
        public string CreatedAtUtc { get; set; } = "";
    }

    internal sealed class PackageRecord
    {
        [JsonPropertyName("id")]
        public string Id { get; set; } = "";

        [JsonPropertyName("version")]
        public string Version { get; set; } = "";

        [JsonPropertyName("file")]
        public string File { get; set; } = "";

        [JsonPropertyName("sha256")]
        public string Sha256 { get; set; } = "";
    }
}
