using System.Runtime.CompilerServices;
using MockDatabricks.Server.State;

namespace MockDatabricks.Server.Rest
{
    public enum RestFormat
    {
        ArrowStream,
        JsonArray,
    }

    /// <summary>What a REST statement adds to its <see cref="MockOperation"/>: how its result was asked for.</summary>
    public sealed record RestStatementInfo(RestFormat Format, string Disposition);

    /// <summary>
    /// The REST API's state beside the shared <see cref="SessionRegistry"/>: sessions and statements live there (so
    /// CloudFetch downloads, /admin/operations, /admin/reset and the journal treat both protocols alike, and a session's
    /// catalog and schema are its SessionContext there); this keeps each REST statement's format. Statement info hangs off the
    /// operation object itself, so an admin reset that drops the operation drops it too.
    /// </summary>
    public sealed class RestState
    {
        private readonly ConditionalWeakTable<MockOperation, RestStatementInfo> _statements = new ConditionalWeakTable<MockOperation, RestStatementInfo>();

        public void Attach(MockOperation operation, RestStatementInfo info) => _statements.AddOrUpdate(operation, info);

        /// <summary>The REST info of an operation, or null for an operation a Thrift client started.</summary>
        public RestStatementInfo? InfoOf(MockOperation operation) => _statements.TryGetValue(operation, out RestStatementInfo? info) ? info : null;
    }
}
