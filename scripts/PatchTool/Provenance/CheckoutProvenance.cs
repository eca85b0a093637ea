using System.Collections.Generic;
using System.Text.Json.Serialization;

namespace DbxMem.PatchTool.Provenance
{
    /// <summary>
    /// What apply did to a checkout, stored in the checkout's git directory
    /// (&lt;git-dir&gt;/dbxmem-patch/provenance.json; scripts/README.md explains why there).
    /// </summary>
    internal sealed class CheckoutProvenance
    {
        public const string SchemaId = "dbxmem-patch-provenance/1";

        /// <summary>apply has started (or stopped at a --3way conflict the user is resolving).</summary>
        public const string StateApplying = "applying";

        /// <summary>Every patch of the series is committed; patchedHead is the last commit.</summary>
        public const string StateApplied = "applied";

        [JsonPropertyName("schema")]
        public string Schema { get; set; } = SchemaId;

        [JsonPropertyName("toolVersion")]
        public string ToolVersion { get; set; } = "";

        [JsonPropertyName("state")]
        public string State { get; set; } = StateApplying;

        [JsonPropertyName("baseTag")]
        public string BaseTag { get; set; } = "";

        [JsonPropertyName("baseCommit")]
        public string BaseCommit { get; set; } = "";

        [JsonPropertyName("seriesVersion")]
        public string SeriesVersion { get; set; } = "";

        [JsonPropertyName("seriesHash")]
        public string SeriesHash { get; set; } = "";

        [JsonPropertyName("driverDir")]
        public string DriverDir { get; set; } = "";

        [JsonPropertyName("overlayDir")]
        public string OverlayDir { get; set; } = "";

        [JsonPropertyName("driverProject")]
        public string DriverProject { get; set; } = "";

        /// <summary>The commit that adds the overlay; export starts after it.</summary>
        [JsonPropertyName("overlayCommit")]
        public string? OverlayCommit { get; set; }

        /// <summary>HEAD after the last patch; null while state is "applying".</summary>
        [JsonPropertyName("patchedHead")]
        public string? PatchedHead { get; set; }

        [JsonPropertyName("threeWay")]
        public bool ThreeWay { get; set; }

        [JsonPropertyName("patches")]
        public List<PatchRecord> Patches { get; set; } = new List<PatchRecord>();

        [JsonPropertyName("overlayFiles")]
        public List<OverlayFileRecord> OverlayFiles { get; set; } = new List<OverlayFileRecord>();

        [JsonPropertyName("appliedAtUtc")]
        public string AppliedAtUtc { get; set; } = "";
    }

    internal sealed class PatchRecord
    {
        [JsonPropertyName("name")]
        public string Name { get; set; } = "";

        [JsonPropertyName("sha256")]
        public string Sha256 { get; set; } = "";

        [JsonPropertyName("subject")]
        public string Subject { get; set; } = "";

        /// <summary>The commit git am made from the patch (null until applied).</summary>
        [JsonPropertyName("commit")]
        public string? Commit { get; set; }
    }

    internal sealed class OverlayFileRecord
    {
        /// <summary>Checkout-relative path, forward slashes.</summary>
        [JsonPropertyName("path")]
        public string Path { get; set; } = "";

        /// <summary>SHA-256 of the content with CRLF normalised to LF.</summary>
        [JsonPropertyName("sha256")]
        public string Sha256 { get; set; } = "";

        /// <summary>True for PatchSeriesInfo.cs, which the tool writes rather than copies.</summary>
        [JsonPropertyName("generated")]
        public bool Generated { get; set; }
    }
}
