using System.Text;
using System.Text.RegularExpressions;

namespace PatchTool.Tests;

/// <summary>
/// Each patch's change lives in one file (issue 35): no two .patch files under patches/ whose diffs differ by fewer than
/// 10 lines, where the differing lines are those of either diff that the other lacks (what `diff` prints as `&lt;` and
/// `&gt;`), `index` lines and hunk positions set aside (they depend on the base, and one shared file serves bases that
/// differ in them: export keeps it). The pairs that must stay two files are listed with why.
/// </summary>
public class PatchDuplicationTests
{
    private const int DuplicateBelow = 10;

    /// <summary>Each distinct line as a number, so the comparison compares ints (xunit runs one class's tests one at a time).</summary>
    private static readonly Dictionary<string, int> Ids = new(StringComparer.Ordinal);

    /// <summary>Pairs (paths below patches/, ordinal order) that are near-duplicates for a reason; any other fails.</summary>
    private static readonly Dictionary<(string, string), string> Kept = new()
    {
        [("apache-arrow-adbc-21/readers-pass-the-memory-scope-down-through-constructors.patch", "shared/driver-with-upstream-pools/readers-pass-the-memory-scope-down-through-constructors.patch")] =
            "a context line is upstream's own difference (tag 21's downloader takes an ITracingStatement, tag 22's an IHiveServer2Statement); git am matches context exactly",
        [("shared/arrow-adbc-fixes/cloudfetch-complete-and-dispose-a-download-result-atomically.patch", "shared/new-home-fixes/cloudfetch-complete-and-dispose-a-download-result-atomically.patch")] =
            "two upstream repositories: the driver's files have other paths (csharp/src/Drivers/Databricks/ and csharp/src/), and the commit messages follow each one's conventions",
        [("shared/arrow-adbc-fixes/cloudfetch-let-the-end-of-results-wait-observe-cancellation.patch", "shared/new-home-fixes/cloudfetch-let-the-end-of-results-wait-observe-cancellation.patch")] =
            "two upstream repositories, as for the download result's patch",
    };

    [Fact]
    public void NoTwoPatchFiles_DifferByFewerThanTenLines_ButThoseKeptForAReason()
    {
        string patches = Path.Combine(ToolContext.RepositoryRoot()!, "patches");
        List<(string Name, int[] Lines)> diffs = Directory.EnumerateFiles(patches, "*.patch", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(patches, f).Replace('\\', '/')).OrderBy(n => n, StringComparer.Ordinal)
            .Select(n => (n, PositionFreeDiff(File.ReadAllBytes(Path.Combine(patches, n))))).ToList();
        Assert.True(diffs.Count > 20, $"found only {diffs.Count} patch files under {patches}");

        var nearDuplicates = new List<string>();
        for (int i = 0; i < diffs.Count; i++)
        {
            for (int j = i + 1; j < diffs.Count; j++)
            {
                // Never fewer differing lines than the two lengths differ by: most pairs need no comparison.
                if (Math.Abs(diffs[i].Lines.Length - diffs[j].Lines.Length) < DuplicateBelow
                    && DifferingLines(diffs[i].Lines, diffs[j].Lines) is int differing && differing < DuplicateBelow
                    && !Kept.ContainsKey((diffs[i].Name, diffs[j].Name)))
                {
                    nearDuplicates.Add($"{diffs[i].Name} and {diffs[j].Name}: {differing} line(s)");
                }
            }
        }

        Assert.True(nearDuplicates.Count == 0, "patches whose changes differ by fewer than 10 lines (store the change once, in a shared series: patches/README.md):\n" + string.Join("\n", nearDuplicates));
        Assert.All(Kept.Keys, pair => Assert.True(
            diffs.Any(d => d.Name == pair.Item1) && diffs.Any(d => d.Name == pair.Item2),
            $"{pair.Item1} and {pair.Item2} are listed as kept but one is gone: drop them from the list"));
    }

    [Fact]
    public void TheMeasure_SetsAsideIndexLinesAndHunkPositions_AndCountsEveryOtherDifferingLine()
    {
        const string Patch = "From 0 Mon Sep 17 00:00:00 2001\nSubject: x\n\n---\ndiff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n@@ -3,2 +3,3 @@ class A\n context\n+added\n context\n";
        int[] stored = PositionFreeDiff(Encoding.UTF8.GetBytes(Patch));

        int[] moved = PositionFreeDiff(Encoding.UTF8.GetBytes(Patch.Replace("1111111..2222222", "3333333..4444444").Replace("@@ -3,2 +3,3 @@ class A", "@@ -30,2 +31,3 @@ class B")));
        int[] changed = PositionFreeDiff(Encoding.UTF8.GetBytes(Patch.Replace("+added", "+other")));
        int[] longer = PositionFreeDiff(Encoding.UTF8.GetBytes(Patch + "+more\n"));

        Assert.Equal(0, DifferingLines(stored, moved));
        Assert.Equal(2, DifferingLines(stored, changed));
        Assert.Equal(1, DifferingLines(stored, longer));
    }

    /// <summary>The diff part of a patch (from its first `diff --git`), `index` lines dropped, `@@` lines without start lines and heading; lines as ids.</summary>
    private static int[] PositionFreeDiff(byte[] patch)
    {
        string text = Encoding.Latin1.GetString(patch);
        int start = text.IndexOf("\ndiff --git ", StringComparison.Ordinal);
        IEnumerable<string> lines = text[(start + 1)..].Split('\n')
            .Where(l => !l.StartsWith("index ", StringComparison.Ordinal))
            .Select(l => Regex.Replace(l, @"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@.*", "@@ $1 $2 @@"));
        return lines.Select(l => Ids.TryGetValue(l, out int id) ? id : Ids[l] = Ids.Count).ToArray();
    }

    /// <summary>Lines of either sequence outside their longest common subsequence.</summary>
    private static int DifferingLines(int[] a, int[] b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (int i = 1; i <= a.Length; i++)
        {
            for (int j = 1; j <= b.Length; j++)
            {
                current[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : Math.Max(previous[j], current[j - 1]);
            }

            (previous, current) = (current, previous);
        }

        return a.Length + b.Length - (2 * previous[b.Length]);
    }
}
