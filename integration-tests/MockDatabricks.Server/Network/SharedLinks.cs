using System.Collections.Concurrent;

namespace MockDatabricks.Server.Network
{
    /// <summary>The server's links, one per rate: every download under a link fault of the same rate shares one link.</summary>
    public sealed class SharedLinks
    {
        private readonly ConcurrentDictionary<long, SharedLink> _links = new ConcurrentDictionary<long, SharedLink>();

        public SharedLink For(long bytesPerSecond) => _links.GetOrAdd(bytesPerSecond, rate => new SharedLink(rate));
    }
}
