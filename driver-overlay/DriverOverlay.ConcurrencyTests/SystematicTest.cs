/*
* Licensed to the Apache Software Foundation (ASF) under one or more
* contributor license agreements.  See the NOTICE file distributed with
* this work for additional information regarding copyright ownership.
* The ASF licenses this file to You under the Apache License, Version 2.0
* (the "License"); you may not use this file except in compliance with
* the License.  You may obtain a copy of the License at
*
*    http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using Microsoft.Coyote;
using Microsoft.Coyote.SystematicTesting;
using Xunit.Abstractions;

namespace DriverOverlay.ConcurrencyTests
{
    /// <summary>
    /// Runs a test body under Coyote's scheduler for a number of schedules and fails with Coyote's bug report (the
    /// schedule that broke an invariant, deadlocked or hung) when one is found.
    /// </summary>
    internal static class SystematicTest
    {
        /// <summary>
        /// Schedules explored per test in CI. Measured on series 1.5.0's budget (docs/decisions.md, "Systematic
        /// concurrency tests"): its deadlock and its lost bytes were each found within the first few dozen schedules.
        /// </summary>
        public const uint Schedules = 1000;

        /// <summary>The same schedules on every run, so that a failure in CI is the failure on a developer's machine.</summary>
        private const uint Seed = 20261128;

        /// <param name="memoryAccessRaces">
        /// Also interleave at the rewritten code's field loads and stores, not only at locks and tasks: for state that a
        /// worker changes outside any lock while another thread reads what the protocol says it may.
        /// </param>
        public static void Run(Func<Task> test, ITestOutputHelper output, uint schedules = Schedules, bool memoryAccessRaces = false)
        {
            Configuration configuration = Configuration.Create()
                .WithTestingIterations(schedules)
                .WithMemoryAccessRaceCheckingEnabled(memoryAccessRaces)
                .WithRandomGeneratorSeed(Seed)
                .WithTelemetryEnabled(false)
                // A wait no controlled operation can end is a deadlock; an uncontrolled wait that never returns (a
                // CancellationTokenRegistration.Dispose waiting for a callback that waits for a lock) shows as a hang.
                .WithPotentialDeadlocksReportedAsBugs(true)
                .WithDeadlockTimeout(2000);
            using TestingEngine engine = TestingEngine.Create(configuration, test);
            engine.Run();
            TestReport report = engine.TestReport;
            output.WriteLine(report.GetText(configuration));
            if (report.NumOfFoundBugs > 0)
            {
                Assert.Fail($"{string.Join(Environment.NewLine, report.BugReports)}{Environment.NewLine}(schedule {engine.ReproducibleTrace.Length} characters; seed {Seed})");
            }

            Assert.True(report.UncontrolledInvocations.Count == 0, "uncontrolled: " + string.Join(", ", report.UncontrolledInvocations));
        }
    }
}
