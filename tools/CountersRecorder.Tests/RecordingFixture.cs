using System;
using System.IO;

namespace CountersRecorder.Tests
{
    /// <summary>A scratch folder for one test class's CSV files, removed afterwards.</summary>
    public sealed class ScratchFolder : IDisposable
    {
        public ScratchFolder()
        {
            Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "counters-recorder-tests-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(Path);
        }

        public string Path { get; }

        public string File(string name) => System.IO.Path.Combine(Path, name);

        public void Dispose()
        {
            try
            {
                Directory.Delete(Path, recursive: true);
            }
            catch (IOException)
            {
                // Leftovers in the temp folder are harmless.
            }
        }
    }

    /// <summary>
    /// One real recording, shared by the assertions of <see cref="EndToEndTests"/>: the recorder with the runtime counters
    /// and the Subject's meter at the default 1 s interval, the Subject exiting with 7 (about 5 s in all).
    /// </summary>
    public sealed class RecordingFixture : IDisposable
    {
        public const int SubjectExitCode = 7;

        private readonly ScratchFolder _folder = new ScratchFolder();

        public RecordingFixture()
        {
            CsvPath = System.IO.Path.Combine(_folder.Path, "nested", "subject.csv");
            Result = ProcessRunner.Recorder(new[]
            {
                "--output", CsvPath, "--meter", Subject.SubjectFacts.MeterName,
                "--", ProcessRunner.Dotnet, ProcessRunner.SubjectDll, "--exit-code", SubjectExitCode.ToString(System.Globalization.CultureInfo.InvariantCulture),
            });
            Recording = File.Exists(CsvPath) ? CsvRecording.Read(CsvPath) : null;
        }

        public string CsvPath { get; }

        internal RunResult Result { get; }

        internal CsvRecording? Recording { get; }

        public void Dispose() => _folder.Dispose();
    }
}
