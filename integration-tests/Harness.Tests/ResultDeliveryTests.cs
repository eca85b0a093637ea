namespace Harness.Tests
{
    /// <summary>
    /// The result shapes a warehouse sends, against any driver (stock or patched): inline Arrow batches, CloudFetch
    /// files (LZ4 or not, many files, several frames per file, checksums, linked blocks) and the polling path without
    /// direct results. Every value of every row is checked against the data set generator.
    /// </summary>
    [Collection(HarnessCollection.Name)]
    public sealed class ResultDeliveryTests(HarnessFixture fixture)
    {
        [Theory]
        [InlineData(1, null)]
        [InlineData(100, null)]
        [InlineData(5_000, null)]
        [InlineData(5_000, "lz4=off")]
        public void InlineResultsAreComplete(long rows, string? options)
        {
            var spec = new DatasetSpec { Rows = rows, Seed = 11, RowsPerBatch = 700 };
            DriverQueries.RunOnce(fixture, spec, "mode=inline" + (options == null ? string.Empty : ", " + options)).AssertAllRowsCorrect();
        }

        [Fact]
        public void EmptyResultIsEmpty()
        {
            var spec = new DatasetSpec { Rows = 0, Seed = 12 };
            DriverQueries.RunOnce(fixture, spec, "mode=inline").AssertCorrectOrFailed();
        }

        [Theory]
        [MemberData(nameof(DatasetProfiles.Every), MemberType = typeof(DatasetProfiles))]
        public void CloudFetchLz4OverManyFiles(DatasetProfile profile)
        {
            // 24 files of 2,000 rows: more files than the driver downloads in parallel or prefetches, so the
            // pipeline's queueing, ordering and link fetching across several FetchResults calls all matter.
            var spec = new DatasetSpec { Rows = 48_000, Seed = 13, Profile = profile, RowsPerFile = 2_000, RowsPerBatch = 1_000 };
            DriverQueries.RunOnce(fixture, spec, "mode=cloudfetch, links_per_fetch=5").AssertAllRowsCorrect();
        }

        [Theory]
        [InlineData("frames=4")]
        [InlineData("frames=per_message")]
        [InlineData("lz4_block=64kb, lz4_linked=true")]
        [InlineData("lz4_block=64kb, lz4_block_checksum=true, lz4_content_checksum=true, lz4_content_size=true")]
        [InlineData("lz4=off")]
        public void CloudFetchFileEncodings(string encoding)
        {
            var spec = new DatasetSpec { Rows = 20_000, Seed = 14, RowsPerFile = 5_000, RowsPerBatch = 1_500 };
            DriverQueries.RunOnce(fixture, spec, "mode=cloudfetch, " + encoding).AssertAllRowsCorrect();
        }

        [Theory]
        [InlineData("mode=inline, batch_rows=900")]
        [InlineData("mode=cloudfetch")]
        public void WithoutDirectResultsTheDriverPollsAndFetches(string options)
        {
            var spec = new DatasetSpec { Rows = 9_000, Seed = 15, RowsPerFile = 2_000, RowsPerBatch = 900 };
            DriverQueries.RunOnce(fixture, spec, options + ", direct=false, running_polls=3").AssertAllRowsCorrect();
        }

        [Fact]
        public void LargerCloudFetchResultSampled()
        {
            // The biggest scenario of the suite (about 30 MB of Arrow in two default-size files): every 7th row and
            // every batch's last row are checked, which still catches a lost, repeated or reordered batch.
            var spec = new DatasetSpec { Rows = 300_000, Seed = 16 };
            DriverQueries.RunOnce(fixture, spec, "mode=cloudfetch", sampleEvery: 7).AssertAllRowsCorrect();
        }

        [Fact]
        public void SeveralStatementsOnOneConnection()
        {
            using AdbcDatabase database = fixture.OpenDatabase();
            using AdbcConnection connection = database.Connect(null);
            for (int i = 0; i < 4; i++)
            {
                var spec = new DatasetSpec { Rows = 3_000 + i, Seed = 20 + i, RowsPerFile = 1_000 };
                DriverQueries.Run(connection, spec, i % 2 == 0 ? "mode=inline" : "mode=cloudfetch").AssertAllRowsCorrect();
            }
        }
    }
}
