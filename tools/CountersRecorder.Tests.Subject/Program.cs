using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;
using System.Threading;

namespace CountersRecorder.Tests.Subject
{
    /// <summary>
    /// <c>Subject [--exit-code N] [--listener-wait SECONDS] [--linger SECONDS] [other options, ignored]</c>: waits (bounded) until something
    /// listens to its meter, so that every measurement lands in the recorder's aggregation; adds to its instruments over
    /// about two seconds while allocating; then lingers (at least SECONDS, and until a listener has collected twice
    /// after the last change, bounded) so the recorder receives every change; then exits with N.
    /// </summary>
    public static class Program
    {
        /// <summary>Longest wait for the listener's collections after the last change (a bound, not a timing assumption).</summary>
        private const double MaxCollectionWaitSeconds = 30;

        private static long s_level;
        private static int s_finished;
        private static int s_collectionsAfterFinish;

        public static int Main(string[] args)
        {
            int exitCode = 0;
            double listenerWait = 10;
            double linger = 2.5;
            for (int i = 0; i < args.Length; i++)
            {
                if (i + 1 >= args.Length || args[i + 1].StartsWith("--", StringComparison.Ordinal))
                {
                    Console.WriteLine($"subject: ignoring {args[i]}");
                    continue;
                }

                switch (args[i++])
                {
                    case "--exit-code":
                        exitCode = int.Parse(args[i], CultureInfo.InvariantCulture);
                        break;
                    case "--listener-wait":
                        listenerWait = double.Parse(args[i], CultureInfo.InvariantCulture);
                        break;
                    case "--linger":
                        linger = double.Parse(args[i], CultureInfo.InvariantCulture);
                        break;
                    default:
                        // Other options are accepted and ignored, so the subject can stand in for another program
                        // (e.g. the memory probe, to try scripts/verify's wrapped probe command by hand).
                        Console.WriteLine($"subject: ignoring {args[i - 1]} {args[i]}");
                        break;
                }
            }

            Console.Error.WriteLine(SubjectFacts.StderrLine);
            using var meter = new Meter(SubjectFacts.MeterName, "1.0.0");
            Counter<long> work = meter.CreateCounter<long>(SubjectFacts.CounterName, SubjectFacts.CounterUnit);
            UpDownCounter<long> inUse = meter.CreateUpDownCounter<long>(SubjectFacts.UpDownName, SubjectFacts.UpDownUnit);
            meter.CreateObservableGauge(SubjectFacts.GaugeName, ObserveLevel);

            // Measurements made before a listener enables an instrument are not seen by anyone.
            var clock = Stopwatch.StartNew();
            while (!(work.Enabled && inUse.Enabled) && clock.Elapsed.TotalSeconds < listenerWait)
            {
                Thread.Sleep(20);
            }

            Console.WriteLine($"subject: listener {(work.Enabled && inUse.Enabled ? "attached" : "absent")} after {clock.Elapsed.TotalSeconds:F1} s");

            KeyValuePair<string, object?>[] main = { new("pool", "lz4_buffers"), new("scope", 1) };
            KeyValuePair<string, object?>[] other = { new("pool", "other"), new("scope", 2) };
            var retained = new List<byte[]>();
            for (int step = 1; step <= SubjectFacts.Steps; step++)
            {
                work.Add(SubjectFacts.MainIncrementPerStep, main);
                work.Add(SubjectFacts.OtherIncrementPerStep, other);
                inUse.Add(SubjectFacts.UpDownUpPerStep, main);
                inUse.Add(-SubjectFacts.UpDownDownPerStep, main);
                Interlocked.Exchange(ref s_level, step);
                byte[] block = new byte[SubjectFacts.RetainedBytesPerStep];
                block.AsSpan().Fill((byte)step); // touch it, so it is in the working set too
                retained.Add(block);
                Thread.Sleep(100);
            }

            Interlocked.Exchange(ref s_level, SubjectFacts.GaugeFinal);
            Interlocked.Exchange(ref s_finished, 1);
            Thread.Sleep(TimeSpan.FromSeconds(linger));

            // A listener's collection observes the gauge and then publishes every instrument's values. Two collections
            // after the last change mean the first one's values (which include every change) were published a whole
            // interval ago, however slow a loaded machine made the listener's timer.
            clock.Restart();
            while (work.Enabled && Volatile.Read(ref s_collectionsAfterFinish) < 2 && clock.Elapsed.TotalSeconds < MaxCollectionWaitSeconds)
            {
                Thread.Sleep(20);
            }
            GC.KeepAlive(retained);
            Console.WriteLine(SubjectFacts.DoneLine);
            return exitCode;
        }

        private static long ObserveLevel()
        {
            if (Volatile.Read(ref s_finished) == 1)
            {
                Interlocked.Increment(ref s_collectionsAfterFinish);
            }

            return Interlocked.Read(ref s_level);
        }
    }
}
