using System;
using System.Collections.Generic;
using System.Globalization;

namespace CountersRecorder
{
    /// <summary>A command line the recorder cannot run; Program prints the message and the usage, and exits 2.</summary>
    internal sealed class UsageException : Exception
    {
        public UsageException(string message)
            : base(message)
        {
        }
    }

    /// <summary>
    /// The recorder's command line:
    /// <c>--output FILE.csv [--interval SECONDS] [--meter NAME]... [--no-runtime] [--attach startup|pid] [--attach-timeout SECONDS]
    /// -- COMMAND [ARGS...]</c>.
    /// Everything after the first <c>--</c> belongs to the child, untouched.
    /// </summary>
    internal sealed class RecorderOptions
    {
        public const string Usage =
            "usage: CountersRecorder --output FILE.csv [--interval SECONDS] [--meter NAME]... [--no-runtime]\n" +
            "                        [--attach startup|pid] [--attach-timeout SECONDS] -- COMMAND [ARGS...]\n" +
            "  Runs COMMAND (a .NET process, e.g. `dotnet app.dll`), records the System.Runtime EventCounters and the\n" +
            "  given meters every SECONDS (default 1) into FILE.csv in dotnet-counters' CSV layout, and exits with\n" +
            "  COMMAND's exit code. Exit 2: bad usage.";

        /// <summary>Longest interval accepted: beyond an hour a recording of one run says nothing.</summary>
        private const double MaxIntervalSeconds = 3600;

        private RecorderOptions(string output, double intervalSeconds, IReadOnlyList<string> meters, bool runtimeCounters,
            AttachMode attach, double attachTimeoutSeconds, IReadOnlyList<string> command)
        {
            Attach = attach;
            Output = output;
            IntervalSeconds = intervalSeconds;
            Meters = meters;
            RuntimeCounters = runtimeCounters;
            AttachTimeoutSeconds = attachTimeoutSeconds;
            Command = command;
        }

        public string Output { get; }

        public double IntervalSeconds { get; }

        public IReadOnlyList<string> Meters { get; }

        /// <summary>Whether the System.Runtime EventCounters are recorded (off with --no-runtime).</summary>
        public bool RuntimeCounters { get; }

        /// <summary>How the child's runtime is reached (see <see cref="AttachMode"/>).</summary>
        public AttachMode Attach { get; }

        /// <summary>
        /// Startup mode: when to warn that the child has not connected yet (waiting goes on until it exits). Pid mode: how
        /// long to keep trying to reach the child's diagnostic IPC before recording nothing.
        /// </summary>
        public double AttachTimeoutSeconds { get; }

        /// <summary>The child's program and its arguments (at least one element).</summary>
        public IReadOnlyList<string> Command { get; }

        public static RecorderOptions Parse(IReadOnlyList<string> args)
        {
            string? output = null;
            double interval = 1;
            double attachTimeout = 15;
            bool runtime = true;
            AttachMode attach = AttachMode.Startup;
            var meters = new List<string>();
            int separator = -1;

            for (int i = 0; i < args.Count; i++)
            {
                string arg = args[i];
                if (arg == "--")
                {
                    separator = i;
                    break;
                }

                switch (arg)
                {
                    case "--output":
                        output = Value(args, ref i);
                        break;
                    case "--interval":
                        interval = Seconds(arg, Value(args, ref i), MaxIntervalSeconds);
                        break;
                    case "--attach-timeout":
                        attachTimeout = Seconds(arg, Value(args, ref i), 600);
                        break;
                    case "--meter":
                        string meter = Value(args, ref i);
                        if (meter.Trim().Length == 0 || meter.Contains(',', StringComparison.Ordinal))
                        {
                            // The provider takes a comma-separated list, so a comma inside one name would split it.
                            throw new UsageException($"--meter needs one meter name without commas, got '{meter}'");
                        }

                        meters.Add(meter.Trim());
                        break;
                    case "--attach":
                        string mode = Value(args, ref i);
                        attach = mode switch
                        {
                            "startup" => AttachMode.Startup,
                            "pid" => AttachMode.Pid,
                            _ => throw new UsageException($"--attach takes 'startup' or 'pid', got '{mode}'"),
                        };
                        break;
                    case "--no-runtime":
                        runtime = false;
                        break;
                    default:
                        throw new UsageException(arg.StartsWith('-')
                            ? $"unknown option '{arg}'"
                            : $"missing '--' before the command to run ('{arg}')");
                }
            }

            if (separator < 0)
            {
                throw new UsageException("missing '--' and the command to run");
            }

            if (separator == args.Count - 1)
            {
                throw new UsageException("no command after '--'");
            }

            if (string.IsNullOrWhiteSpace(output))
            {
                throw new UsageException("--output FILE.csv is required");
            }

            if (!runtime && meters.Count == 0)
            {
                throw new UsageException("nothing to record: --no-runtime and no --meter");
            }

            var command = new List<string>();
            for (int i = separator + 1; i < args.Count; i++)
            {
                command.Add(args[i]);
            }

            return new RecorderOptions(output, interval, meters, runtime, attach, attachTimeout, command);
        }

        private static string Value(IReadOnlyList<string> args, ref int i)
        {
            if (i + 1 >= args.Count || args[i + 1] == "--")
            {
                throw new UsageException($"{args[i]} needs a value");
            }

            i++;
            return args[i];
        }

        private static double Seconds(string option, string text, double max)
        {
            if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds)
                || double.IsNaN(seconds) || seconds <= 0 || seconds > max)
            {
                throw new UsageException($"{option} needs a number of seconds in (0, {max}], got '{text}'");
            }

            return seconds;
        }
    }
}
