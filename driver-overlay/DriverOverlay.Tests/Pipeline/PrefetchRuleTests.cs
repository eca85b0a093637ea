namespace DriverOverlay.Tests.Pipeline
{
    /// <summary>
    /// The adaptive prefetch's rule, fed measurements and checked decision by decision: about one file ahead when the
    /// reader is the bottleneck; when the downloads are, doubling while each step buys at least half of what it could
    /// (per-stream links), undoing a step that does not (a shared link) and going on one file at a time after a cooldown;
    /// never past its bound, and never growing for what the limit is not holding back. No clock: timestamps are given.
    /// </summary>
    public class PrefetchRuleTests
    {
        private const long FileBytes = 8_500_000;

        /// <summary>
        /// Ticks a link takes per file at one download's rate (any unit: the rule compares rates only); divisible by every
        /// number of streams the tests use, so that a rate is exact.
        /// </summary>
        private const long TicksPerFileOneStream = 3_600_000;

        private long _now;

        [Fact]
        public void StartsAtUpstreamsThreeDownloads_OrTheHostsBoundWhenLower()
        {
            Assert.Equal(3, new PrefetchRule(PrefetchRule.DefaultMaxFiles, 0).Limit);
            Assert.Equal(2, new PrefetchRule(2, 0).Limit);
            Assert.Throws<ArgumentOutOfRangeException>(() => new PrefetchRule(0, 0));
        }

        [Fact]
        public void ADownloadStartsOnlyWhileFewerFilesThanTheLimitAreAhead_DownloadingOrWaiting()
        {
            var rule = new PrefetchRule(16, 0);

            Assert.True(rule.CanStart(inFlight: 2, waiting: 0));
            Assert.True(rule.CanStart(inFlight: 0, waiting: 2));
            Assert.False(rule.CanStart(inFlight: 3, waiting: 0));
            Assert.False(rule.CanStart(inFlight: 1, waiting: 2));
        }

        [Fact]
        public void WhenTheReaderFindsMoreThanOneFileWaiting_TheLimitDropsToOneFileAhead()
        {
            var rule = new PrefetchRule(16, 0);

            Assert.True(Ready(rule, readyFiles: 3));
            Assert.Equal(2, rule.Limit);
            Assert.True(Ready(rule, readyFiles: 2));
            Assert.Equal(1, rule.Limit);
            Assert.False(Ready(rule, readyFiles: 2)); // never below one file
            Assert.Equal(1, rule.Limit);
        }

        [Fact]
        public void FilesThatEndedTogetherWhileTheReaderWaited_DoNotNarrowTheLimit()
        {
            // A network-bound read: the reader waits for its file, and the downloads started with it end at once.
            var rule = new PrefetchRule(16, 0);

            Starved(rule);
            Assert.False(Ready(rule, readyFiles: 3));
            Assert.Equal(3, rule.Limit);

            Assert.True(Ready(rule, readyFiles: 2)); // found waiting again without waiting: the reader is the bottleneck
            Assert.Equal(2, rule.Limit);
        }

        [Fact]
        public void WhenTheReaderFindsExactlyItsFileWaiting_TheLimitHolds()
        {
            var rule = new PrefetchRule(16, 0);
            MeasureWindow(rule, throughputStreams: 3);

            Assert.False(Ready(rule, readyFiles: 1));
            Assert.Equal(3, rule.Limit);
        }

        [Fact]
        public void PerStreamLink_DoublesWhileTheThroughputScales_UpToTheBound()
        {
            var rule = new PrefetchRule(16, 0);
            var limits = new List<int>();

            for (int window = 0; window < 5; window++)
            {
                MeasureWindow(rule, throughputStreams: rule.Limit); // every download adds one stream's rate
                Starved(rule);
                limits.Add(rule.Limit);
            }

            Assert.Equal(new[] { 6, 12, 16, 16, 16 }, limits);
        }

        [Fact]
        public void SharedLink_AStepThatBuysNothingIsUndone_ThenOneFileIsTriedAfterTheCooldown()
        {
            var rule = new PrefetchRule(16, 0);
            MeasureWindow(rule, throughputStreams: 3);
            Starved(rule);
            Assert.Equal(6, rule.Limit);

            MeasureWindow(rule, throughputStreams: 3); // the link is full: twice the downloads, the same bytes per second
            Starved(rule);
            Assert.Equal(3, rule.Limit);

            for (int window = 0; window < PrefetchRule.CooldownEpochs; window++)
            {
                Starved(rule);
                Assert.Equal(3, rule.Limit);
                MeasureWindow(rule, throughputStreams: 3);
            }

            Starved(rule);
            Assert.Equal(4, rule.Limit);
            MeasureWindow(rule, throughputStreams: 3);
            Starved(rule);
            Assert.Equal(3, rule.Limit);
        }

        [Theory]
        [InlineData(1.49, 6)]
        [InlineData(1.50, 16)]
        public void AStepIsKeptWhenItBuysAtLeastHalfOfWhatItCould(double gain, int expected)
        {
            var rule = new PrefetchRule(16, 0);
            MeasureWindow(rule, throughputStreams: 3);
            Starved(rule);
            MeasureWindow(rule, throughputStreams: 6); // 3 -> 6 scaled fully
            Starved(rule);
            Assert.Equal(12, rule.Limit);

            MeasureWindow(rule, throughputStreams: 6 * gain);
            Starved(rule);

            Assert.Equal(expected, rule.Limit); // kept: on to the bound; undone: back to 6
        }

        [Fact]
        public void NoStepBeforeAWindowAtTheCurrentLimitIsMeasured()
        {
            var rule = new PrefetchRule(16, 0);
            Starved(rule);
            Assert.Equal(3, rule.Limit);

            rule.DownloadCompleted(FileBytes, Advance(TicksPerFileOneStream));
            rule.DownloadCompleted(FileBytes, Advance(TicksPerFileOneStream));
            Starved(rule); // two of the window's three files
            Assert.Equal(3, rule.Limit);
        }

        [Fact]
        public void NoStepWhenTheLimitIsNotWhatHoldsTheDownloadsBack()
        {
            var rule = new PrefetchRule(16, 0);
            MeasureWindow(rule, throughputStreams: 3);

            rule.ReaderAsked(ready: false, readyFiles: 0, ahead: 2, Advance(1)); // links or the budget keep it below 3

            Assert.Equal(3, rule.Limit);
        }

        [Fact]
        public void NoStepAfterAWindowInWhichADownloadWaitedForTheBudget()
        {
            var rule = new PrefetchRule(16, 0);
            rule.BudgetWaited();
            MeasureWindow(rule, throughputStreams: 3);
            Starved(rule);
            Assert.Equal(3, rule.Limit);

            MeasureWindow(rule, throughputStreams: 3); // the next window without a budget wait
            Starved(rule);
            Assert.Equal(6, rule.Limit);
        }

        [Fact]
        public void TheHostsBoundIsNeverExceeded()
        {
            var rule = new PrefetchRule(4, 0);
            for (int window = 0; window < 4; window++)
            {
                MeasureWindow(rule, throughputStreams: rule.Limit);
                Starved(rule);
                Assert.True(rule.Limit <= 4);
            }

            Assert.Equal(4, rule.Limit);
        }

        [Fact]
        public void AfterTheReaderWasTheBottleneck_AShortageStartsOverByDoubling()
        {
            var rule = new PrefetchRule(16, 0);
            MeasureWindow(rule, throughputStreams: 3);
            Starved(rule);
            MeasureWindow(rule, throughputStreams: 3);
            Starved(rule);
            Assert.Equal(3, rule.Limit); // undone: from here one file at a time

            Ready(rule, readyFiles: 1);
            Ready(rule, readyFiles: 2);
            Assert.Equal(2, rule.Limit);
            MeasureWindow(rule, throughputStreams: 2);
            Starved(rule);

            Assert.Equal(4, rule.Limit);
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
