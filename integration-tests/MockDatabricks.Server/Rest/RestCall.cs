using Microsoft.AspNetCore.Http;
using MockDatabricks.Server.State;

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

    /// <summary>One REST call as the journal records it (kind "rest"): the call's name, and what it touched.</summary>
    public sealed class RestCall(string method, string thriftMethod, HttpContext context, string baseUrl) : JournaledCall(context, baseUrl)
    {
        /// <summary>CreateSession, DeleteSession, ExecuteStatement, GetStatement, GetResultChunk, CancelStatement, CloseStatement.</summary>
        public string Method { get; } = method;

        /// <summary>The Thrift RPC doing the same job: a fault given for either name applies (OpenSession, FetchResults, ...).</summary>
        public string ThriftMethod { get; } = thriftMethod;
    }
}
