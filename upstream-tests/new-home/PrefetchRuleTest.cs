/*
* Copyright (c) 2025 ADBC Drivers Contributors
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*/

using System;
using System.Collections.Generic;
using Xunit;

namespace AdbcDrivers.Databricks.Tests.Unit.Dbxmem
{
    /// <summary>
    /// The adaptive prefetch's rule, fed measurements and checked decision by decision: about one file ahead when the
    /// reader is the bottleneck; when the downloads are, doubling while each step buys at least half of what it could
    /// (per-stream links), undoing a step that does not (a shared link) and going on one file at a time after a cooldown;
    /// never past its bound, and never growing for what the limit is not holding back. No clock: timestamps are given.
    /// </summary>
    public class PrefetchRuleTest
    {
        private const long FileBytes = 8_500_000;

        /// <summary>
        /// Ticks a link takes per file at one download's rate (any unit: the rule compares rates only); divisible by every
        /// number of streams the tests use, so that a rate is exact.
        /// </summary>
        private const long TicksPerFileOneStream = 3_600_000;

        private long _now;

        [Fact]
        public void Constructor_DefaultOrLowerBound_StartsAtTwoFilesOrTheBound()
        {
            // Act and Assert
            Assert.Equal(2, new PrefetchRule(PrefetchRule.DefaultMaxFiles, 0).Limit);
            Assert.Equal(1, new PrefetchRule(1, 0).Limit);
            Assert.Throws<ArgumentOutOfRangeException>(() => new PrefetchRule(0, 0));
        }

        [Fact]
        public void CanStart_FilesAheadDownloadingOrWaiting_OnlyBelowTheLimit()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            Assert.True(rule.CanStart(inFlight: 1, waiting: 0));
            Assert.True(rule.CanStart(inFlight: 0, waiting: 1));
            Assert.False(rule.CanStart(inFlight: 2, waiting: 0));
            Assert.False(rule.CanStart(inFlight: 1, waiting: 1));
        }

        [Fact]
        public void ReaderAsked_MoreThanOneFileWaiting_DropsTheLimitToOneFileAhead()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            Assert.True(Ready(rule, readyFiles: 2));
            Assert.Equal(1, rule.Limit);
            Assert.False(Ready(rule, readyFiles: 2)); // never below one file
            Assert.Equal(1, rule.Limit);
        }

        [Fact]
        public void ReaderAsked_FilesThatEndedTogetherWhileTheReaderWaited_DoNotNarrowTheLimit()
        {
            // Arrange: a network-bound read, where the reader waits for its file, and the downloads started with it end at once.
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            Starved(rule);
            Assert.False(Ready(rule, readyFiles: 2));
            Assert.Equal(2, rule.Limit);

            Assert.True(Ready(rule, readyFiles: 2)); // found waiting again without waiting: the reader is the bottleneck
            Assert.Equal(1, rule.Limit);
        }

        [Fact]
        public void ReaderAsked_ExactlyItsFileWaiting_KeepsTheLimit()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            MeasureWindow(rule, throughputStreams: 2);

            Assert.False(Ready(rule, readyFiles: 1));
            Assert.Equal(2, rule.Limit);
        }

        [Fact]
        public void ReaderAsked_PerStreamLink_DoublesWhileTheThroughputScalesUpToTheBound()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);
            List<int> limits = new List<int>();

            // Act
            for (int window = 0; window < 5; window++)
            {
                MeasureWindow(rule, throughputStreams: rule.Limit); // every download adds one stream's rate
                Starved(rule);
                limits.Add(rule.Limit);
            }

            // Assert
            Assert.Equal(new[] { 4, 8, 16, 16, 16 }, limits);
        }

        [Fact]
        public void ReaderAsked_SharedLink_UndoesAStepThatBuysNothingThenTriesOneFileAfterTheCooldown()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            MeasureWindow(rule, throughputStreams: 2);
            Starved(rule);
            Assert.Equal(4, rule.Limit);

            MeasureWindow(rule, throughputStreams: 2); // the link is full: twice the downloads, the same bytes per second
            Starved(rule);
            Assert.Equal(2, rule.Limit);

            for (int window = 0; window < PrefetchRule.CooldownEpochs; window++)
            {
                Starved(rule);
                Assert.Equal(2, rule.Limit);
                MeasureWindow(rule, throughputStreams: 2);
            }

            Starved(rule);
            Assert.Equal(3, rule.Limit);
            MeasureWindow(rule, throughputStreams: 2);
            Starved(rule);
            Assert.Equal(2, rule.Limit);
        }

        [Theory]
        [InlineData(1.49, 4)]
        [InlineData(1.51, 16)] // not 1.50: the two rates are compared in floating point, exactly at the threshold
        public void ReaderAsked_AStepsGain_KeepsItWhenItBuysAtLeastHalfOfWhatItCould(double gain, int expected)
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            MeasureWindow(rule, throughputStreams: 2);
            Starved(rule);
            MeasureWindow(rule, throughputStreams: 4); // 2 -> 4 scaled fully
            Starved(rule);
            Assert.Equal(8, rule.Limit);

            MeasureWindow(rule, throughputStreams: 4 * gain);
            Starved(rule);

            Assert.Equal(expected, rule.Limit); // kept: on to the bound; undone: back to 4
        }

        [Fact]
        public void ReaderAsked_BeforeAWindowAtTheLimitIsMeasured_TakesNoStep()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            Starved(rule);
            Assert.Equal(2, rule.Limit);

            rule.DownloadCompleted(FileBytes, Advance(TicksPerFileOneStream));
            Starved(rule); // one of the window's two files
            Assert.Equal(2, rule.Limit);
        }

        [Fact]
        public void ReaderAsked_TheLimitNotHoldingTheDownloadsBack_TakesNoStep()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            MeasureWindow(rule, throughputStreams: 2);

            rule.ReaderAsked(ready: false, readyFiles: 0, ahead: 1, Advance(1)); // links or the budget keep it below 2

            Assert.Equal(2, rule.Limit);
        }

        [Fact]
        public void BudgetWaited_InAWindow_NoStepAfterIt()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            rule.BudgetWaited();
            MeasureWindow(rule, throughputStreams: 2);
            Starved(rule);
            Assert.Equal(2, rule.Limit);

            MeasureWindow(rule, throughputStreams: 2); // the next window without a budget wait
            Starved(rule);
            Assert.Equal(4, rule.Limit);
        }

        [Fact]
        public void ReaderAsked_DoublingPastTheHostsBound_StopsAtTheBound()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(3, 0); // doubling from 2 would pass it

            // Act and Assert
            for (int window = 0; window < 4; window++)
            {
                MeasureWindow(rule, throughputStreams: rule.Limit);
                Starved(rule);
                Assert.True(rule.Limit <= 3);
            }

            Assert.Equal(3, rule.Limit);
        }

        [Fact]
        public void ReaderAsked_AShortageAfterTheReaderWasTheBottleneck_StartsOverByDoubling()
        {
            // Arrange
            PrefetchRule rule = new PrefetchRule(16, 0);

            // Act and Assert
            MeasureWindow(rule, throughputStreams: 2);
            Starved(rule);
            MeasureWindow(rule, throughputStreams: 2);
            Starved(rule);
            Assert.Equal(2, rule.Limit); // undone: from here one file at a time

            Ready(rule, readyFiles: 1);
            Ready(rule, readyFiles: 2);
            Assert.Equal(1, rule.Limit);
            MeasureWindow(rule, throughputStreams: 1);
            Starved(rule);
            Assert.Equal(2, rule.Limit);
            MeasureWindow(rule, throughputStreams: 2); // scaled fully
            Starved(rule); // at the limit it narrowed from: lifts that ceiling only
            Assert.Equal(2, rule.Limit);
            Ready(rule, readyFiles: 1); // the wait's file, no file to spare: the ceiling stays lifted
            Starved(rule); // the second wait at the old ceiling: the link, not the reader, is the bound now

            Assert.Equal(4, rule.Limit); // doubling again, not one file at a time
        }

        [Fact]
        public void ReaderAsked_AWaitNowAndThenAfterAFileToSpare_DoesNotGrowPastThatLimit()
        {
            // Arrange: over loopback, at one file ahead the reader waits now and then, at two it finds a file to spare, and a
            // step's first window, which counts the downloads started before the step, looks several times faster than the last.
            PrefetchRule rule = new PrefetchRule(16, 0);
            List<int> limits = new List<int>();

            // Act and Assert
            for (int cycle = 0; cycle < 4; cycle++)
            {
                Ready(rule, readyFiles: 2);
                limits.Add(rule.Limit);
                MeasureWindow(rule, throughputStreams: 1);
                Starved(rule);
                limits.Add(rule.Limit);
                MeasureWindow(rule, throughputStreams: 6);
                Starved(rule); // a wait at the ceiling: lifts it
                limits.Add(rule.Limit);
                Ready(rule, readyFiles: 1); // the wait's file
            }

            Assert.Equal(new[] { 1, 2, 2, 1, 2, 2, 1, 2, 2, 1, 2, 2 }, limits);
        }

        /// <summary>The reader found its file downloaded, with <paramref name="readyFiles"/> ready in all.</summary>
        private bool Ready(PrefetchRule rule, int readyFiles) => rule.ReaderAsked(ready: true, readyFiles, ahead: rule.Limit, Advance(1));

        /// <summary>The reader found its file still downloading, with as many files ahead as the limit allows.</summary>
        private void Starved(PrefetchRule rule) => rule.ReaderAsked(ready: false, readyFiles: 0, ahead: rule.Limit, Advance(1));

        /// <summary>One measurement window at the current limit: its files complete at <paramref name="throughputStreams"/> streams' rate.</summary>
        private void MeasureWindow(PrefetchRule rule, double throughputStreams)
        {
            int files = Math.Max(2, rule.Limit);
            long ticksPerFile = (long)Math.Round(TicksPerFileOneStream / throughputStreams);
            for (int i = 0; i < files; i++)
            {
                rule.DownloadCompleted(FileBytes, Advance(ticksPerFile));
            }
        }

        private long Advance(long ticks) => _now += ticks;
    }
}
