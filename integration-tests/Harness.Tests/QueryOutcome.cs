namespace Harness.Tests
{
    /// <summary>What one query through the driver produced: the verified rows, any wrong value, and the error if it failed.</summary>
    public sealed record QueryOutcome(long ExpectedRows, long Rows, long ValuesChecked, IReadOnlyList<string> WrongValues, Exception? Error)
    {
        public string Describe() =>
            $"{Rows}/{ExpectedRows} rows, {ValuesChecked} values checked, {WrongValues.Count} wrong" +
            (WrongValues.Count > 0 ? ": " + string.Join("; ", WrongValues) : string.Empty) +
            (Error != null ? $", error {Error.GetType().Name}: {Error.Message}" : string.Empty);

        /// <summary>Every row arrived, in order, with every checked value equal to the generator's.</summary>
        public void AssertAllRowsCorrect()
        {
            Assert.True(Error == null && WrongValues.Count == 0 && Rows == ExpectedRows, Describe() + (Error != null ? "\n" + Error : string.Empty));
            Assert.True(ValuesChecked > 0, "no value was checked");
        }

        /// <summary>
        /// Either a complete, correct result, or an error; never a wrong value, and never a short result without an
        /// error (the verifier reports a short read as a wrong value).
        /// </summary>
        public void AssertCorrectOrFailed()
        {
            Assert.True(WrongValues.Count == 0, "wrong rows: " + Describe());
            if (Error == null)
            {
                Assert.Equal(ExpectedRows, Rows);
            }
        }

        /// <summary>The query failed (and delivered no wrong value on the way).</summary>
        public Exception AssertFailed()
        {
            Assert.True(WrongValues.Count == 0, "wrong rows before the error: " + Describe());
            Assert.True(Error != null, "expected an error, got " + Describe());
            return Error!;
        }
    }
}
