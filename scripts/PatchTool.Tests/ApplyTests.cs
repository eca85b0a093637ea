using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text.Json;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    public class ApplyTests
    {
        [Fact]
        public void Apply_CommitsTheOverlayThenEachPatch_PreservingAuthorDateAndMessage()
        {
            using FakeAdbc fake = FakeAdbc.Create();

            ToolResult result = fake.Tool("apply");

            Assert.True(result.ExitCode == 0, result.ToString());
            Assert.Contains("applied " + FakeAdbc.DisposePatch, result.Stdout);
            string[] log = fake.Git("log", "--format=%H%x09%an <%ae>%x09%aI%x09%s", "--reverse", fake.BaseCommit + "..HEAD").Split('\n');
            Assert.Equal(3, log.Length);
            Assert.EndsWith("\tAdd the dbxmem memory overlay (series 1.0.0)", log[0]);
            Assert.Equal($"{FakeAdbc.PatchAuthorName} <{FakeAdbc.PatchAuthorEmail}>\t{FakeAdbc.DisposePatchDate}\tGive DatabricksDatabase a Dispose that releases the memory scope", log[1].Split('\t', 2)[1]);
            Assert.EndsWith("\tPass the memory scope to DatabricksConnection", log[2]);

            // The message keeps the DEP-3 header and gains the Patch-Filename trailer that pins the export name.
            string message = fake.Git("log", "-1", "--format=%B", "HEAD~1");
            Assert.Contains("Upstream-Status: superseded upstream by #3654 in tag 22", message);
            Assert.Contains("Patch-Filename: " + FakeAdbc.DisposePatch, message);

            // The overlay commit holds exactly the overlay sources plus the generated file; README and nested projects stay out.
            string[] overlayFiles = fake.Git("show", "--name-only", "--format=", "HEAD~2").Split('\n');
            Assert.Equal(
                new[] { FakeAdbc.OverlayDir + "/DatabricksMemoryScope.cs", FakeAdbc.OverlayDir + "/Lz4/Lz4Helper.cs", FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs" },
                overlayFiles.OrderBy(f => f, StringComparer.Ordinal).ToArray());
            Assert.Equal(File.ReadAllText(Path.Combine(fake.Overlay, "Lz4", "Lz4Helper.cs")), fake.ReadFile(FakeAdbc.OverlayDir + "/Lz4/Lz4Helper.cs"));
            Assert.Contains("public void Dispose()", fake.ReadFile(FakeAdbc.DatabaseFile));
            Assert.Contains("MemoryScope", fake.ReadFile(FakeAdbc.ConnectionFile));
            Assert.Equal("", fake.Git("status", "--porcelain"));
            Assert.Equal("main", fake.Git("rev-parse", "--abbrev-ref", "HEAD"));
        }

        [Fact]
        public void Apply_WritesPatchSeriesInfoConstants()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);

            string info = fake.ReadFile(FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs");
            using JsonDocument provenance = JsonDocument.Parse(File.ReadAllText(fake.ProvenancePath));
            string hash = provenance.RootElement.GetProperty("seriesHash").GetString()!;
            Assert.Contains("namespace Apache.Arrow.Adbc.Drivers.Databricks", info);
            Assert.Contains("public const string SeriesVersion = \"1.0.0\";", info);
            Assert.Contains($"public const string BaseTag = \"{FakeAdbc.Tag21}\";", info);
            Assert.Contains($"public const string BaseCommit = \"{fake.BaseCommit}\";", info);
            Assert.Contains($"public const string SeriesHash = \"{hash}\";", info);
            Assert.Contains("Series-Hash: " + hash, fake.Git("log", "-1", "--format=%B", "HEAD~2"));
        }

        [Fact]
        public void Apply_RecordsProvenanceWithEveryField()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            DateTimeOffset before = DateTimeOffset.UtcNow.AddSeconds(-2);

            Assert.Equal(0, fake.Tool("apply").ExitCode);

            DateTimeOffset after = DateTimeOffset.UtcNow.AddSeconds(2);
            using JsonDocument document = JsonDocument.Parse(File.ReadAllText(fake.ProvenancePath));
            JsonElement p = document.RootElement;
            Assert.Equal(
                new[] { "schema", "toolVersion", "state", "baseTag", "baseCommit", "seriesVersion", "seriesHash", "driverDir", "overlayDir", "driverProject", "overlayCommit", "patchedHead", "threeWay", "patches", "overlayFiles", "appliedAtUtc" },
                p.EnumerateObject().Select(o => o.Name).ToArray());
            Assert.Equal("dbxmem-patch-provenance/1", p.GetProperty("schema").GetString());
            Assert.Equal("1.0.0", p.GetProperty("toolVersion").GetString());
            Assert.Equal("applied", p.GetProperty("state").GetString());
            Assert.Equal(FakeAdbc.Tag21, p.GetProperty("baseTag").GetString());
            Assert.Equal(fake.BaseCommit, p.GetProperty("baseCommit").GetString());
            Assert.Equal("1.0.0", p.GetProperty("seriesVersion").GetString());
            Assert.Matches("^sha256:[0-9a-f]{64}$", p.GetProperty("seriesHash").GetString());
            Assert.Equal(FakeAdbc.DriverDir, p.GetProperty("driverDir").GetString());
            Assert.Equal(FakeAdbc.OverlayDir, p.GetProperty("overlayDir").GetString());
            Assert.Equal(FakeAdbc.DriverProject, p.GetProperty("driverProject").GetString());
            Assert.Equal(fake.Git("rev-parse", "HEAD~2"), p.GetProperty("overlayCommit").GetString());
            Assert.Equal(fake.Head, p.GetProperty("patchedHead").GetString());
            Assert.False(p.GetProperty("threeWay").GetBoolean());

            JsonElement[] patches = p.GetProperty("patches").EnumerateArray().ToArray();
            Assert.Equal(2, patches.Length);
            string[] names = { FakeAdbc.DisposePatch, FakeAdbc.ConnectionPatch };
            string[] subjects = { "Give DatabricksDatabase a Dispose that releases the memory scope", "Pass the memory scope to DatabricksConnection" };
            string[] commits = { fake.Git("rev-parse", "HEAD~1"), fake.Head };
            for (int i = 0; i < 2; i++)
            {
                Assert.Equal(names[i], patches[i].GetProperty("name").GetString());
                Assert.Equal(Sha256(File.ReadAllBytes(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), names[i]))), patches[i].GetProperty("sha256").GetString());
                Assert.Equal(subjects[i], patches[i].GetProperty("subject").GetString());
                Assert.Equal(commits[i], patches[i].GetProperty("commit").GetString());
            }

            JsonElement[] overlay = p.GetProperty("overlayFiles").EnumerateArray().ToArray();
            Assert.Equal(
                new[] { FakeAdbc.OverlayDir + "/DatabricksMemoryScope.cs", FakeAdbc.OverlayDir + "/Lz4/Lz4Helper.cs", FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs" },
                overlay.Select(o => o.GetProperty("path").GetString()).ToArray());
            foreach (JsonElement file in overlay)
            {
                string path = file.GetProperty("path").GetString()!;
                Assert.Equal(Sha256(File.ReadAllBytes(Path.Combine(fake.Checkout, path))), file.GetProperty("sha256").GetString());
                Assert.Equal(path.EndsWith("/PatchSeriesInfo.cs", StringComparison.Ordinal), file.GetProperty("generated").GetBoolean());
            }

            DateTimeOffset applied = DateTimeOffset.ParseExact(p.GetProperty("appliedAtUtc").GetString()!, "yyyy-MM-ddTHH:mm:ssZ", CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal);
            Assert.InRange(applied, before, after);
        }

        [Fact]
        public void Apply_Twice_IsANoOp()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            string head = fake.Head;
            string provenance = File.ReadAllText(fake.ProvenancePath);

            ToolResult again = fake.Tool("apply");

            Assert.True(again.ExitCode == 0, again.ToString());
            Assert.Contains("Already patched", again.Stdout);
            Assert.Contains("nothing to do", again.Stdout);
            Assert.Equal(head, fake.Head);
            Assert.Equal(provenance, File.ReadAllText(fake.ProvenancePath));
        }

        [Fact]
        public void Apply_AfterRevert_ReproducesTheSameCommitIds()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            string first = fake.Head;
            Assert.Equal(0, fake.Tool("revert").ExitCode);

            Assert.Equal(0, fake.Tool("apply").ExitCode);

            // Fixed tool identity + author dates as committer dates: the same series on the same base gives the same ids anywhere.
            Assert.Equal(first, fake.Head);
        }

        [Fact]
        public void Apply_OnACommitThatIsNotABase_FailsWithTheSupportedBasesAndWhatToDo()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            fake.WriteFile("README.md", "local change\n");
            string head = fake.CommitAll("local commit");

            ToolResult result = fake.Tool("apply");

            Assert.Equal(5, result.ExitCode);
            Assert.Contains("is not a supported base", result.Stderr);
            Assert.Contains("1 commit(s) after " + FakeAdbc.Tag21, result.Stderr);
            Assert.Contains($"{FakeAdbc.Tag21} ({fake.BaseCommit.Substring(0, 12)})", result.Stderr);
            Assert.Contains("hint: check out a supported tag first", result.Stderr);
            Assert.Contains("checkout " + FakeAdbc.Tag21, result.Stderr);
            Assert.Equal(head, fake.Head);
            Assert.False(File.Exists(fake.ProvenancePath));
        }

        [Fact]
        public void Apply_RefusesADirtyTree_AndForceSetsTheChangesAsideInAStash()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            fake.WriteFile(FakeAdbc.ConnectionFile, FakeAdbc.ConnectionSource + "// local edit\n");
            fake.WriteFile(FakeAdbc.DriverDir + "/Untracked.cs", "// untracked in the driver folder\n");
            fake.WriteFile("notes.txt", "untracked outside the driver folder does not count\n");

            ToolResult refused = fake.Tool("apply");

            Assert.Equal(5, refused.ExitCode);
            Assert.Contains("uncommitted changes", refused.Stderr);
            Assert.Contains(" M " + FakeAdbc.ConnectionFile, refused.Stderr);
            Assert.Contains("?? " + FakeAdbc.DriverDir + "/Untracked.cs", refused.Stderr);
            Assert.DoesNotContain("notes.txt", refused.Stderr);
            Assert.Contains("--force", refused.Stderr);
            Assert.Equal(fake.BaseCommit, fake.Head);
            Assert.False(File.Exists(fake.ProvenancePath));

            ToolResult forced = fake.Tool("apply", "--force");

            Assert.True(forced.ExitCode == 0, forced.ToString());
            Assert.Contains("--force: set aside 2 uncommitted change(s) as stash", forced.Stderr);
            Assert.Contains("dbxmem patch apply --force", fake.Git("stash", "list"));
            Assert.Contains("// local edit", fake.Git("stash", "show", "-p", "stash@{0}"));
            Assert.Equal(FakeAdbc.DriverDir + "/Untracked.cs", fake.Git("show", "--name-only", "--format=", "stash@{0}^3"));
            Assert.False(File.Exists(Path.Combine(fake.Checkout, FakeAdbc.DriverDir, "Untracked.cs")));
            Assert.DoesNotContain("// local edit", fake.ReadFile(FakeAdbc.ConnectionFile));
            Assert.True(File.Exists(Path.Combine(fake.Checkout, "notes.txt")));
            Assert.Equal(3, int.Parse(fake.Git("rev-list", "--count", fake.BaseCommit + "..HEAD"), CultureInfo.InvariantCulture));
        }

        private static string Sha256(byte[] bytes) => Convert.ToHexString(SHA256.HashData(bytes)).ToLowerInvariant();
    }
}
