namespace CountersRecorder.Tests.Subject
{
    /// <summary>What the subject publishes, shared with the tests so the expected values are written down once.</summary>
    public static class SubjectFacts
    {
        public const string MeterName = "CountersRecorder.Tests.Subject";

        /// <summary>A Counter&lt;long&gt; added to in <see cref="Steps"/> steps, on two tag sets.</summary>
        public const string CounterName = "subject.work";
        public const string CounterUnit = "{item}";

        /// <summary>The first tag set (the same tag names as the driver overlay's pool instruments).</summary>
        public const string MainTags = "pool=lz4_buffers,scope=1";
        public const long MainIncrementPerStep = 50;

        public const string OtherTags = "pool=other,scope=2";
        public const long OtherIncrementPerStep = 7;

        /// <summary>An UpDownCounter&lt;long&gt; that goes up and down every step and ends at <see cref="UpDownFinal"/>.</summary>
        public const string UpDownName = "subject.in_use";
        public const string UpDownUnit = "By";
        public const long UpDownUpPerStep = 8192;
        public const long UpDownDownPerStep = 4096;

        /// <summary>An ObservableGauge&lt;long&gt; that reports the step number, then <see cref="GaugeFinal"/>.</summary>
        public const string GaugeName = "subject.level";
        public const long GaugeFinal = 42;

        public const int Steps = 20;

        /// <summary>Bytes allocated and kept alive per step, so the GC heap visibly grows (40 MB in all).</summary>
        public const int RetainedBytesPerStep = 2 * 1024 * 1024;

        public const long MainTotal = Steps * MainIncrementPerStep;
        public const long OtherTotal = Steps * OtherIncrementPerStep;
        public const long UpDownFinal = Steps * (UpDownUpPerStep - UpDownDownPerStep);

        /// <summary>The line the subject writes on stdout at its end (the tests check that output passes through).</summary>
        public const string DoneLine = "subject: done";

        /// <summary>The line the subject writes on stderr at its start.</summary>
        public const string StderrLine = "subject: this line goes to stderr";
    }
}
