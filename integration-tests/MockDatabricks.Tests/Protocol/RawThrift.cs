using Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;
using Thrift.Transport.Client;

namespace MockDatabricks.Tests.Protocol
{
    /// <summary>Hand-built Thrift bytes for tests that need a message the typed code would never write.</summary>
    internal static class RawThrift
    {
        public static async Task<byte[]> EncodeAsync(Func<TProtocol, CancellationToken, Task> write, bool strictWrite = true)
        {
            using var transport = new TMemoryBufferTransport(new TConfiguration(), 256);
            using var writer = new TBinaryProtocol(transport, strictRead: false, strictWrite: strictWrite);
            await write(writer, CancellationToken.None);
            return transport.GetBuffer();
        }

        public static Task WriteI32FieldAsync(this TProtocol writer, short id, int value, CancellationToken ct) =>
            WriteFieldAsync(writer, id, TType.I32, () => writer.WriteI32Async(value, ct), ct);

        public static Task WriteI64FieldAsync(this TProtocol writer, short id, long value, CancellationToken ct) =>
            WriteFieldAsync(writer, id, TType.I64, () => writer.WriteI64Async(value, ct), ct);

        public static Task WriteDoubleFieldAsync(this TProtocol writer, short id, double value, CancellationToken ct) =>
            WriteFieldAsync(writer, id, TType.Double, () => writer.WriteDoubleAsync(value, ct), ct);

        public static Task WriteStringFieldAsync(this TProtocol writer, short id, string value, CancellationToken ct) =>
            WriteFieldAsync(writer, id, TType.String, () => writer.WriteStringAsync(value, ct), ct);

        public static Task WriteStructFieldAsync(this TProtocol writer, short id, TBase value, CancellationToken ct) =>
            WriteFieldAsync(writer, id, TType.Struct, () => value.WriteAsync(writer, ct), ct);

        public static Task WriteStringListFieldAsync(this TProtocol writer, short id, IReadOnlyList<string> values, CancellationToken ct) =>
            WriteFieldAsync(writer, id, TType.List, async () =>
            {
                await writer.WriteListBeginAsync(new TList(TType.String, values.Count), ct);
                foreach (string value in values)
                {
                    await writer.WriteStringAsync(value, ct);
                }
            }, ct);

        public static Task WriteStringMapFieldAsync(this TProtocol writer, short id, IReadOnlyDictionary<string, string> values, CancellationToken ct) =>
            WriteFieldAsync(writer, id, TType.Map, async () =>
            {
                await writer.WriteMapBeginAsync(new TMap(TType.String, TType.String, values.Count), ct);
                foreach (KeyValuePair<string, string> pair in values)
                {
                    await writer.WriteStringAsync(pair.Key, ct);
                    await writer.WriteStringAsync(pair.Value, ct);
                }
            }, ct);

        private static async Task WriteFieldAsync(TProtocol writer, short id, TType type, Func<Task> writeValue, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, type, id), ct);
            await writeValue();
        }
    }
}
