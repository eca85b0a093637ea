using System;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Security.Cryptography;
using System.Text.Json;
using DbxMem.PatchTool.Tests.Support;
using Xunit;

namespace DbxMem.PatchTool.Tests
{
    /// <summary>
    /// build and pack against the fake driver project (net10.0 only, no package references, so it restores
    /// offline). The real driver's targets are covered by the outside-CI run documented in scripts/README.md.
    /// </summary>
    public class BuildAndPackTests
    {
        [Fact]
        public void BuildThenPack_ThePatchedDriver_ReportsTargets_AndWritesPackagesWithProvenance()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            string output = Path.Combine(fake.Root, "packages");

            ToolResult build = fake.Tool("build");

            Assert.True(build.ExitCode == 0, build.ToString());
            Assert.Contains($"Building {FakeAdbc.DriverProject} (Release) for net10.0: {FakeAdbc.Tag21} + series 1.0.0", build.Stdout);
            Assert.Contains($"  net10.0          ok      {FakeAdbc.DriverDir}/bin/Release/net10.0/Fake.Databricks.dll", build.Stdout);
            Assert.Contains("All 1 target(s) built.", build.Stdout);
            Assert.True(File.Exists(Path.Combine(fake.Checkout, FakeAdbc.DriverDir, "bin", "Release", "net10.0", "Fake.Databricks.dll")));

            DateTimeOffset before = DateTimeOffset.UtcNow.AddSeconds(-2);
            ToolResult pack = fake.Tool("pack", "--output", output);

            Assert.True(pack.ExitCode == 0, pack.ToString());
            string package = Path.Combine(output, "Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg");
            Assert.True(File.Exists(package), pack.ToString());
            using (ZipArchive zip = ZipFile.OpenRead(package))
            {
                Assert.Contains(zip.Entries, e => e.FullName == "lib/net10.0/Fake.Databricks.dll");
            }

            string provenancePath = Path.Combine(output, "Fake.Databricks.0.21.0-dbxmem.1.0.0.provenance.json");
            using JsonDocument document = JsonDocument.Parse(File.ReadAllText(provenancePath));
            JsonElement p = document.RootElement;
            using JsonDocument applied = JsonDocument.Parse(File.ReadAllText(fake.ProvenancePath));
            JsonElement a = applied.RootElement;
            Assert.Equal(
                new[] { "schema", "toolVersion", "baseTag", "baseCommit", "seriesVersion", "seriesHash", "patchedHead", "workingTreeClean", "versionSuffix", "configuration", "frameworks", "dotnetSdk", "msbuildProperties", "substitutedDependencies", "packages", "patches", "overlayFiles", "createdAtUtc" },
                p.EnumerateObject().Select(o => o.Name).ToArray());
            Assert.Equal("dbxmem-pack-provenance/1", p.GetProperty("schema").GetString());
            Assert.Equal("1.0.0", p.GetProperty("toolVersion").GetString());
            Assert.Equal(FakeAdbc.Tag21, p.GetProperty("baseTag").GetString());
            Assert.Equal(fake.BaseCommit, p.GetProperty("baseCommit").GetString());
            Assert.Equal("1.0.0", p.GetProperty("seriesVersion").GetString());
            Assert.Equal(a.GetProperty("seriesHash").GetString(), p.GetProperty("seriesHash").GetString());
            Assert.Equal(fake.Head, p.GetProperty("patchedHead").GetString());
            Assert.True(p.GetProperty("workingTreeClean").GetBoolean());
            Assert.Equal("dbxmem.1.0.0", p.GetProperty("versionSuffix").GetString());
            Assert.Equal("Release", p.GetProperty("configuration").GetString());
            Assert.Equal(new[] { "net10.0" }, p.GetProperty("frameworks").EnumerateArray().Select(e => e.GetString()).ToArray());
            Assert.Matches(@"^\d+\.\d+\.\d+", p.GetProperty("dotnetSdk").GetString());
            Assert.Empty(p.GetProperty("msbuildProperties").EnumerateArray());
            Assert.Empty(p.GetProperty("substitutedDependencies").EnumerateArray());
            JsonElement packageRecord = Assert.Single(p.GetProperty("packages").EnumerateArray());
            Assert.Equal("Fake.Databricks", packageRecord.GetProperty("id").GetString());
            Assert.Equal("0.21.0-dbxmem.1.0.0", packageRecord.GetProperty("version").GetString());
            Assert.Equal("Fake.Databricks.0.21.0-dbxmem.1.0.0.nupkg", packageRecord.GetProperty("file").GetString());
            Assert.Equal(Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(package))).ToLowerInvariant(), packageRecord.GetProperty("sha256").GetString());
            Assert.Equal(a.GetProperty("patches").GetRawText(), p.GetProperty("patches").GetRawText());
            Assert.Equal(a.GetProperty("overlayFiles").GetRawText(), p.GetProperty("overlayFiles").GetRawText());
            DateTimeOffset created = DateTimeOffset.Parse(p.GetProperty("createdAtUtc").GetString()!, System.Globalization.CultureInfo.InvariantCulture);
            Assert.InRange(created, before, DateTimeOffset.UtcNow.AddSeconds(2));
        }

        [Fact]
        public void Build_OfAnUnpatchedCheckout_OrAnUnknownFramework_SaysWhatToDo()
        {
            using FakeAdbc fake = FakeAdbc.Create();

            ToolResult unpatched = fake.Tool("build");
            ToolResult suffix = fake.Tool("pack", "--version-suffix", "bad suffix!");

            Assert.Equal(5, unpatched.ExitCode);
            Assert.Contains("is not patched (it is at " + FakeAdbc.Tag21 + ")", unpatched.Stderr);
            Assert.Contains("--allow-unpatched", unpatched.Stderr);
            Assert.Equal(5, suffix.ExitCode);

            Assert.Equal(0, fake.Tool("apply").ExitCode);
            ToolResult framework = fake.Tool("build", "--framework", "net472");
            ToolResult badSuffix = fake.Tool("pack", "--version-suffix", "bad suffix!");

            Assert.Equal(2, framework.ExitCode);
            Assert.Contains("the driver project does not target net472", framework.Stderr);
            Assert.Contains("it targets: net10.0", framework.Stderr);
            Assert.Equal(2, badSuffix.ExitCode);
            Assert.Contains("'bad suffix!' is not a valid NuGet version suffix", badSuffix.Stderr);
        }

        [Fact]
        public void Pack_WhenTheNuGetSourcesLackADependency_NamesItAndTheWayOut()
        {
            using FakeAdbc fake = FakeAdbc.Create();
            Assert.Equal(0, fake.Tool("apply").ExitCode);
            string project = fake.ReadFile(FakeAdbc.DriverProject);
            fake.WriteFile(FakeAdbc.DriverProject, project.Replace(
                "</Project>",
                "  <ItemGroup>\n    <PackageReference Include=\"Dbxmem.Tests.NotServed\" Version=\"1.0.0\" />\n  </ItemGroup>\n</Project>"));
            // An empty folder as the only source: offline, and nothing is served.
            string emptySource = Path.Combine(fake.Root, "empty-source");
            Directory.CreateDirectory(emptySource);

            ToolResult pack = fake.Tool("pack", "--output", Path.Combine(fake.Root, "packages"), "-p", "RestoreSources=" + emptySource);

            Assert.Equal(8, pack.ExitCode);
            Assert.Contains("dotnet restore failed for " + FakeAdbc.DriverProject, pack.Stderr);
            Assert.Contains("your NuGet sources do not serve Dbxmem.Tests.NotServed.", pack.Stderr);
            Assert.Contains("-p TargetFrameworks=", pack.Stderr);
        }

        [Fact]
        public void Pack_OfAnUnpatchedCheckout_PointsAtBuildForTheStockDriver_NotAtAnOptionPackLacks()
        {
            using FakeAdbc fake = FakeAdbc.Create();

            ToolResult pack = fake.Tool("pack");

            Assert.Equal(5, pack.ExitCode);
            Assert.Contains("`scripts/patch build --allow-unpatched`", pack.Stderr);
            Assert.DoesNotContain("pass --allow-unpatched", pack.Stderr);
        }
    }
}
