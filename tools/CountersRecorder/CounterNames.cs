using System;
using System.Globalization;

namespace CountersRecorder
{
    /// <summary>
    /// The "Counter Name" column, built the way dotnet-counters builds it so that existing habits and scripts carry over:
    /// <list type="bullet">
    /// <item>a mean or gauge value: <c>NAME (UNIT)</c>, or <c>NAME</c> without a unit (e.g. <c>GC Heap Size (MB)</c>,
    /// <c>adbc.databricks.memory.in_use (By)</c>);</item>
    /// <item>an increment: <c>NAME (UNIT / N sec)</c>, UNIT defaulting to <c>Count</c>
    /// (e.g. <c>Gen 0 GC Count (Count / 1 sec)</c>, <c>adbc.databricks.memory.rented (By / 1 sec)</c>);</item>
    /// <item>a meter's tags follow in brackets, in the order the runtime reports them, with the commas between them
    /// turned into semicolons so the CSV needs no quoting: <c>adbc.databricks.memory.in_use (By)[pool=lz4_buffers;scope=1]</c>.</item>
    /// </list>
    /// EventCounters use their DisplayName (falling back to Name); meters use the instrument's name.
    /// </summary>
    internal static class CounterNames
    {
        public static string Mean(string name, string? unit) =>
            string.IsNullOrEmpty(unit) ? name : $"{name} ({unit})";

        public static string Increment(string name, string? unit, double intervalSeconds) =>
            $"{name} ({(string.IsNullOrEmpty(unit) ? "Count" : unit)} / {intervalSeconds.ToString("0.###", CultureInfo.InvariantCulture)} sec)";

        /// <summary>Appends <paramref name="tags"/> (the runtime's <c>key=value,key=value</c> text) as <c>[key=value;key=value]</c>.</summary>
        public static string WithTags(string name, string? tags) =>
            string.IsNullOrEmpty(tags) ? name : $"{name}[{tags.Replace(',', ';')}]";

        /// <summary>Joins the runtime's tag text and one more tag (a histogram's percentile).</summary>
        public static string AddTag(string? tags, string tag) =>
            string.IsNullOrEmpty(tags) ? tag : string.Concat(tags, ",", tag);

        /// <summary>Splits a "Counter Name" back into its base name and its tags (for tests and scripts).</summary>
        public static (string Name, string Tags) Split(string counterName)
        {
            int open = counterName.IndexOf('[', StringComparison.Ordinal);
            return open < 0 || !counterName.EndsWith(']')
                ? (counterName, string.Empty)
                : (counterName[..open], counterName[(open + 1)..^1]);
        }
    }
}
