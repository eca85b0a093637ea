using System.Collections.Generic;
using System.IO;
using System.Text.Json;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    /// <summary>
    /// A base shaped like adbc-drivers/databricks: a tag with a '/' (csharp/v1.1.7 upstream), a driver in another
    /// namespace than the overlay's, and a submodule the driver builds from (a second local repository, as
    /// csharp/hiveserver2 is). The fake tag-21 series applies to it unchanged.
    /// </summary>
    public class NewHomeBaseTests
    {
        private const string Tag = "csharp/v9.9.9";
        private const string Submodule = "csharp/hiveserver2";
        private const string DriverNamespace = "AdbcDrivers.Databricks";
        private const string OverlayNamespace = "namespace Apache.Arrow.Adbc.Drivers.Databricks\n";

        /// <summary>An overlay file that also spells the overlay's namespace in a string (as the meter name does).</summary>
        private const string MeterSource =
            OverlayNamespace + "{\n    internal static class Meter\n    {\n        public const string Name = \"Apache.Arrow.Adbc.Drivers.Databricks.Memory\";\n    }\n}\n";

        private static readonly Dictionary<string, string?> Identity = new Dictionary<string, string?>
        {
            ["GIT_AUTHOR_NAME"] = "Upstream Dev",
            ["GIT_AUTHOR_EMAIL"] = "dev@example.com",
            ["GIT_COMMITTER_NAME"] = "Upstream Dev",
            ["GIT_COMMITTER_EMAIL"] = "dev@example.com",
        };

        /// <summary>
        /// Tag 21's commit plus a submodule at <see cref="Submodule"/> (whose repository has two commits; the second is
        /// pinned), tagged <see cref="Tag"/>, with patches/csharp-v9.9.9/ holding tag 21's series. Returns the
        /// submodule's first commit, "another commit than pinned".
        /// </summary>
        private static string AddNewHomeBase(FakeAdbc fake)
        {
            string repository = Path.Combine(fake.Root, "hiveserver2");
            Directory.CreateDirectory(repository);
            fake.GitIn(repository, null, "init", "-q");
            File.WriteAllText(Path.Combine(repository, "HiveServer2.cs"), "// first\n");
            fake.GitIn(repository, null, "add", "-A");
            fake.GitIn(repository, Identity, "commit", "-q", "-m", "first");
            string older = fake.GitIn(repository, null, "rev-parse", "HEAD");
            File.WriteAllText(Path.Combine(repository, "HiveServer2.cs"), "// second\n");
            fake.GitIn(repository, Identity, "commit", "-q", "-am", "second");

            fake.Git("checkout", "-q", "--detach", fake.BaseCommit);
            fake.GitIn(fake.Checkout, null, "-c", "protocol.file.allow=always", "submodule", "add", "-q", repository, Submodule);
            string commit = fake.CommitAll("Upstream release " + Tag, date: "2024-09-01T10:00:00+00:00");
            fake.Git("tag", Tag);

            string folder = Path.Combine(fake.Patches, "csharp-v9.9.9");
            Directory.CreateDirectory(folder);
            foreach (string file in Directory.EnumerateFiles(fake.SeriesFolder(FakeAdbc.Tag21)))
            {
                File.Copy(file, Path.Combine(folder, Path.GetFileName(file)));
            }

            var baseJson = new Dictionary<string, object>
            {
                ["tag"] = Tag,
                ["repository"] = "adbc-drivers/databricks",
                ["commit"] = commit,
                ["driverDir"] = FakeAdbc.DriverDir,
                ["overlayDir"] = FakeAdbc.OverlayDir,
                ["driverProject"] = FakeAdbc.DriverProject,
                ["overlayNamespace"] = DriverNamespace,
                ["submodules"] = new[] { Submodule },
            };
            File.WriteAllText(Path.Combine(folder, "base.json"), JsonSerializer.Serialize(baseJson));
            return older;
        }

        private static void UpdateSubmodules(FakeAdbc fake) =>
            fake.GitIn(fake.Checkout, null, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "--recursive", "-q");

        [Fact]
        public void Apply_DeclaresTheOverlayInTheDriversNamespaceOnly_AndCheckAndExportTakeThatCopyAsTheOverlay()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            File.WriteAllText(Path.Combine(fake.Overlay, "Meter.cs"), MeterSource);
            AddNewHomeBase(fake);

            ToolResult bases = fake.Tool("bases");
            ToolResult apply = fake.Tool("apply");

            Assert.True(apply.ExitCode == 0, apply.ToString());
            Assert.Contains($"Done: {Tag} + series 1.0.0", apply.Stdout);
            Assert.Contains(bases.Stdout.Split('\n'), l => l.StartsWith(Tag + " ", System.StringComparison.Ordinal) && l.Contains("adbc-drivers/databricks"));
            // Only the declaration moves; the string that spells the old namespace (a meter name) stays as it was.
            string meter = fake.ReadFile(FakeAdbc.OverlayDir + "/Meter.cs");
            Assert.Equal(MeterSource.Replace(OverlayNamespace, $"namespace {DriverNamespace}\n"), meter);
            Assert.Contains("\"Apache.Arrow.Adbc.Drivers.Databricks.Memory\"", meter);
            Assert.StartsWith($"namespace {DriverNamespace}\n", fake.ReadFile(FakeAdbc.OverlayDir + "/Lz4/Lz4Helper.cs"));
            Assert.Contains($"namespace {DriverNamespace}\n", fake.ReadFile(FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs"));
            Assert.Contains($"public const string BaseTag = \"{Tag}\";", fake.ReadFile(FakeAdbc.OverlayDir + "/PatchSeriesInfo.cs"));

            ToolResult check = fake.Tool("check");
            ToolResult exportCheck = fake.Tool("export", "--check");
            ToolResult status = fake.Tool("status");
            ToolResult again = fake.Tool("apply");

            Assert.True(check.ExitCode == 0, check.ToString());
            Assert.True(exportCheck.ExitCode == 0, exportCheck.ToString());
            Assert.Contains("overlay files: unchanged since apply", status.Stdout);
            Assert.True(again.ExitCode == 0 && again.Stdout.Contains("Already patched"), again.ToString());
        }

        [Fact]
        public void ACheckoutWithoutItsSubmodule_OrWithItAtAnotherCommit_IsToldToUpdateThem()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            string older = AddNewHomeBase(fake);
            string baseCommit = fake.Head;
            fake.Git("submodule", "deinit", "-q", "-f", Submodule);

            ToolResult missing = fake.Tool("apply");
            ToolResult build = fake.Tool("build", "--allow-unpatched");

            Assert.Equal(5, missing.ExitCode);
            Assert.Contains($"{Submodule} is not checked out", missing.Stderr);
            Assert.Contains("submodule update --init --recursive`", missing.Stderr);
            Assert.Equal(baseCommit, fake.Head);
            Assert.Equal(5, build.ExitCode);
            Assert.Contains($"{Submodule} is not checked out", build.Stderr);

            UpdateSubmodules(fake);
            fake.GitIn(Path.Combine(fake.Checkout, Submodule), null, "checkout", "-q", older);
            ToolResult elsewhere = fake.Tool("apply");

            Assert.Equal(5, elsewhere.ExitCode);
            Assert.Contains($"{Submodule} is at {older.Substring(0, 12)}, not at the commit {Tag} pins", elsewhere.Stderr);
            Assert.Contains("submodule update --init --recursive`", elsewhere.Stderr);

            UpdateSubmodules(fake);
            ToolResult applied = fake.Tool("apply");

            Assert.True(applied.ExitCode == 0, applied.ToString());
        }

        [Fact]
        public void ABaseFolderMustBeItsTagWithSlashesAsDashes()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            AddNewHomeBase(fake);
            Directory.Move(Path.Combine(fake.Patches, "csharp-v9.9.9"), Path.Combine(fake.Patches, "v9.9.9"));

            ToolResult bases = fake.Tool("bases");

            Assert.Equal(4, bases.ExitCode);
            Assert.Contains($"has \"tag\": \"{Tag}\" but lives in folder 'v9.9.9'; the folder name must be the tag, with '/' written as '-'", bases.Stderr);
        }
    }
}
