using System;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>Malformed Thrift input: bad header, negative or oversized length, missing required field, too deep nesting.</summary>
    public sealed class ThriftProtocolException : Exception
    {
        public ThriftProtocolException(string message)
            : base(message)
        {
        }
    }
}
