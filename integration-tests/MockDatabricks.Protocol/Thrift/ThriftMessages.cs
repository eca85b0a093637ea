using System;
using System.Threading;
using System.Threading.Tasks;
using Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;
using Thrift.Protocol.Utilities;
using Thrift.Transport.Client;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>
    /// The TCLIService message envelope over ApacheThrift's binary protocol: a call carries <c>&lt;Method&gt;_args</c>
    /// with the request in field 1; a reply carries <c>&lt;Method&gt;_result</c> with the response in field 0
    /// (<c>success</c>); errors outside the response travel as an EXCEPTION message with a
    /// <see cref="TApplicationException"/>. Both directions live here so the server and the test client share them.
    /// </summary>
    public static class ThriftMessages
    {
        public static Task<byte[]> EncodeCallAsync(string method, int sequenceId, TBase request, CancellationToken ct = default) =>
            EncodeAsync(new TMessage(method, TMessageType.Call, sequenceId), (protocol, token) => WriteWrapperAsync(protocol, method + "_args", 1, request, token), ct);

        public static Task<byte[]> EncodeReplyAsync(string method, int sequenceId, TBase response, CancellationToken ct = default) =>
            EncodeAsync(new TMessage(method, TMessageType.Reply, sequenceId), (protocol, token) => WriteWrapperAsync(protocol, method + "_result", 0, response, token), ct);

        public static Task<byte[]> EncodeExceptionAsync(string method, int sequenceId, TApplicationException error, CancellationToken ct = default) =>
            EncodeAsync(new TMessage(method, TMessageType.Exception, sequenceId), error.WriteAsync, ct);

        /// <summary>A binary protocol reading one complete message held in memory.</summary>
        public static TBinaryProtocol OpenReader(byte[] body) => new TBinaryProtocol(new TMemoryBufferTransport(body, new TConfiguration()));

        /// <summary>Server side: reads a CALL message header (other message types are a protocol error).</summary>
        public static async Task<TMessage> ReadCallHeaderAsync(TProtocol reader, CancellationToken ct = default)
        {
            TMessage header = await reader.ReadMessageBeginAsync(ct);
            if (header.Type != TMessageType.Call && header.Type != TMessageType.Oneway)
            {
                throw new TProtocolException(TProtocolException.INVALID_DATA, $"Expected a CALL message, got {header.Type}.");
            }

            return header;
        }

        /// <summary>Server side: reads the request struct out of <c>&lt;Method&gt;_args</c> (field 1).</summary>
        public static async Task<T> ReadCallArgumentsAsync<T>(TProtocol reader, string method, CancellationToken ct = default)
            where T : class, TBase, new()
        {
            T? request = await ReadWrapperAsync<T>(reader, 1, ct);
            return request ?? throw new TProtocolException(TProtocolException.INVALID_DATA, $"{method}_args has no 'req' struct in field 1.");
        }

        /// <summary>
        /// Client side: decodes a reply; throws <see cref="TApplicationException"/> for EXCEPTION messages and for a
        /// result without <c>success</c> (what the generated client throws: MissingResult, "unknown result").
        /// </summary>
        public static async Task<T> DecodeReplyAsync<T>(byte[] body, string method, CancellationToken ct = default)
            where T : class, TBase, new()
        {
            using TBinaryProtocol reader = OpenReader(body);
            TMessage header = await reader.ReadMessageBeginAsync(ct);
            if (header.Type == TMessageType.Exception)
            {
                throw await TApplicationException.ReadAsync(reader, ct);
            }

            if (header.Type != TMessageType.Reply)
            {
                throw new TProtocolException(TProtocolException.INVALID_DATA, $"Expected a REPLY to {method}, got {header.Type}.");
            }

            T? response = await ReadWrapperAsync<T>(reader, 0, ct);
            return response ?? throw new TApplicationException(TApplicationException.ExceptionType.MissingResult, $"{method} failed: unknown result");
        }

        private static async Task<byte[]> EncodeAsync(TMessage header, Func<TProtocol, CancellationToken, Task> writeBody, CancellationToken ct)
        {
            using var transport = new TMemoryBufferTransport(new TConfiguration(), 1024);
            using var writer = new TBinaryProtocol(transport);
            await writer.WriteMessageBeginAsync(header, ct);
            await writeBody(writer, ct);
            await writer.WriteMessageEndAsync(ct);
            return transport.GetBuffer();
        }

        private static async Task WriteWrapperAsync(TProtocol writer, string wrapperName, short fieldId, TBase value, CancellationToken ct)
        {
            await writer.WriteStructBeginAsync(new TStruct(wrapperName), ct);
            await writer.WriteFieldBeginAsync(new TField("success", TType.Struct, fieldId), ct);
            await value.WriteAsync(writer, ct);
            await writer.WriteFieldEndAsync(ct);
            await writer.WriteFieldStopAsync(ct);
            await writer.WriteStructEndAsync(ct);
        }

        private static async Task<T?> ReadWrapperAsync<T>(TProtocol reader, short fieldId, CancellationToken ct)
            where T : class, TBase, new()
        {
            T? value = null;
            await reader.ReadStructBeginAsync(ct);
            for (TField field = await reader.ReadFieldBeginAsync(ct); field.Type != TType.Stop; field = await reader.ReadFieldBeginAsync(ct))
            {
                if (field.ID == fieldId && field.Type == TType.Struct)
                {
                    value = new T();
                    await value.ReadAsync(reader, ct);
                }
                else
                {
                    await TProtocolUtil.SkipAsync(reader, field.Type, ct);
                }

                await reader.ReadFieldEndAsync(ct);
            }

            await reader.ReadStructEndAsync(ct);
            await reader.ReadMessageEndAsync(ct);
            return value;
        }
    }
}
