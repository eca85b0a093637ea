using System.IO;

namespace Harness.Tests
{
    /// <summary>Says which driver the run used (stock or patched, and from where), so every test log is self-describing.</summary>
    public sealed class DriverIdentityTests
    {
        private readonly ITestOutputHelper _output;

        public DriverIdentityTests(ITestOutputHelper output)
        {
            _output = output;
        }

        [Fact]
        public void DriverUnderTestIsTheOneNextToTheTests()
        {
            string location = typeof(DatabricksDriver).Assembly.Location;
            _output.WriteLine($"driver under test: {DriverUnderTest.Description}, {typeof(DatabricksDriver).Assembly.GetName().Version}, loaded from {location}");

            // The driver is copied next to the tests at build time (DriverUnderTest.props); loading one from anywhere
            // else would mean the run is not testing the driver it was built for.
            Assert.Equal(Path.GetFullPath(AppContext.BaseDirectory).TrimEnd(Path.DirectorySeparatorChar), Path.GetDirectoryName(location));

            // HARNESS_EXPECT_DRIVER=stock|patched (set by scripts that know what they built) turns a mix-up into a failure.
            string? expected = Environment.GetEnvironmentVariable("HARNESS_EXPECT_DRIVER");
            if (!string.IsNullOrEmpty(expected))
            {
                Assert.Equal(expected == "patched", DriverUnderTest.IsPatched);
            }
        }
    }
}
