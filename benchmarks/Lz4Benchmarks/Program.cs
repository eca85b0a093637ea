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
        /// In-process toolchain: BenchmarkDotNet 0.14 (the newest the mirror serves) does not know .NET 10 and
        /// cannot generate a child project for it; the in-process emit toolchain measures in this process instead.
        /// </summary>
        public static void Main(string[] args)
        {
            // `--interleaved [rounds]`: the round-robin side-by-side comparison (see InterleavedComparison).
            if (args.Length > 0 && args[0] == "--interleaved")
            {
                InterleavedComparison.Run(args.Length > 1 ? int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture) : 60);
                return;
            }

            IConfig config = DefaultConfig.Instance
                .AddJob(Job.Default
                    .WithToolchain(InProcessEmitToolchain.Instance)
                    .WithWarmupCount(3)
                    .WithIterationCount(15))
                .AddColumn(StatisticColumn.Median)
                .WithOptions(ConfigOptions.DisableOptimizationsValidator);
            BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, config);
        }
    }
}
