using Microsoft.AspNetCore.Http;

namespace MockDatabricks.Server.State
{
    /// <summary>
    /// One call to the mock, Thrift RPC or REST, as the journal records it: what it touched and how it ended. Each
    /// endpoint fills one per call; the fields mean the same for both protocols (session and operation are the Thrift
    /// handles or the REST session_id and statement_id, maxRows/maxBytes the request's limits, file the chunk index).
    /// </summary>
    public abstract class JournaledCall(HttpContext context, string baseUrl)
    {
        public HttpContext Context { get; } = context;

        /// <summary>Where clients reach this server, for CloudFetch links (<c>ThriftEndpoint.BaseUrl</c>'s rule).</summary>
        public string BaseUrl { get; } = baseUrl;

        public string? Session { get; set; }

        public string? Operation { get; set; }

        public string? Tag { get; set; }

        public long? StartRowOffset { get; set; }

        public long? MaxRows { get; set; }

        public long? MaxBytes { get; set; }

        public int? File { get; set; }

        /// <summary>The HTTP status of the reply.</summary>
        public int Status { get; set; } = StatusCodes.Status200OK;

        /// <summary>ok, error-status (a failed statement), injected-error, slow, httpNNN, not-found, bad-request, unauthorized, exception.</summary>
        public string Outcome { get; set; } = "ok";

        public string? Detail { get; set; }

        /// <summary>rpc_slow: how long the reply waits after the call is journaled.</summary>
        public int ReplyDelayMs { get; set; }

        /// <summary>Adds the call to <paramref name="journal"/> as a <paramref name="kind"/> entry ("rpc", "rest") named <paramref name="method"/>.</summary>
        public void AddTo(RequestJournal journal, string kind, string method) =>
            journal.Add(kind, method, Status, Outcome, Session, Operation, Tag, StartRowOffset, MaxRows, MaxBytes, File, Detail);
    }
}
