using System.IO;
using System.Linq;
using System.Text.Json;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    public class StatusAndRevertTests
    {
        [Fact]
        public void Status_OfAnUnpatchedCheckoutAtABase_SaysSo()
        {
            using FakeAdbc fake = FakeAdbc.Create();

            ToolResult text = fake.Tool("status");
            JsonElement json = StatusJson(fake);

            Assert.True(text.ExitCode == 0, text.ToString());
            Assert.Contains($"base:      {FakeAdbc.Tag21} ({fake.BaseCommit}); HEAD is at the base commit", text.Stdout);
            Assert.Contains("patched:   no", text.Stdout);
            Assert.True(json.GetProperty("atBase").GetBoolean());
            Assert.False(json.GetProperty("patched").GetBoolean());
            Assert.Equal(FakeAdbc.Tag21, json.GetProperty("baseTag").GetString());
            Assert.Equal(fake.BaseCommit, json.GetProperty("head").GetString());
        }

        [Fact]
        public void Status_AfterApply_ReportsTheSeriesAndNoChanges()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);

            ToolResult text = fake.Tool("status");
            JsonElement json = StatusJson(fake);

            Assert.True(text.ExitCode == 0, text.ToString());
            Assert.Contains("patched:   yes, series 1.0.0 (sha256:", text.Stdout);
            Assert.Contains("repository series: same as applied", text.Stdout);
            Assert.Contains("overlay files: unchanged since apply", text.Stdout);
            Assert.Contains("other files: unchanged since apply", text.Stdout);
            Assert.True(json.GetProperty("patched").GetBoolean());
            Assert.Equal("applied", json.GetProperty("state").GetString());
            Assert.Equal("1.0.0", json.GetProperty("seriesVersion").GetString());
            Assert.True(json.GetProperty("matchesRepositorySeries").GetBoolean());
            Assert.Equal(0, json.GetProperty("commitsAfterApply").GetInt32());
            Assert.Empty(json.GetProperty("modifiedOverlayFiles").EnumerateArray());
            Assert.Empty(json.GetProperty("modifiedFiles").EnumerateArray());
        }

        [Fact]
        public void Status_ReportsModifiedOverlayAndPatchedFiles_CommitsAfterApply_AndAChangedRepositorySeries()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            fake.WriteFile(FakeAdbc.OverlayDir + "/DatabricksMemoryScope.cs", "// edited overlay\n");
            fake.WriteFile(FakeAdbc.OverlayDir + "/Extra.cs", "// new overlay file\n");
            fake.WriteFile(FakeAdbc.DatabaseFile, fake.ReadFile(FakeAdbc.DatabaseFile) + "// uncommitted edit\n");
            fake.WriteFile("README.md", "committed after apply\n");
            fake.CommitAll("local commit after apply");
            File.AppendAllText(Path.Combine(fake.Overlay, "DatabricksMemoryScope.cs"), "// the repository's overlay moved on\n");

            JsonElement json = StatusJson(fake);
            ToolResult text = fake.Tool("status");

            Assert.Equal(
                new[] { FakeAdbc.OverlayDir + "/DatabricksMemoryScope.cs", FakeAdbc.OverlayDir + "/Extra.cs (added)" },
                json.GetProperty("modifiedOverlayFiles").EnumerateArray().Select(e => e.GetString()).ToArray());
            Assert.Equal(
                new[] { "README.md", FakeAdbc.DatabaseFile },
                json.GetProperty("modifiedFiles").EnumerateArray().Select(e => e.GetString()).ToArray());
            Assert.Equal(1, json.GetProperty("commitsAfterApply").GetInt32());
            Assert.False(json.GetProperty("matchesRepositorySeries").GetBoolean());
            Assert.Contains("overlay files modified since apply (2):", text.Stdout);
            Assert.Contains("commits after apply: 1", text.Stdout);
            Assert.Contains("differs from what was applied", text.Stdout);
        }

        [Fact]
        public void Revert_ReturnsToTheBase_AndRemovesOverlayAndProvenance()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);

            ToolResult result = fake.Tool("revert");

            Assert.True(result.ExitCode == 0, result.ToString());
            Assert.Contains($"Reverted {fake.Checkout} to {FakeAdbc.Tag21}", result.Stdout);
            Assert.Equal(fake.BaseCommit, fake.Head);
            Assert.Equal("main", fake.Git("rev-parse", "--abbrev-ref", "HEAD"));
            Assert.False(Directory.Exists(Path.Combine(fake.Checkout, FakeAdbc.OverlayDir)));
            Assert.False(File.Exists(fake.ProvenancePath));
            Assert.Equal(FakeAdbc.DatabaseSource, fake.ReadFile(FakeAdbc.DatabaseFile));
            Assert.Equal("", fake.Git("status", "--porcelain", "--untracked-files=all"));

            ToolResult again = fake.Tool("revert");
            Assert.Equal(0, again.ExitCode);
            Assert.Contains("is not patched; it is at " + FakeAdbc.Tag21 + ". Nothing to revert.", again.Stdout);
        }

        [Fact]
        public void Revert_RefusesToDropUncommittedChanges_AndForceSavesThemInAStash()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            string patched = fake.Head;
            fake.WriteFile(FakeAdbc.DatabaseFile, fake.ReadFile(FakeAdbc.DatabaseFile) + "// work in progress\n");

            ToolResult refused = fake.Tool("revert");

            Assert.Equal(5, refused.ExitCode);
            Assert.Contains("revert would discard work", refused.Stderr);
            Assert.Contains(" M " + FakeAdbc.DatabaseFile, refused.Stderr);
            Assert.Contains("--force", refused.Stderr);
            Assert.Equal(patched, fake.Head);
            Assert.True(File.Exists(fake.ProvenancePath));

            ToolResult forced = fake.Tool("revert", "--force");

            Assert.True(forced.ExitCode == 0, forced.ToString());
            Assert.Equal(fake.BaseCommit, fake.Head);
            Assert.Contains("// work in progress", fake.Git("stash", "show", "-p", "stash@{0}"));
        }

        [Fact]
        public void Revert_RefusesToDropCommitsMadeAfterApply_UnlessForced()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            fake.WriteFile(FakeAdbc.ConnectionFile, fake.ReadFile(FakeAdbc.ConnectionFile) + "// more\n");
            string extra = fake.CommitAll(FakeAdbc.PatchMessage("One more patch", "testing"));

            ToolResult refused = fake.Tool("revert");

            Assert.Equal(5, refused.ExitCode);
            Assert.Contains("1 commit(s) made after apply", refused.Stderr);
            Assert.Contains("scripts/patch export", refused.Stderr);
            Assert.Equal(extra, fake.Head);

            ToolResult forced = fake.Tool("revert", "--force");

            Assert.True(forced.ExitCode == 0, forced.ToString());
            Assert.Contains("discarded 1 commit(s) made after apply", forced.Stderr);
            Assert.Equal(fake.BaseCommit, fake.Head);
        }

        [Fact]
        public void AStaleRecord_FromAnApplyWhoseCommitsAreNoLongerCheckedOut_IsIgnored()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            fake.Git("checkout", "-q", "--detach", FakeAdbc.Tag21);

            JsonElement status = StatusJson(fake);
            ToolResult apply = fake.Tool("apply");

            Assert.False(status.GetProperty("patched").GetBoolean());
            Assert.True(apply.ExitCode == 0, apply.ToString());
            Assert.Contains("ignoring the record of an earlier apply", apply.Stderr);
            Assert.Equal(3, fake.Git("rev-list", FakeAdbc.Tag21 + "..HEAD").Split('\n').Length);
        }

        private static JsonElement StatusJson(FakeAdbc fake)
        {
            ToolResult result = fake.Tool("status", "--json");
            Assert.True(result.ExitCode == 0, result.ToString());
            using JsonDocument document = JsonDocument.Parse(result.Stdout);
            return document.RootElement.Clone();
        }
    }
}
