using System;
using System.Collections.Generic;
using System.IO;

namespace DbxMem.PatchTool.Infrastructure
{
    /// <summary>
    /// Finds an executable on a PATH value. The tool looks git up itself (instead of letting Process.Start
    /// fail) so that "git is missing" is reported as such, with what to install, before anything is touched.
    /// </summary>
    internal static class ExecutableLocator
    {
        public static string? Find(string name, string? pathVariable)
        {
            if (string.IsNullOrEmpty(pathVariable))
            {
                return null;
            }

            IReadOnlyList<string> candidates = OperatingSystem.IsWindows()
                ? new[] { name + ".exe", name + ".cmd", name + ".bat", name }
                : new[] { name };
            foreach (string directory in pathVariable.Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
            {
                foreach (string candidate in candidates)
                {
                    string full;
                    try
                    {
                        full = Path.Combine(directory.Trim('"'), candidate);
                    }
                    catch (ArgumentException)
                    {
                        continue;
                    }

                    if (File.Exists(full))
                    {
                        return full;
                    }
                }
            }

            return null;
        }
    }
}
