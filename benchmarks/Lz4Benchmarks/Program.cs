using System;
using System.Globalization;
using System.Linq;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

namespace Lz4Benchmarks
{
    public static class Program
    {
        /// <summary>
        /// `--interleaved [rounds]`: the round-robin side-by-side comparison (see <see cref="InterleavedComparison"/>),
        /// the mode whose ratios the README reports. `--decode-ahead [rounds] [--contended]`: a consumer that converts
        /// every value, decode-ahead off and on (see <see cref="DecodeAheadComparison"/>). Anything else goes to BenchmarkDotNet, one path at a time, in a
        /// child process per benchmark as BenchmarkDotNet prefers; `--in-process` measures in this process instead
        /// (no child build, for machines where that is slow).
        /// </summary>
        public static void Main(string[] args)
        {
            if (args.Length > 0 && args[0] == "--interleaved")
            {
                InterleavedComparison.Run(args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 60);
                return;
            }

            if (args.Length > 0 && args[0] == "--decode-ahead")
            {
                string[] numbers = args.Skip(1).Where(a => !a.StartsWith("--", StringComparison.Ordinal)).ToArray();
                DecodeAheadComparison.Run(numbers.Length > 0 ? int.Parse(numbers[0], CultureInfo.InvariantCulture) : 30, args.Contains("--contended"));
                return;
            }

            bool inProcess = args.Contains("--in-process");

            // One file per iteration for every path: the paths that start from a pooled download need an
            // [IterationSetup] per file (which makes BenchmarkDotNet run them one invocation per iteration), and one
            // job for all keeps them beside the tag-22 baseline in its Ratio column. A file takes 5-60 ms, well above
            // the timer's resolution; more iterations make up for the single invocation.
            Job job = Job.Default.WithWarmupCount(3).WithIterationCount(30).WithInvocationCount(1).WithUnrollFactor(1);
            IConfig config = DefaultConfig.Instance
                .AddJob(inProcess ? job.WithToolchain(InProcessEmitToolchain.Instance) : job)
                .AddColumn(StatisticColumn.Median);
            BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args.Where(a => a != "--in-process").ToArray(), config);
        }
    }
}
