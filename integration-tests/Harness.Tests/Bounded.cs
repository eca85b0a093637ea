namespace Harness.Tests
{
    /// <summary>
    /// Runs driver calls with an upper bound, so a hang (a reader that never completes, a Dispose that waits forever)
    /// fails its test with a message instead of stalling the whole suite. Not a timing assertion: the bounds are many
    /// times what the operation needs even on a loaded 2-core machine.
    /// </summary>
    public static class Bounded
    {
        public static readonly TimeSpan Query = TimeSpan.FromSeconds(90);

        public static readonly TimeSpan Dispose = TimeSpan.FromSeconds(30);

        public static T Run<T>(Func<T> action, TimeSpan limit, string what)
        {
            Task<T> task = Task.Run(action);
            // WhenAny rather than Wait(limit): the driver's own exception must reach the test unwrapped.
            if (Task.WhenAny(task, Task.Delay(limit)).GetAwaiter().GetResult() != task)
            {
                throw new TimeoutException($"{what} did not finish within {limit.TotalSeconds:F0} s (hang?)");
            }

            return task.GetAwaiter().GetResult();
        }

        public static void Run(Action action, TimeSpan limit, string what) =>
            Run(() =>
            {
                action();
                return true;
            }, limit, what);

        /// <summary>Polls <paramref name="condition"/> every 50 ms until it holds or the limit passes; returns whether it held.</summary>
        public static bool WaitUntil(Func<bool> condition, TimeSpan limit)
        {
            DateTime end = DateTime.UtcNow + limit;
            while (true)
            {
                if (condition())
                {
                    return true;
                }

                if (DateTime.UtcNow > end)
                {
                    return false;
                }

                System.Threading.Thread.Sleep(50);
            }
        }
    }
}
