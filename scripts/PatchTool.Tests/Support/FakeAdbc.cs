using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.Json;

namespace DbxMem.PatchTool.Tests.Support
{
    /// <summary>
    /// A temporary git repository shaped like apache/arrow-adbc (a Databricks driver folder with a few files and
    /// a release tag), a patches folder with base.json and a two-patch series made by committing changes and
    /// exporting them with the tool, and an overlay folder. Git runs with an empty global configuration and no
    /// system configuration, as on a CI machine without a git identity.
    /// </summary>
    internal sealed class FakeAdbc : IDisposable
    {
        public const string Tag21 = "apache-arrow-adbc-21";
        public const string Tag22 = "apache-arrow-adbc-22";
        public const string DriverDir = "csharp/src/Drivers/Databricks";
        public const string OverlayDir = DriverDir + "/Memory";
        public const string DriverProject = DriverDir + "/Fake.Databricks.csproj";
        public const string DatabaseFile = DriverDir + "/DatabricksDatabase.cs";
        public const string ConnectionFile = DriverDir + "/DatabricksConnection.cs";
        public const string DisposePatch = "give-databricksdatabase-a-dispose-that-releases-the-memory-scope.patch";
        public const string ConnectionPatch = "pass-the-memory-scope-to-databricksconnection.patch";
        public const string PatchAuthorName = "Patch Author";
        public const string PatchAuthorEmail = "author@example.com";
        public const string DisposePatchDate = "2025-01-02T03:04:05+00:00";

        public const string DatabaseSource =
            "namespace Apache.Arrow.Adbc.Drivers.Databricks\n" +
            "{\n" +
            "    public sealed class DatabricksDatabase\n" +
            "    {\n" +
            "        public string Connect()\n" +
            "        {\n" +
            "            return \"connection\";\n" +
            "        }\n" +
            "    }\n" +
            "}\n";

        public const string ConnectionSource =
            "namespace Apache.Arrow.Adbc.Drivers.Databricks\n" +
            "{\n" +
            "    public sealed class DatabricksConnection\n" +
            "    {\n" +
            "        public int Timeout { get; set; }\n" +
            "    }\n" +
            "}\n";

        private const string ProjectSource =
            "<Project Sdk=\"Microsoft.NET.Sdk\">\n" +
            "  <PropertyGroup>\n" +
            "    <TargetFramework>net10.0</TargetFramework>\n" +
            "    <VersionPrefix>0.21.0</VersionPrefix>\n" +
            "    <Nullable>enable</Nullable>\n" +
            "    <IsPackable>true</IsPackable>\n" +
            "  </PropertyGroup>\n" +
            "</Project>\n";

        // Building the fixture takes ~80 git processes; it is built once per test run and copied per test.
        private static readonly Lazy<FakeAdbc> WithSeriesTemplate = new Lazy<FakeAdbc>(() => Build(withSeries: true));
        private static readonly Lazy<FakeAdbc> PlainTemplate = new Lazy<FakeAdbc>(() => Build(withSeries: false));

        private readonly TempDirectory temp;

        private FakeAdbc(string prefix = "patchtool-tests-")
        {
            temp = new TempDirectory(prefix);
            GitConfig = temp.Combine("empty.gitconfig");
        }

        public string Root => temp.Path;

        public string Checkout => temp.Combine("adbc");

        public string Patches => temp.Combine("patches");

        public string Overlay => temp.Combine("overlay");

        /// <summary>An empty file used as the global git configuration: no user identity, no aliases, no hooks.</summary>
        public string GitConfig { get; }

        public string BaseCommit { get; private set; } = "";

        /// <summary>Environment overrides for every git and tool run of this fixture.</summary>
        public Dictionary<string, string?> Environment => new Dictionary<string, string?>
        {
            ["GIT_CONFIG_GLOBAL"] = GitConfig,
            ["GIT_CONFIG_NOSYSTEM"] = "1",
            ["GIT_TERMINAL_PROMPT"] = "0",
            // The identity variables a developer machine might export must not leak into the fixture.
            ["GIT_AUTHOR_NAME"] = null,
            ["GIT_AUTHOR_EMAIL"] = null,
            ["GIT_COMMITTER_NAME"] = null,
            ["GIT_COMMITTER_EMAIL"] = null,
        };

        /// <summary>The fake upstream at tag 21 plus, when <paramref name="withSeries"/>, a two-patch series exported by the tool.</summary>
        public static FakeAdbc Create(bool withSeries = true)
        {
            FakeAdbc template = (withSeries ? WithSeriesTemplate : PlainTemplate).Value;
            var fake = new FakeAdbc { BaseCommit = template.BaseCommit };
            CopyDirectory(template.Root, fake.Root);
            return fake;
        }

        private static FakeAdbc Build(bool withSeries)
        {
            SweepOldTemplates();
            var fake = new FakeAdbc(TemplatePrefix);
            AppDomain.CurrentDomain.ProcessExit += (_, _) => fake.Dispose();
            File.WriteAllText(fake.GitConfig, "");
            Directory.CreateDirectory(fake.Checkout);
            Directory.CreateDirectory(fake.Patches);
            Directory.CreateDirectory(fake.Overlay);
            fake.CreateUpstream();
            fake.CreatePatchesFolder();
            fake.CreateOverlay();
            if (withSeries)
            {
                fake.CreateSeries();
            }

            return fake;
        }

        private const string TemplatePrefix = "patchtool-tests-template-";

        /// <summary>
        /// The test host is not always given a graceful exit (so ProcessExit may not run): templates of earlier
        /// runs are removed here instead, once they are old enough not to belong to a run still going on.
        /// </summary>
        private static void SweepOldTemplates()
        {
            foreach (string directory in Directory.EnumerateDirectories(Path.GetTempPath(), TemplatePrefix + "*"))
            {
                try
                {
                    if (Directory.GetCreationTimeUtc(directory) < DateTime.UtcNow.AddHours(-2))
                    {
                        foreach (string file in Directory.EnumerateFiles(directory, "*", SearchOption.AllDirectories))
                        {
                            File.SetAttributes(file, FileAttributes.Normal);
                        }

                        Directory.Delete(directory, recursive: true);
                    }
                }
                catch (IOException)
                {
                    // Another run may be deleting it too; leftovers are harmless.
                }
                catch (UnauthorizedAccessException)
                {
                }
            }
        }

        private static void CopyDirectory(string source, string target)
        {
            Directory.CreateDirectory(target);
            foreach (string file in Directory.EnumerateFiles(source))
            {
                File.Copy(file, Path.Combine(target, Path.GetFileName(file)));
            }

            foreach (string directory in Directory.EnumerateDirectories(source))
            {
                CopyDirectory(directory, Path.Combine(target, Path.GetFileName(directory)));
            }
        }

        public string SeriesFolder(string tag) => Path.Combine(Patches, tag);

        public string Head => Git("rev-parse", "HEAD");

        public string ProvenancePath => Path.Combine(Checkout, ".git", "dbxmem-patch", "provenance.json");

        /// <summary>Runs the tool in-process against this fixture's checkout, patches and overlay.</summary>
        public ToolResult Tool(params string[] args)
        {
            string[] all = args.Concat(new[] { "--adbc", Checkout, "--patches", Patches, "--overlay", Overlay }).ToArray();
            return ToolWithEnvironment(all, Environment);
        }

        public ToolResult ToolWithEnvironment(string[] args, IReadOnlyDictionary<string, string?> environment)
        {
            using var stdout = new StringWriter();
            using var stderr = new StringWriter();
            int exit = Program.Run(args, stdout, stderr, environment, Root);
            return new ToolResult(exit, stdout.ToString(), stderr.ToString());
        }

        /// <summary>Runs git in the checkout and returns trimmed stdout; fails the test with git's output on error.</summary>
        public string Git(params string[] args) => GitIn(Checkout, null, args);

        public string GitIn(string directory, Dictionary<string, string?>? extra, params string[] args)
        {
            (int exit, string stdout, string stderr) = GitRaw(directory, extra, args);
            if (exit != 0)
            {
                throw new InvalidOperationException($"git {string.Join(" ", args)} failed ({exit}): {stderr}{stdout}");
            }

            return stdout.Trim();
        }

        public (int Exit, string Stdout, string Stderr) GitRaw(string directory, Dictionary<string, string?>? extra, params string[] args)
        {
            var start = new ProcessStartInfo("git")
            {
                WorkingDirectory = directory,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (string arg in args)
            {
                start.ArgumentList.Add(arg);
            }

            foreach (KeyValuePair<string, string?> pair in Environment.Concat(extra ?? new Dictionary<string, string?>()))
            {
                if (pair.Value == null)
                {
                    start.Environment.Remove(pair.Key);
                }
                else
                {
                    start.Environment[pair.Key] = pair.Value;
                }
            }

            using Process process = Process.Start(start)!;
            var stderrTask = process.StandardError.ReadToEndAsync();
            string stdout = process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            return (process.ExitCode, stdout, stderrTask.GetAwaiter().GetResult());
        }

        public void WriteFile(string relative, string content)
        {
            string path = Path.Combine(Checkout, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            File.WriteAllText(path, content, new UTF8Encoding(false));
        }

        public string ReadFile(string relative) => File.ReadAllText(Path.Combine(Checkout, relative));

        /// <summary>Commits everything with a fixed author and date (committer likewise), so ids are reproducible.</summary>
        public string CommitAll(string message, string author = "Upstream Dev", string email = "dev@example.com", string date = "2024-06-01T10:00:00+00:00")
        {
            Git("add", "-A");
            var identity = new Dictionary<string, string?>
            {
                ["GIT_AUTHOR_NAME"] = author,
                ["GIT_AUTHOR_EMAIL"] = email,
                ["GIT_AUTHOR_DATE"] = date,
                ["GIT_COMMITTER_NAME"] = author,
                ["GIT_COMMITTER_EMAIL"] = email,
                ["GIT_COMMITTER_DATE"] = date,
            };
            GitIn(Checkout, identity, "commit", "-q", "--no-verify", "-m", message);
            return Head;
        }

        /// <summary>A commit message with the DEP-3-like header every patch needs.</summary>
        public static string PatchMessage(string subject, string why, string upstreamStatus = "superseded upstream by #3654 in tag 22", string baseTag = Tag21)
        {
            return $"{subject}\n\nWhy: {why}\nUpstream-Status: {upstreamStatus}\nBase: {baseTag}\n";
        }

        /// <summary>Every file of a series folder, by name, as bytes (to compare before and after).</summary>
        public Dictionary<string, byte[]> Snapshot(string tag)
        {
            return Directory.EnumerateFiles(SeriesFolder(tag)).ToDictionary(f => Path.GetFileName(f), File.ReadAllBytes);
        }

        /// <summary>
        /// Adds another upstream "release": a commit on top of tag 21's commit changed by <paramref name="change"/>,
        /// tagged <paramref name="tag"/>, with a patches folder holding a copy of tag 21's series. HEAD is left at the new tag.
        /// </summary>
        public string AddBase(string tag, Action<FakeAdbc> change)
        {
            Git("checkout", "-q", "--detach", BaseCommit);
            change(this);
            string commit = CommitAll("Upstream release " + tag, date: "2024-09-01T10:00:00+00:00");
            Git("tag", tag);
            string folder = SeriesFolder(tag);
            Directory.CreateDirectory(folder);
            foreach (string file in Directory.EnumerateFiles(SeriesFolder(Tag21)).Where(f => Path.GetFileName(f) != "base.json"))
            {
                File.Copy(file, Path.Combine(folder, Path.GetFileName(file)));
            }

            WriteBaseJson(tag, commit);
            return commit;
        }

        public void WriteBaseJson(string tag, string commit)
        {
            var baseJson = new Dictionary<string, string>
            {
                ["tag"] = tag,
                ["commit"] = commit,
                ["driverDir"] = DriverDir,
                ["overlayDir"] = OverlayDir,
                ["driverProject"] = DriverProject,
                ["notes"] = "fake upstream for the patch tool tests",
            };
            File.WriteAllText(Path.Combine(SeriesFolder(tag), "base.json"), JsonSerializer.Serialize(baseJson, new JsonSerializerOptions { WriteIndented = true }) + "\n");
        }

        public void Dispose() => temp.Dispose();

        private void CreateUpstream()
        {
            GitIn(Checkout, null, "init", "-q");
            // A branch like a user's clone has; apply works on it in place.
            Git("checkout", "-q", "-b", "main");
            WriteFile(".gitignore", "bin/\nobj/\n");
            WriteFile(DatabaseFile, DatabaseSource);
            WriteFile(ConnectionFile, ConnectionSource);
            WriteFile(DriverProject, ProjectSource);
            WriteFile("README.md", "fake arrow-adbc\n");
            BaseCommit = CommitAll("chore: update versions for 21");
            Git("tag", Tag21);
        }

        private void CreatePatchesFolder()
        {
            File.WriteAllText(Path.Combine(Patches, "VERSION"), "1.0.0\n");
            Directory.CreateDirectory(SeriesFolder(Tag21));
            WriteBaseJson(Tag21, BaseCommit);
            File.WriteAllText(Path.Combine(SeriesFolder(Tag21), "series"), "# Test series for the fake tag 21.\n");
        }

        private void CreateOverlay()
        {
            File.WriteAllText(
                Path.Combine(Overlay, "DatabricksMemoryScope.cs"),
                "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    internal sealed class DatabricksMemoryScope\n    {\n        public string Version => PatchSeriesInfo.SeriesVersion;\n    }\n}\n");
            Directory.CreateDirectory(Path.Combine(Overlay, "Lz4"));
            File.WriteAllText(
                Path.Combine(Overlay, "Lz4", "Lz4Helper.cs"),
                "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    internal static class Lz4Helper\n    {\n        public const int BlockSize = 4 * 1024 * 1024;\n    }\n}\n");
            // Not overlay source: a README and a nested test project must not be copied.
            File.WriteAllText(Path.Combine(Overlay, "README.md"), "overlay readme\n");
            Directory.CreateDirectory(Path.Combine(Overlay, "tests"));
            File.WriteAllText(Path.Combine(Overlay, "tests", "Tests.csproj"), "<Project />\n");
            File.WriteAllText(Path.Combine(Overlay, "tests", "ScopeTests.cs"), "// a test, not driver source\n");
        }

        /// <summary>The series is made the way maintainers make it: apply, commit on top, export, revert.</summary>
        private void CreateSeries()
        {
            Require(Tool("apply"), "apply (empty series)");
            WriteFile(DatabaseFile, DatabaseSource.Replace(
                "            return \"connection\";\n        }\n",
                "            return \"connection\";\n        }\n\n        public void Dispose()\n        {\n        }\n"));
            CommitAll(
                PatchMessage("Give DatabricksDatabase a Dispose that releases the memory scope", "the database owns the memory scope; disposing it must release the pooled memory."),
                PatchAuthorName,
                PatchAuthorEmail,
                DisposePatchDate);
            WriteFile(ConnectionFile, ConnectionSource.Replace(
                "        public int Timeout { get; set; }\n",
                "        public int Timeout { get; set; }\n\n        internal DatabricksMemoryScope? MemoryScope { get; set; }\n"));
            CommitAll(
                PatchMessage("Pass the memory scope to DatabricksConnection", "connections lease the database's scope instead of finding it through casts.", "not-needed (vendor patch)"),
                PatchAuthorName,
                PatchAuthorEmail,
                "2025-01-03T04:05:06+00:00");
            Require(Tool("export"), "export");
            Require(Tool("revert", "--force"), "revert");
            if (Head != BaseCommit)
            {
                throw new InvalidOperationException("fixture: revert did not return to the base");
            }
        }

        private static void Require(ToolResult result, string what)
        {
            if (result.ExitCode != 0)
            {
                throw new InvalidOperationException($"fixture step '{what}' failed: {result}");
            }
        }
    }
}
