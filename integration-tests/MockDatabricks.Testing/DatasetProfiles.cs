using MockDatabricks.Protocol.Data;

namespace MockDatabricks.Testing
{
    /// <summary>Theory data for what must hold for every data set profile, a profile added later included.</summary>
    public static class DatasetProfiles
    {
        /// <summary>One row per <see cref="DatasetProfile"/>: [MemberData(nameof(DatasetProfiles.Every), MemberType = typeof(DatasetProfiles))].</summary>
        public static IEnumerable<object[]> Every => Enum.GetValues<DatasetProfile>().Select(profile => new object[] { profile });
    }
}
