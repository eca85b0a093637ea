using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using Thrift.Protocol;
using Thrift.Protocol.Entities;
using Thrift.Protocol.Utilities;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>
    /// Field-level helpers over ApacheThrift's <see cref="TProtocol"/>, so each hand-written struct reads as a list
    /// of (id, type, value) lines like the IDL instead of begin/value/end triples.
    /// </summary>
    public static class ThriftFields
    {
        public static async Task WriteBoolFieldAsync(this TProtocol writer, short id, bool value, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.Bool, id), ct);
            await writer.WriteBoolAsync(value, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteI16FieldAsync(this TProtocol writer, short id, short value, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.I16, id), ct);
            await writer.WriteI16Async(value, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteI32FieldAsync(this TProtocol writer, short id, int value, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.I32, id), ct);
            await writer.WriteI32Async(value, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteI64FieldAsync(this TProtocol writer, short id, long value, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.I64, id), ct);
            await writer.WriteI64Async(value, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteDoubleFieldAsync(this TProtocol writer, short id, double value, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.Double, id), ct);
            await writer.WriteDoubleAsync(value, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteStringFieldAsync(this TProtocol writer, short id, string value, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.String, id), ct);
            await writer.WriteStringAsync(value, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        /// <summary>BINARY field; an inline batch that already is a whole array is written without a copy.</summary>
        public static async Task WriteBinaryFieldAsync(this TProtocol writer, short id, ReadOnlyMemory<byte> value, CancellationToken ct)
        {
            byte[] bytes = MemoryMarshal.TryGetArray(value, out ArraySegment<byte> segment) && segment.Offset == 0 && segment.Count == segment.Array!.Length
                ? segment.Array
                : value.ToArray();
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.String, id), ct);
            await writer.WriteBinaryAsync(bytes, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteStructFieldAsync(this TProtocol writer, short id, IThriftStruct value, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.Struct, id), ct);
            await writer.WriteStructAsync(value, ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteStructAsync(this TProtocol writer, IThriftStruct value, CancellationToken ct)
        {
            await writer.WriteStructBeginAsync(new TStruct(value.GetType().Name), ct);
            await value.WriteAsync(writer, ct);
            await writer.WriteStructEndAsync(ct);
        }

        public static async Task WriteStructListFieldAsync<T>(this TProtocol writer, short id, IReadOnlyList<T> values, CancellationToken ct)
            where T : IThriftStruct
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.List, id), ct);
            await writer.WriteListBeginAsync(new TList(TType.Struct, values.Count), ct);
            foreach (T value in values)
            {
                await writer.WriteStructAsync(value, ct);
            }

            await writer.WriteListEndAsync(ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteStringListFieldAsync(this TProtocol writer, short id, IReadOnlyList<string> values, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.List, id), ct);
            await writer.WriteListBeginAsync(new TList(TType.String, values.Count), ct);
            foreach (string value in values)
            {
                await writer.WriteStringAsync(value, ct);
            }

            await writer.WriteListEndAsync(ct);
            await writer.WriteFieldEndAsync(ct);
        }

        public static async Task WriteStringMapFieldAsync(this TProtocol writer, short id, IReadOnlyDictionary<string, string> values, CancellationToken ct)
        {
            await writer.WriteFieldBeginAsync(new TField(string.Empty, TType.Map, id), ct);
            await writer.WriteMapBeginAsync(new TMap(TType.String, TType.String, values.Count), ct);
            foreach (KeyValuePair<string, string> entry in values)
            {
                await writer.WriteStringAsync(entry.Key, ct);
                await writer.WriteStringAsync(entry.Value, ct);
            }

            await writer.WriteMapEndAsync(ct);
            await writer.WriteFieldEndAsync(ct);
        }

        /// <summary>
        /// The next field header of the struct being read, as <c>(More, Type, Id)</c>; <c>More</c> is false at STOP.
        /// (ReadFieldEnd is a no-op in the binary and compact protocols, so the loops do not call it.)
        /// </summary>
        public static async ValueTask<(bool More, TType Type, short Id)> ReadFieldHeaderAsync(this TProtocol reader, CancellationToken ct)
        {
            TField field = await reader.ReadFieldBeginAsync(ct);
            return (field.Type != TType.Stop, field.Type, field.ID);
        }

        public static Task SkipAsync(this TProtocol reader, TType type, CancellationToken ct) => TProtocolUtil.SkipAsync(reader, type, ct);

        public static async Task<List<T>> ReadStructListAsync<T>(this TProtocol reader, Func<TProtocol, CancellationToken, Task<T>> readElement, CancellationToken ct)
        {
            TList list = await reader.ReadListBeginAsync(ct);
            var values = new List<T>(Math.Min(list.Count, TProtocolUtil.MaxPreallocSize));
            for (int i = 0; i < list.Count; i++)
            {
                if (list.ElementType != TType.Struct)
                {
                    throw new TProtocolException(TProtocolException.INVALID_DATA, $"Expected a list of structs, got a list of {list.ElementType}.");
                }

                values.Add(await readElement(reader, ct));
            }

            await reader.ReadListEndAsync(ct);
            return values;
        }

        public static async Task<List<string>> ReadStringListAsync(this TProtocol reader, CancellationToken ct)
        {
            TList list = await reader.ReadListBeginAsync(ct);
            if (list.ElementType != TType.String && list.Count > 0)
            {
                throw new TProtocolException(TProtocolException.INVALID_DATA, $"Expected a list of strings, got a list of {list.ElementType}.");
            }

            var values = new List<string>(Math.Min(list.Count, TProtocolUtil.MaxPreallocSize));
            for (int i = 0; i < list.Count; i++)
            {
                values.Add(await reader.ReadStringAsync(ct));
            }

            await reader.ReadListEndAsync(ct);
            return values;
        }

        public static async Task<Dictionary<string, string>> ReadStringMapAsync(this TProtocol reader, CancellationToken ct)
        {
            TMap map = await reader.ReadMapBeginAsync(ct);
            if ((map.KeyType != TType.String || map.ValueType != TType.String) && map.Count > 0)
            {
                throw new TProtocolException(TProtocolException.INVALID_DATA, $"Expected a map<string,string>, got map<{map.KeyType},{map.ValueType}>.");
            }

            var values = new Dictionary<string, string>(Math.Min(map.Count, TProtocolUtil.MaxPreallocSize));
            for (int i = 0; i < map.Count; i++)
            {
                string key = await reader.ReadStringAsync(ct);
                values[key] = await reader.ReadStringAsync(ct);
            }

            await reader.ReadMapEndAsync(ct);
            return values;
        }

        /// <summary>A required field was absent: the same error class the generated code raises (INVALID_DATA), naming the field.</summary>
        public static void Require(bool isSet, string structName, string fieldName)
        {
            if (!isSet)
            {
                throw new TProtocolException(TProtocolException.INVALID_DATA, $"Required field '{fieldName}' of {structName} is not set.");
            }
        }
    }
}
