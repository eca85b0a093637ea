using System;
using System.Collections.Generic;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// Environment variables as the tool sees them: the process environment with optional overrides.
    /// Overrides exist so tests can run the tool in-process with a different PATH (no git) or an isolated
    /// git configuration without mutating the test process's own environment, which other tests share.
    /// </summary>
    internal sealed class ToolEnvironment
    {
        public ToolEnvironment(IReadOnlyDictionary<string, string?>? overrides = null)
        {
            Overrides = overrides ?? new Dictionary<string, string?>();
        }

        /// <summary>Variables to set (or, with a null value, remove) in every child process.</summary>
        public IReadOnlyDictionary<string, string?> Overrides { get; }

        public string? Get(string name)
        {
            if (Overrides.TryGetValue(name, out string? value))
            {
                return value;
            }

            return System.Environment.GetEnvironmentVariable(name);
        }

        /// <summary>The overrides plus <paramref name="extra"/>, for a child that needs more (a fixed committer, say).</summary>
        public IReadOnlyDictionary<string, string?> ChildEnvironment(IReadOnlyDictionary<string, string?>? extra = null)
        {
            var merged = new Dictionary<string, string?>(Overrides, StringComparer.Ordinal);
            if (extra != null)
            {
                foreach (KeyValuePair<string, string?> pair in extra)
                {
                    merged[pair.Key] = pair.Value;
                }
            }

            return merged;
        }
    }
}
