namespace PatchTool.Tests.Support;

/// <summary>
/// A base shaped like the new home's with a license header of its own and the series' tests for upstream's test
/// project: tag <see cref="Tag"/> on top of the fake tag 21 (plus a test project), overlay files that open with an
/// ASF-style header, two test files in the repository's test overlay folder, and base.json's overlayHeader, testOverlay
/// and testOverlayDir set. Expected file contents are spelled out here from these constants, never taken from the tool.
/// </summary>
internal static class NewHomeSeries
{
    public const string Tag = "csharp/v9.9.9";
    public const string Folder = "csharp-v9.9.9";
    public const string DriverNamespace = "AdbcDrivers.Databricks";
    public const string TestOverlay = "upstream-tests/new-home";
    public const string TestOverlayDir = "csharp/test/Unit/Dbxmem";
    public const string TestProject = "csharp/test/Fake.Tests.csproj";
    public const string HeaderFile = "headers/new-home.txt";
    public const string Header = "/*\n* Copyright (c) 2025 ADBC Drivers Contributors\n*\n* Licensed under the Apache License, Version 2.0.\n*/";
    public const string AsfHeader = "/*\n* Licensed to the Apache Software Foundation (ASF) under one\n* or more contributor license agreements.\n*/";
    public const string ScopeFile = "DatabricksMemoryScope.cs";
    public const string Lz4File = "Lz4/Lz4Helper.cs";
    public const string ScopeBody = "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    internal sealed class DatabricksMemoryScope\n    {\n    }\n}\n";
    public const string Lz4Body = "namespace Apache.Arrow.Adbc.Drivers.Databricks\n{\n    internal static class Lz4Helper\n    {\n        public const int BlockSize = 4 * 1024 * 1024;\n    }\n}\n";

    /// <summary>The tests' namespace spells the overlay's on purpose: only overlay files move into the driver's namespace.</summary>
    public const string TestNamespace = "Apache.Arrow.Adbc.Drivers.Databricks.Tests.Unit.Dbxmem";
    public const string ScopeTests = "ScopeTests.cs";
    public const string Lz4Tests = "Lz4/Lz4Tests.cs";

    public static string TestBody(string type) => $"namespace {TestNamespace}\n{{\n    public class {type}\n    {{\n    }}\n}}\n";

    /// <summary>The overlay file as the new home gets it: the new header, the code in the driver's namespace.</summary>
    public static string InDriver(string body, string separator = "\n\n") => Header + separator + body.Replace("namespace Apache.Arrow.Adbc.Drivers.Databricks\n", $"namespace {DriverNamespace}\n");

    public static string TestOverlayFolder(FakeAdbc fake) => Path.Combine(fake.Root, TestOverlay);

    /// <summary>Adds the base and leaves HEAD at it; returns its commit.</summary>
    public static string Add(FakeAdbc fake)
    {
        File.WriteAllText(Path.Combine(fake.Overlay, ScopeFile), AsfHeader + "\n\n" + ScopeBody);
        File.WriteAllText(Path.Combine(fake.Overlay, Lz4File), AsfHeader + "\n" + Lz4Body);
        Directory.CreateDirectory(Path.Combine(TestOverlayFolder(fake), "Lz4"));
        File.WriteAllText(Path.Combine(TestOverlayFolder(fake), "README.md"), "what these are; not copied\n");
        File.WriteAllText(Path.Combine(TestOverlayFolder(fake), ScopeTests), AsfHeader + "\n\n" + TestBody("ScopeTests"));
        File.WriteAllText(Path.Combine(TestOverlayFolder(fake), Lz4Tests), AsfHeader + "\n\n" + TestBody("Lz4Tests"));
        Directory.CreateDirectory(Path.Combine(fake.Patches, "headers"));
        File.WriteAllText(Path.Combine(fake.Patches, HeaderFile), Header + "\n");
        string commit = fake.AddBase(Folder, f => f.WriteFile(TestProject, "<Project Sdk=\"Microsoft.NET.Sdk\" />\n"));
        fake.Git("tag", Tag);
        WriteBaseJson(fake, commit);
        return commit;
    }

    public static void WriteBaseJson(FakeAdbc fake, string commit, Dictionary<string, object>? changes = null, params string[] without)
    {
        var keys = new Dictionary<string, object>
        {
            ["repository"] = "adbc-drivers/databricks",
            ["overlayNamespace"] = DriverNamespace,
            ["overlayHeader"] = HeaderFile,
            ["testOverlay"] = TestOverlay,
            ["testOverlayDir"] = TestOverlayDir,
        };
        foreach ((string key, object value) in changes ?? [])
        {
            keys[key] = value;
        }

        without.ToList().ForEach(k => keys.Remove(k));
        fake.WriteBaseJson(Tag, commit, keys);
    }
}
