using System.IO.Compression;

namespace PatchTool.Tests;

/// <summary>
/// pack's check of a package against the restore its assemblies were built with: the nuspec of HiveServer2 as packed
/// from csharp/v1.1.7 before pack declared what it built against (ApacheThrift 0.22.0 for a Thrift 0.25.0 assembly).
/// </summary>
public class PackageContentsTests
{
    [Fact]
    public void APackage_ThatDeclaresAnOlderVersionThanItWasBuiltAgainstOrCarriesAStandIn_IsNamedForEachProblem()
    {
        using var folder = new TempDirectory();
        string nupkg = folder.Combine("AdbcDrivers.HiveServer2.0.24.0-dbxmem.1.5.0.nupkg");
        using (ZipArchive zip = ZipFile.Open(nupkg, ZipArchiveMode.Create))
        {
            Write(zip, "AdbcDrivers.HiveServer2.nuspec", """
                <?xml version="1.0" encoding="utf-8"?>
                <package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
                  <metadata>
                    <id>AdbcDrivers.HiveServer2</id>
                    <version>0.24.0-dbxmem.1.5.0</version>
                    <dependencies>
                      <group targetFramework=".NETFramework4.7.2">
                        <dependency id="Apache.Arrow.Adbc" version="0.24.0-dbxmem.1.5.0" exclude="Build,Analyzers" />
                        <dependency id="ApacheThrift" version="0.22.0" exclude="Build,Analyzers" />
                      </group>
                      <group targetFramework=".NETStandard2.0">
                        <dependency id="ApacheThrift" version="[0.25.0, )" exclude="Build,Analyzers" />
                        <dependency id="System.IO.Pipes.AccessControl" version="5.0.0" />
                      </group>
                      <group targetFramework="net8.0">
                        <dependency id="ApacheThrift" version="0.25.0" />
                      </group>
                    </dependencies>
                  </metadata>
                </package>
                """);
            Write(zip, "lib/net472/AdbcDrivers.HiveServer2.dll", "");
            Write(zip, "lib/netstandard2.0/AdbcDrivers.HiveServer2.dll", "");
            Write(zip, "lib/netstandard2.0/System.IO.Pipes.AccessControl.dll", "");
            Write(zip, "lib/net8.0/AdbcDrivers.HiveServer2.dll", "");
        }

        string assets = folder.Combine("project.assets.json");
        File.WriteAllText(assets, """
            {"version": 4, "targets": {
              "net472": {"ApacheThrift/0.25.0": {"type": "package"}, "Apache.Arrow.Adbc/0.24.0-SNAPSHOT": {"type": "project"}},
              ".NETStandard,Version=v2.0": {"ApacheThrift/0.25.0": {"type": "package"}, "System.IO.Pipes.AccessControl/5.0.0": {"type": "package"}},
              "net8.0": {"ApacheThrift/0.25.0": {"type": "package"}}
            }}
            """);

        PackageContents contents = PackageContents.Read(nupkg);

        Assert.Equal(["net472", "net8.0", "netstandard2.0"], contents.LibFolders);
        Assert.Equal(
            [
                "declares ApacheThrift >= 0.22.0 for net472 but was built against 0.25.0",
                "declares the stand-in System.IO.Pipes.AccessControl for netstandard2.0",
                "carries lib/netstandard2.0/System.IO.Pipes.AccessControl.dll",
            ],
            contents.Problems(assets));
    }

    [Theory]
    [InlineData(".NETFramework4.7.2", "net472")]
    [InlineData(".NETStandard2.0", "netstandard2.0")]
    [InlineData(".NETCoreApp3.1", "netcoreapp3.1")]
    [InlineData("net8.0", "net8.0")]
    public void NuspecGroupNames_AreReadAsTheShortNamesOfLibFolders(string group, string shortName) =>
        Assert.Equal(shortName, PackageContents.ShortName(group));

    private static void Write(ZipArchive zip, string name, string text)
    {
        using var writer = new StreamWriter(zip.CreateEntry(name).Open());
        writer.Write(text);
    }
}
