using System;
using System.IO;

namespace DbxMem.PatchTool.Tests.Support
{
    /// <summary>A temporary folder deleted with everything in it when disposed.</summary>
    internal sealed class TempDirectory : IDisposable
    {
        public TempDirectory(string prefix = "patchtool-tests-")
        {
            Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), prefix + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(Path);
        }

        public string Path { get; }

        public string Combine(params string[] parts) => System.IO.Path.Combine(Path, System.IO.Path.Combine(parts));

        public void Dispose()
        {
            if (!Directory.Exists(Path))
            {
                return;
            }

            // git writes read-only object files; Windows refuses to delete those until the flag is cleared.
            foreach (string file in Directory.EnumerateFiles(Path, "*", SearchOption.AllDirectories))
            {
                File.SetAttributes(file, FileAttributes.Normal);
            }

            try
            {
                Directory.Delete(Path, recursive: true);
            }
            catch (IOException)
            {
                // A leftover temp folder must not fail a test that passed.
            }
        }
    }
}
