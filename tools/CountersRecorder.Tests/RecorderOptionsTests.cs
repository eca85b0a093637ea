using System;
using Xunit;

namespace CountersRecorder.Tests
{
    public sealed class RecorderOptionsTests
    {
        [Fact]
        public void Everything_after_the_separator_belongs_to_the_child_untouched()
        {
            RecorderOptions options = RecorderOptions.Parse(new[]
            {
                "--output", "out.csv", "--interval", "0.25", "--meter", "A.B", "--meter", "C", "--no-runtime", "--attach", "pid", "--attach-timeout", "3",
                "--", "dotnet", "probe.dll", "--output", "x.json", "--", "--interval",
            });

            Assert.Equal("out.csv", options.Output);
            Assert.Equal(0.25, options.IntervalSeconds);
            Assert.Equal(new[] { "A.B", "C" }, options.Meters);
            Assert.False(options.RuntimeCounters);
            Assert.Equal(AttachMode.Pid, options.Attach);
            Assert.Equal(3, options.AttachTimeoutSeconds);
            Assert.Equal(new[] { "dotnet", "probe.dll", "--output", "x.json", "--", "--interval" }, options.Command);
        }

        [Fact]
        public void Defaults_are_one_second_and_the_runtime_counters()
        {
            RecorderOptions options = RecorderOptions.Parse(new[] { "--output", "o.csv", "--", "app" });

            Assert.Equal(1, options.IntervalSeconds);
            Assert.True(options.RuntimeCounters);
            Assert.Equal(AttachMode.Startup, options.Attach);
            Assert.Empty(options.Meters);
            Assert.Equal(new[] { "app" }, options.Command);
        }

        [Theory]
        [InlineData("missing '--'", "--output", "o.csv", "app")]
        [InlineData("no command", "--output", "o.csv", "--")]
        [InlineData("--interval needs", "--output", "o.csv", "--interval", "-1", "--", "app")]
        [InlineData("--interval needs", "--output", "o.csv", "--interval", "NaN", "--", "app")]
        [InlineData("--interval needs", "--output", "o.csv", "--interval", "7200", "--", "app")]
        [InlineData("--interval needs a value", "--output", "o.csv", "--interval", "--", "app")]
        [InlineData("--output FILE.csv is required", "--", "app")]
        [InlineData("without commas", "--output", "o.csv", "--meter", "A,B", "--", "app")]
        [InlineData("--attach takes 'startup' or 'pid'", "--output", "o.csv", "--attach", "later", "--", "app")]
        [InlineData("nothing to record", "--output", "o.csv", "--no-runtime", "--", "app")]
        [InlineData("unknown option '--frobnicate'", "--output", "o.csv", "--frobnicate", "--", "app")]
        [InlineData("missing '--' and the command", "--output", "o.csv")]
        public void Bad_command_lines_say_what_is_wrong(string expected, params string[] args)
        {
            UsageException error = Assert.Throws<UsageException>(() => RecorderOptions.Parse(args));

            Assert.Contains(expected, error.Message, StringComparison.Ordinal);
        }
    }
}
