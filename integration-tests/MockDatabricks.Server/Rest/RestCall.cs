using System;
using Microsoft.AspNetCore.Http;

namespace MockDatabricks.Server.Rest
{
    /// <summary>A non-2xx answer: HTTP status and the API's error body {error_code, message}.</summary>
    public sealed class RestErrorException(int status, string errorCode, string message, string outcome) : Exception(message)
    {
        public int Status { get; } = status;

        public string ErrorCode { get; } = errorCode;

        /// <summary>The journal's outcome for this answer (not-found, bad-request, httpNNN, ...).</summary>
        public string Outcome { get; } = outcome;

        public static RestErrorException NotFound(string message) => new RestErrorException(StatusCodes.Status404NotFound, "RESOURCE_DOES_NOT_EXIST", message, "not-found");

        public static RestErrorException BadRequest(string errorCode, string message) => new RestErrorException(StatusCodes.Status400BadRequest, errorCode, message, "bad-request");
    }

    /// <summary>
    /// One REST call as the journal records it (kind "rest"): the call's name, and what it touched. The fields mean
    /// what they mean for Thrift entries: session and operation are the session_id and statement_id, maxRows/maxBytes the
    /// request's row_limit/byte_limit, file and startRowOffset the chunk index and its first row.
    /// </summary>
    public sealed class RestCall(string method, string thriftMethod, HttpContext context, string baseUrl)
    {
        /// <summary>CreateSession, DeleteSession, ExecuteStatement, GetStatement, GetResultChunk, CancelStatement, CloseStatement.</summary>
        public string Method { get; } = method;

        /// <summary>The Thrift RPC doing the same job: a fault given for either name applies (OpenSession, FetchResults, ...).</summary>
        public string ThriftMethod { get; } = thriftMethod;

        public HttpContext Context { get; } = context;

        /// <summary>Where clients reach this server, for CloudFetch links (the Thrift endpoint's rule).</summary>
        public string BaseUrl { get; } = baseUrl;

        public string? Session { get; set; }

        public string? Operation { get; set; }

        public string? Tag { get; set; }

        public long? StartRowOffset { get; set; }

        public long? MaxRows { get; set; }

        public long? MaxBytes { get; set; }

        public int? File { get; set; }

        public int Status { get; set; } = StatusCodes.Status200OK;

        /// <summary>ok, error-status (a FAILED statement), injected-error, slow, httpNNN, not-found, bad-request, unauthorized.</summary>
        public string Outcome { get; set; } = "ok";

        public string? Detail { get; set; }

        /// <summary>rpc_slow: how long the reply waits after the call is journaled.</summary>
        public int ReplyDelayMs { get; set; }
    }
}
