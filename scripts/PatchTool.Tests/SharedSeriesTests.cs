using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    /// <summary>
    /// Two tags whose driver sources are identical share one series (patches/shared/common/, included by both
    /// tags' series files): applying either tag uses the same files, export writes a shared patch once, and a
    /// tag's own extra patch stays in the tag's folder.
    /// </summary>
    public class SharedSeriesTests
    {
        private const string Shared = "common";

        /// <summary>Moves tag 21's two patches into a shared series and adds tag "22" (same driver sources) including it.</summary>
        private static void ShareTag21SeriesWithTag22(FakeAdbc fake)
        {
            string tag21 = fake.SeriesFolder(FakeAdbc.Tag21);
            string shared = SharedFolder(fake);
            Directory.CreateDirectory(shared);
            foreach (string name in new[] { FakeAdbc.DisposePatch, FakeAdbc.ConnectionPatch })
            {
                File.Move(Path.Combine(tag21, name), Path.Combine(shared, name));
            }

            File.WriteAllText(Path.Combine(shared, "series"), $"# Shared by both fake tags.\n{FakeAdbc.DisposePatch}\n{FakeAdbc.ConnectionPatch}\n");
            File.WriteAllText(Path.Combine(tag21, "series"), $"# Test series for the fake tag 21.\ninclude {Shared}\n");
            // Tag 22 changes a file outside the driver only, as upstream tags 22 and 23 did for the Databricks driver.
            fake.AddBase(FakeAdbc.Tag22, f => f.WriteFile("README.md", "fake arrow-adbc, next release\n"));
        }

        private static string SharedFolder(FakeAdbc fake) => Path.Combine(fake.Patches, "shared", Shared);

        private static Dictionary<string, byte[]> Files(string folder) =>
            Directory.EnumerateFiles(folder).ToDictionary(f => Path.GetFileName(f), File.ReadAllBytes);

        private static void Commit(FakeAdbc fake, params string[] args)
        {
            var identity = new Dictionary<string, string?>
            {
                ["GIT_AUTHOR_NAME"] = FakeAdbc.PatchAuthorName,
                ["GIT_AUTHOR_EMAIL"] = FakeAdbc.PatchAuthorEmail,
                ["GIT_AUTHOR_DATE"] = "2025-02-01T00:00:00+00:00",
                ["GIT_COMMITTER_NAME"] = FakeAdbc.PatchAuthorName,
                ["GIT_COMMITTER_EMAIL"] = FakeAdbc.PatchAuthorEmail,
                ["GIT_COMMITTER_DATE"] = "2025-02-01T00:00:00+00:00",
            };
            fake.GitIn(fake.Checkout, identity, args);
        }

        [Fact]
        public void BothTagsApplyTheSharedPatches_AndExportCheckMatchesTheSharedFiles()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            ShareTag21SeriesWithTag22(fake);
            Dictionary<string, byte[]> sharedBefore = Files(SharedFolder(fake));

            ToolResult apply22 = fake.Tool("apply");
            ToolResult check22 = fake.Tool("export", "--check");
            ToolResult bases = fake.Tool("bases");

            Assert.True(apply22.ExitCode == 0, apply22.ToString());
            Assert.Contains("Dispose()", fake.ReadFile(FakeAdbc.DatabaseFile));
            Assert.Contains("MemoryScope", fake.ReadFile(FakeAdbc.ConnectionFile));
            Assert.True(check22.ExitCode == 0, check22.ToString());
            Assert.Contains(Path.Combine("shared", Shared), check22.Stdout);
            Assert.Empty(Directory.EnumerateFiles(fake.SeriesFolder(FakeAdbc.Tag22), "*.patch"));
            Assert.Contains(bases.Stdout.Split('\n'), l => l.StartsWith(FakeAdbc.Tag21, System.StringComparison.Ordinal) && l.Contains("      2  " + Shared));
            Assert.Contains(bases.Stdout.Split('\n'), l => l.StartsWith(FakeAdbc.Tag22, System.StringComparison.Ordinal) && l.Contains("      2  " + Shared));

            Assert.Equal(0, fake.Tool("revert").ExitCode);
            fake.Git("checkout", "-q", "--detach", FakeAdbc.Tag21);
            ToolResult apply21 = fake.Tool("apply");
            ToolResult check21 = fake.Tool("export", "--check");

            Assert.True(apply21.ExitCode == 0, apply21.ToString());
            Assert.True(check21.ExitCode == 0, check21.ToString());
            Dictionary<string, byte[]> sharedAfter = Files(SharedFolder(fake));
            Assert.Equal(sharedBefore.Keys.OrderBy(k => k), sharedAfter.Keys.OrderBy(k => k));
            Assert.All(sharedBefore, f => Assert.True(f.Value.AsSpan().SequenceEqual(sharedAfter[f.Key]), f.Key));
        }

        [Fact]
        public void ChangingASharedPatchFromOneTag_WritesItOnce_AndTheOtherTagAppliesTheChange()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            ShareTag21SeriesWithTag22(fake);
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            fake.WriteFile(FakeAdbc.ConnectionFile, fake.ReadFile(FakeAdbc.ConnectionFile).Replace("MemoryScope { get; set; }", "MemoryScope { get; init; }"));
            Commit(fake, "commit", "-q", "--amend", "--no-edit", "-a");

            ToolResult export = fake.Tool("export");

            Assert.True(export.ExitCode == 0, export.ToString());
            Assert.Contains($"M  shared/{Shared}/{FakeAdbc.ConnectionPatch}", export.Stdout);
            Assert.Contains($"shared series {Shared} is included by {FakeAdbc.Tag21}, {FakeAdbc.Tag22}", export.Stdout);
            Assert.DoesNotContain($"M  series", export.Stdout);
            Assert.Empty(Directory.EnumerateFiles(fake.SeriesFolder(FakeAdbc.Tag22), "*.patch"));
            Assert.Contains("get; init;", File.ReadAllText(Path.Combine(SharedFolder(fake), FakeAdbc.ConnectionPatch)));

            Assert.Equal(0, fake.Tool("revert", "--force").ExitCode);
            fake.Git("checkout", "-q", "--detach", FakeAdbc.Tag21);
            ToolResult apply21 = fake.Tool("apply");

            Assert.True(apply21.ExitCode == 0, apply21.ToString());
            Assert.Contains("MemoryScope { get; init; }", fake.ReadFile(FakeAdbc.ConnectionFile));
        }

        [Fact]
        public void ATagsOwnPatchAfterTheSharedOnes_IsExportedIntoTheTagsFolder_AndTheSeriesKeepsTheInclude()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            ShareTag21SeriesWithTag22(fake);
            Dictionary<string, byte[]> sharedBefore = Files(SharedFolder(fake));
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            fake.WriteFile("README.md", "fake arrow-adbc, next release, patched\n");
            Commit(fake, "add", "-A");
            Commit(fake, "commit", "-q", "--no-verify", "-m", FakeAdbc.PatchMessage("Note the patch in the README", "tag 22 only.", baseTag: FakeAdbc.Tag22));

            ToolResult export = fake.Tool("export");
            ToolResult check = fake.Tool("export", "--check");

            Assert.True(export.ExitCode == 0, export.ToString());
            Assert.True(check.ExitCode == 0, check.ToString());
            string tag22 = fake.SeriesFolder(FakeAdbc.Tag22);
            Assert.True(File.Exists(Path.Combine(tag22, "note-the-patch-in-the-readme.patch")));
            Assert.EndsWith($"include {Shared}\nnote-the-patch-in-the-readme.patch\n", File.ReadAllText(Path.Combine(tag22, "series")));
            Dictionary<string, byte[]> sharedAfter = Files(SharedFolder(fake));
            Assert.All(sharedBefore, f => Assert.True(f.Value.AsSpan().SequenceEqual(sharedAfter[f.Key]), f.Key));
            Assert.Equal($"# Test series for the fake tag 21.\ninclude {Shared}\n", File.ReadAllText(Path.Combine(fake.SeriesFolder(FakeAdbc.Tag21), "series")));
        }
        [Fact]
        public void ANewPatchNamedInTheSharedSeriesBeforeExport_IsExportedIntoTheSharedFolder_ForEveryTagThatIncludesIt()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            ShareTag21SeriesWithTag22(fake);
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            fake.WriteFile(FakeAdbc.ConnectionFile, fake.ReadFile(FakeAdbc.ConnectionFile) + "// shared follow-up\n");
            Commit(fake, "add", "-A");
            Commit(fake, "commit", "-q", "--no-verify", "-m", FakeAdbc.PatchMessage("Mark the connection file", "both tags.", baseTag: FakeAdbc.Tag22));
            // How a new commit joins a shared series: its patch's name is listed there before the export.
            const string NewPatch = "mark-the-connection-file.patch";
            File.AppendAllText(Path.Combine(SharedFolder(fake), "series"), NewPatch + "\n");

            ToolResult export = fake.Tool("export");
            ToolResult check = fake.Tool("export", "--check");

            Assert.True(export.ExitCode == 0, export.ToString());
            Assert.True(check.ExitCode == 0, check.ToString());
            Assert.Contains($"A  shared/{Shared}/{NewPatch}", export.Stdout);
            Assert.Empty(Directory.EnumerateFiles(fake.SeriesFolder(FakeAdbc.Tag22), "*.patch"));
            Assert.Equal($"# Shared by both fake tags.\n{FakeAdbc.DisposePatch}\n{FakeAdbc.ConnectionPatch}\n{NewPatch}\n", File.ReadAllText(Path.Combine(SharedFolder(fake), "series")));

            // The other tag gets the new patch through its include, with no edit of its own.
            Assert.Equal(0, fake.Tool("revert", "--force").ExitCode);
            fake.Git("checkout", "-q", "--detach", FakeAdbc.Tag21);
            ToolResult apply21 = fake.Tool("apply");
            Assert.True(apply21.ExitCode == 0, apply21.ToString());
            Assert.EndsWith("// shared follow-up\n", fake.ReadFile(FakeAdbc.ConnectionFile));
        }
    }
}
