using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Apache.Arrow.Adbc.Drivers.Databricks;

namespace QueueWaitIdleCost
{
    /// <summary>
    /// N waiters take from N empty bounded queues and sit idle; the process's CPU time, thread-pool work items, thread
    /// count and allocations over the idle window are what waiting costs. Then every queue is completed and the time
    /// until every waiter has ended is measured. Modes, run in turn within one process, rounds interleaved:
    /// <list type="bullet">
    /// <item><c>overlay</c>: TakeOrNullWhenCompletedAsync, completed with CompleteAddingAndWake (what the series does);</item>
    /// <item><c>overlay-plain-complete</c>: the same waits, completed with BlockingCollection.CompleteAdding (found by the sweep);</item>
    /// <item><c>upstream</c>: <c>Task.Run(() =&gt; queue.Take())</c> per waiter, as every tag 21-24 and the new home's CloudFetch reader;</item>
    /// <item><c>no-waiters</c>: the same window with no waiter at all, the process's own background (JIT, GC, timers).</item>
    /// </list>
    /// </summary>
    internal static class Program
    {
        private static int Main(string[] args)
        {
            int waiters = Option(args, "--waiters", 200);
            double idleSeconds = Option(args, "--idle-seconds", 3.0);
            int rounds = Option(args, "--rounds", 3);
            Console.WriteLine($"{waiters} idle waiters, {idleSeconds} s idle, {rounds} round(s), {Environment.ProcessorCount} cores, .NET {Environment.Version}");
            Console.WriteLine("mode                    round  cpu_ms  work_items  pool_threads  allocated_kb  end_ms");
            string[] modes = { "no-waiters", "overlay", "overlay-plain-complete", "upstream" };
            for (int round = 1; round <= rounds; round++)
            {
                foreach (string mode in modes)
                {
                    Measurement m = Measure(mode, waiters, TimeSpan.FromSeconds(idleSeconds));
                    Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "{0,-22}  {1,5}  {2,6:F0}  {3,10}  {4,12}  {5,12:F0}  {6,6:F1}",
                        mode, round, m.CpuMs, m.WorkItems, m.PoolThreads, m.AllocatedKb, m.EndMs));
                }
            }

            return 0;
        }

        private static Measurement Measure(string mode, int waiters, TimeSpan idle)
        {
            BlockingCollection<object>[] queues = Enumerable.Range(0, mode == "no-waiters" ? 0 : waiters).Select(_ => new BlockingCollection<object>(4)).ToArray();
            Task[] waits = mode == "upstream"
                ? queues.Select(q => (Task)Task.Run(() => TakeOrNullBlocking(q))).ToArray()
                : queues.Select(q => (Task)q.TakeOrNullWhenCompletedAsync(CancellationToken.None)).ToArray();
            Thread.Sleep(200); // let every waiter reach its wait before the window opens

            Process process = Process.GetCurrentProcess();
            TimeSpan cpuBefore = process.TotalProcessorTime;
            long workItemsBefore = ThreadPool.CompletedWorkItemCount;
            long allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
            Thread.Sleep(idle);
            process.Refresh();
            double cpuMs = (process.TotalProcessorTime - cpuBefore).TotalMilliseconds;
            long workItems = ThreadPool.CompletedWorkItemCount - workItemsBefore;
            long allocatedKb = (GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore) / 1024;
            int poolThreads = ThreadPool.ThreadCount;
            if (waits.Any(w => w.IsCompleted))
            {
                throw new InvalidOperationException($"{mode}: a waiter ended while its queue was empty");
            }

            var clock = Stopwatch.StartNew();
            foreach (BlockingCollection<object> queue in queues)
            {
                if (mode == "overlay")
                {
                    queue.CompleteAddingAndWake();
                }
                else
                {
                    queue.CompleteAdding();
                }
            }

            Task.WaitAll(waits);
            double endMs = clock.Elapsed.TotalMilliseconds;
            Array.ForEach(queues, q => q.Dispose());
            return new Measurement(cpuMs, workItems, poolThreads, allocatedKb, endMs);
        }

        private static object? TakeOrNullBlocking(BlockingCollection<object> queue)
        {
            try
            {
                return queue.Take();
            }
            catch (InvalidOperationException) when (queue.IsCompleted)
            {
                return null;
            }
        }

        private static T Option<T>(string[] args, string name, T fallback)
        {
            int at = Array.IndexOf(args, name);
            return at >= 0 && at + 1 < args.Length ? (T)Convert.ChangeType(args[at + 1], typeof(T), CultureInfo.InvariantCulture) : fallback;
        }

        private readonly record struct Measurement(double CpuMs, long WorkItems, int PoolThreads, long AllocatedKb, double EndMs);
    }
}
