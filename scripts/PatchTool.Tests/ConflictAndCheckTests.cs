using System.IO;
using System.Linq;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    public class ConflictAndCheckTests
    {
        /// <summary>Tag "22" adds a method exactly where the Dispose patch adds its own: a real conflict.</summary>
        private static string AddConflictingTag22(FakeAdbc fake)
        {
            return fake.AddBase(FakeAdbc.Tag22, f => f.WriteFile(
                FakeAdbc.DatabaseFile,
                FakeAdbc.DatabaseSource.Replace(
                    "            return \"connection\";\n        }\n",
                    "            return \"connection\";\n        }\n\n        public void Close()\n        {\n        }\n")));
        }

        [Fact]
        public void Apply_WithAConflict_NamesThePatchAndFile_SuggestsThreeWay_AndLeavesTheTreeAsItWas()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            string base22 = AddConflictingTag22(fake);

            ToolResult result = fake.Tool("apply");

            Assert.Equal(6, result.ExitCode);
            Assert.Contains($"patch {FakeAdbc.DisposePatch} (\"Give DatabricksDatabase a Dispose that releases the memory scope\") does not apply to {FakeAdbc.Tag22} in {FakeAdbc.DatabaseFile}", result.Stderr);
            Assert.Contains("Nothing was changed in the checkout", result.Stderr);
            Assert.Contains("error: patch failed: " + FakeAdbc.DatabaseFile, result.Stderr);
            Assert.Contains("--3way", result.Stderr);
            Assert.Equal(base22, fake.Head);
            Assert.Equal("", fake.Git("status", "--porcelain", "--untracked-files=all"));
            Assert.False(File.Exists(fake.ProvenancePath));
            Assert.False(Directory.Exists(Path.Combine(fake.Checkout, FakeAdbc.OverlayDir)));
        }

        [Fact]
        public void Check_ReportsTheFailingPatchAndFile_WithoutTouchingTheCheckout()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            AddConflictingTag22(fake);
            fake.Git("checkout", "-q", FakeAdbc.Tag21);
            string index = Path.Combine(fake.Checkout, ".git", "index");
            byte[] indexBefore = File.ReadAllBytes(index);

            ToolResult here = fake.Tool("check");
            ToolResult all = fake.Tool("check", "--all");
            ToolResult other = fake.Tool("check", "--base", FakeAdbc.Tag22);

            Assert.True(here.ExitCode == 0, here.ToString());
            Assert.Contains("  ok       " + FakeAdbc.DisposePatch, here.Stdout);
            Assert.Contains($"=> the series applies to {FakeAdbc.Tag21}.", here.Stdout);
            Assert.Equal(6, all.ExitCode);
            Assert.Equal(6, other.ExitCode);
            Assert.Contains($"  FAILS    {FakeAdbc.DisposePatch}: {FakeAdbc.DatabaseFile}", other.Stderr);
            Assert.Contains("(1 later patch(es) not checked)", other.Stderr);
            Assert.Contains("check --3way", other.Stderr);
            Assert.Equal(fake.BaseCommit, fake.Head);
            Assert.Equal("", fake.Git("status", "--porcelain", "--untracked-files=all"));
            Assert.Equal(indexBefore, File.ReadAllBytes(index));
            Assert.False(File.Exists(fake.ProvenancePath));
        }

        [Fact]
        public void ThreeWayRebase_StopsForResolution_ThenExportAndReapplyGiveACleanSeries()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            AddConflictingTag22(fake);

            ToolResult stopped = fake.Tool("apply", "--3way");

            Assert.Equal(6, stopped.ExitCode);
            Assert.Contains($"patch {FakeAdbc.DisposePatch} conflicts even with a 3-way merge, in: {FakeAdbc.DatabaseFile}", stopped.Stderr);
            Assert.Contains("am --continue", stopped.Stderr);
            Assert.Contains("UU " + FakeAdbc.DatabaseFile, fake.Git("status", "--porcelain"));
            Assert.Equal(5, fake.Tool("apply").ExitCode);

            // Resolve as a maintainer would: keep both methods, continue, export, prove the new series applies.
            fake.WriteFile(FakeAdbc.DatabaseFile, FakeAdbc.DatabaseSource.Replace(
                "            return \"connection\";\n        }\n",
                "            return \"connection\";\n        }\n\n        public void Close()\n        {\n        }\n\n        public void Dispose()\n        {\n        }\n"));
            fake.Git("add", FakeAdbc.DatabaseFile);
            fake.GitIn(fake.Checkout, new System.Collections.Generic.Dictionary<string, string?> { ["GIT_COMMITTER_NAME"] = "Maintainer", ["GIT_COMMITTER_EMAIL"] = "m@example.com" }, "am", "--continue");
            Assert.Contains("partly: apply --3way stopped on a conflict (finished by hand)", fake.Tool("status").Stdout);
            Assert.Equal(5, fake.Tool("revert").ExitCode);

            ToolResult export = fake.Tool("export");
            Assert.True(export.ExitCode == 0, export.ToString());
            Assert.Contains("  M  " + FakeAdbc.DisposePatch, export.Stdout);

            Assert.Equal(0, fake.Tool("revert", "--force").ExitCode);
            ToolResult clean = fake.Tool("apply");
            Assert.True(clean.ExitCode == 0, clean.ToString());
            Assert.Contains("public void Close()", fake.ReadFile(FakeAdbc.DatabaseFile));
            Assert.Contains("public void Dispose()", fake.ReadFile(FakeAdbc.DatabaseFile));
            Assert.Equal(0, fake.Tool("export", "--check").ExitCode);
            Assert.Equal(0, fake.Tool("check", "--all").ExitCode);
        }

        [Fact]
        public void APatchWithoutItsHeader_IsReportedByCheck_AndRefusedByApply()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            string path = Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), FakeAdbc.ConnectionPatch);
            File.WriteAllText(path, File.ReadAllText(path).Replace("Upstream-Status: not-needed (vendor patch)\nBase: apache-arrow-adbc-21\n", ""));

            ToolResult check = fake.Tool("check");
            ToolResult apply = fake.Tool("apply");

            Assert.Equal(4, check.ExitCode);
            Assert.Contains($"INVALID  {FakeAdbc.ConnectionPatch} lacks the header field(s) Upstream-Status:, Base: in its commit message", check.Stderr);
            Assert.DoesNotContain(FakeAdbc.DisposePatch + " lacks", check.Stderr);
            Assert.Contains("hint: every patch needs Why:, Upstream-Status: and Base:", check.Stderr);
            Assert.Equal(4, apply.ExitCode);
            Assert.Contains(FakeAdbc.ConnectionPatch + " lacks the header field(s) Upstream-Status:, Base:", apply.Stderr);
            Assert.Equal(fake.BaseCommit, fake.Head);
            Assert.False(File.Exists(fake.ProvenancePath));
        }

        [Fact]
        public void ASeriesListingAMissingFile_OrAnUnlistedPatch_IsReported()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            string folder = fake.SeriesFolder(FakeAdbc.Tag21);
            File.AppendAllText(Path.Combine(folder, "series"), "# a comment\n\nmissing.patch\n");
            File.WriteAllText(Path.Combine(folder, "stray.patch"), "not listed\n");

            ToolResult check = fake.Tool("check");

            Assert.Equal(4, check.ExitCode);
            Assert.Contains("series lists 'missing.patch' but", check.Stderr);
            Assert.Contains("stray.patch is not listed in its series file; it is ignored", check.Stderr);
        }

        [Fact]
        public void Bases_ListsTagsAndCommits_AndMarksTheCheckoutsBase()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            string base22 = AddConflictingTag22(fake);

            ToolResult result = fake.Tool("bases");

            Assert.True(result.ExitCode == 0, result.ToString());
            string[] lines = result.Stdout.Split('\n');
            Assert.Contains(lines, l => l.StartsWith(FakeAdbc.Tag21, System.StringComparison.Ordinal) && l.Contains(fake.BaseCommit) && l.Contains("      2  ") && !l.Contains("HEAD"));
            Assert.Contains(lines, l => l.StartsWith(FakeAdbc.Tag22, System.StringComparison.Ordinal) && l.Contains(base22) && l.TrimEnd().EndsWith("HEAD is here", System.StringComparison.Ordinal));
            Assert.Equal(2, lines.Count(l => l.StartsWith("apache-arrow-adbc-", System.StringComparison.Ordinal)));
        }
    }
}
