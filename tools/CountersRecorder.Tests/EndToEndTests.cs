using System.Collections.Generic;
using System.Linq;
using CountersRecorder.Tests.Subject;
using Xunit;

namespace CountersRecorder.Tests
{
    /// <summary>The recorder against a real child process: what lands in the CSV, and what reaches the caller.</summary>
    public sealed class EndToEndTests : IClassFixture<RecordingFixture>
    {
        private const string Meter = SubjectFacts.MeterName;

        private readonly RecordingFixture _run;

        public EndToEndTests(RecordingFixture run)
        {
            _run = run;
        }

        private CsvRecording Recording => _run.Recording ?? throw new Xunit.Sdk.XunitException(
            $"no CSV was written (exit {_run.Result.ExitCode}); stderr:\n{_run.Result.StandardError}");

        [Fact]
        public void The_childs_exit_code_is_the_recorders_exit_code()
        {
            Assert.True(_run.Result.ExitCode == RecordingFixture.SubjectExitCode, _run.Result.StandardError);
        }

        [Fact]
        public void The_childs_stdout_and_stderr_pass_through()
        {
            Assert.Contains(SubjectFacts.DoneLine, _run.Result.StandardOutput, System.StringComparison.Ordinal);
            Assert.Contains(SubjectFacts.StderrLine, _run.Result.StandardError, System.StringComparison.Ordinal);
            Assert.Contains("subject: listener attached", _run.Result.StandardOutput, System.StringComparison.Ordinal);
        }

        [Fact]
        public void The_csv_has_dotnet_counters_header()
        {
            Assert.Equal("Timestamp,Provider,Counter Name,Counter Type,Mean/Increment", Recording.Header);
            Assert.Contains($"rows in {_run.CsvPath}; child exit code {RecordingFixture.SubjectExitCode}", _run.Result.StandardError, System.StringComparison.Ordinal);
        }

        [Fact]
        public void The_runtime_counters_show_the_gc_heap_the_subject_kept()
        {
            IReadOnlyList<CounterRow> heap = Recording.Named("System.Runtime", "GC Heap Size (MB)");
            Assert.NotEmpty(heap);
            Assert.All(heap, row => Assert.Equal("Metric", row.CounterType));

            // The subject keeps 20 x 2 MiB alive until it exits; the counter is in units of 10^6 bytes.
            double retainedMb = SubjectFacts.Steps * (double)SubjectFacts.RetainedBytesPerStep / 1e6;
            Assert.True(heap.Max(r => r.Value) >= retainedMb, $"max GC heap {heap.Max(r => r.Value)} MB < {retainedMb} MB kept alive");
            Assert.Contains(Recording.Named("System.Runtime", "Gen 0 GC Count (Count / 1 sec)"), r => r.CounterType == "Rate");
        }

        [Fact]
        public void A_counters_increments_add_up_to_its_total_per_tag_set()
        {
            IReadOnlyList<CounterRow> main = Recording.Named(Meter, "subject.work ({item} / 1 sec)[pool=lz4_buffers;scope=1]");
            IReadOnlyList<CounterRow> other = Recording.Named(Meter, "subject.work ({item} / 1 sec)[pool=other;scope=2]");
            Assert.NotEmpty(main);
            Assert.All(main.Concat(other), row => Assert.Equal("Rate", row.CounterType));
            Assert.Equal(SubjectFacts.MainTotal, main.Sum(r => r.Value));
            Assert.Equal(SubjectFacts.OtherTotal, other.Sum(r => r.Value));
        }

        [Fact]
        public void An_up_down_counter_is_recorded_as_its_current_total()
        {
            IReadOnlyList<CounterRow> inUse = Recording.Named(Meter, "subject.in_use (By)[pool=lz4_buffers;scope=1]");
            Assert.NotEmpty(inUse);
            Assert.All(inUse, row => Assert.Equal("Metric", row.CounterType));
            Assert.Equal(SubjectFacts.UpDownFinal, inUse[^1].Value);
        }

        [Fact]
        public void An_observable_gauge_is_recorded_up_to_its_final_value()
        {
            IReadOnlyList<CounterRow> level = Recording.Named(Meter, "subject.level");
            Assert.NotEmpty(level);
            Assert.All(level, row => Assert.Equal("Metric", row.CounterType));
            Assert.Equal(SubjectFacts.GaugeFinal, level[^1].Value);
        }

        [Fact]
        public void Only_the_requested_providers_appear()
        {
            Assert.Equal(new[] { Meter, "System.Runtime" }, Recording.Rows.Select(r => r.Provider).Distinct().OrderBy(p => p, System.StringComparer.Ordinal));
        }
    }
}
