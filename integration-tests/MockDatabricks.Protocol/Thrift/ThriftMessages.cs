using System;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>
    /// The TCLIService message envelope: a call carries <c>&lt;Method&gt;_args</c> with the request in field 1;
    /// a reply carries <c>&lt;Method&gt;_result</c> with the response in field 0 (<c>success</c>); errors outside
    /// the response travel as an EXCEPTION message with a TApplicationException. Both directions live here so
    /// the server and the test client share one implementation.
    /// </summary>
    public static class ThriftMessages
    {
        public static byte[] EncodeCall(string method, int sequenceId, IThriftStruct request)
        {
            var writer = new ThriftWriter();
            writer.WriteMessageBegin(method, ThriftMessageType.Call, sequenceId);
            writer.WriteStructField(1, request);
            writer.WriteFieldStop();
            return writer.ToArray();
        }

        public static byte[] EncodeReply(string method, int sequenceId, IThriftStruct response)
        {
            var writer = new ThriftWriter(1024);
            writer.WriteMessageBegin(method, ThriftMessageType.Reply, sequenceId);
            writer.WriteStructField(0, response);
            writer.WriteFieldStop();
            return writer.ToArray();
        }

        public static byte[] EncodeException(string method, int sequenceId, ThriftApplicationException error)
        {
            var writer = new ThriftWriter();
            writer.WriteMessageBegin(method, ThriftMessageType.Exception, sequenceId);
            error.Write(writer);
            return writer.ToArray();
        }

        /// <summary>Server side: reads the request struct out of <c>&lt;Method&gt;_args</c> (field 1).</summary>
        public static T ReadCallArguments<T>(ThriftReader reader, string method, Func<ThriftReader, T> readRequest)
            where T : class
        {
            T? request = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id == 1 && type == ThriftType.Struct)
                {
                    request = readRequest(reader);
                }
                else
                {
                    reader.Skip(type);
                }
            }

            reader.ReadStructEnd();
            return request ?? throw new ThriftProtocolException($"{method}_args has no 'req' struct in field 1.");
        }

        /// <summary>Server side: reads a CALL message header (other message types are a protocol error).</summary>
        public static ThriftMessageHeader ReadCallHeader(ThriftReader reader)
        {
            ThriftMessageHeader header = reader.ReadMessageBegin();
            if (header.Type != ThriftMessageType.Call && header.Type != ThriftMessageType.Oneway)
            {
                throw new ThriftProtocolException($"Expected a CALL message, got {header.Type}.");
            }

            return header;
        }

        /// <summary>
        /// Client side: decodes a reply; throws <see cref="ThriftApplicationException"/> for EXCEPTION messages and
        /// for a result without <c>success</c> (the generated client's "unknown result").
        /// </summary>
        public static T DecodeReply<T>(ReadOnlyMemory<byte> body, string method, Func<ThriftReader, T> readResponse)
            where T : class
        {
            var reader = new ThriftReader(body);
            ThriftMessageHeader header = reader.ReadMessageBegin();
            if (header.Type == ThriftMessageType.Exception)
            {
                throw ThriftApplicationException.Read(reader);
            }

            if (header.Type != ThriftMessageType.Reply)
            {
                throw new ThriftProtocolException($"Expected a REPLY to {method}, got {header.Type}.");
            }

            T? response = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id == 0 && type == ThriftType.Struct)
                {
                    response = readResponse(reader);
                }
                else
                {
                    reader.Skip(type);
                }
            }

            reader.ReadStructEnd();
            return response ?? throw new ThriftApplicationException(
                ThriftApplicationErrorType.MissingResult, $"{method} failed: unknown result");
        }
    }
}
