using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Text;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>
    /// Thrift binary protocol writer (big-endian, strict message headers like the netstd client's default
    /// strictWrite=true) into a growable in-memory buffer. One message per HTTP body, so no framing.
    /// </summary>
    public sealed class ThriftWriter
    {
        private byte[] _buffer;
        private int _length;

        public ThriftWriter(int initialCapacity = 256)
        {
            _buffer = new byte[Math.Max(16, initialCapacity)];
        }

        public int Length => _length;

        public ReadOnlySpan<byte> WrittenSpan => _buffer.AsSpan(0, _length);

        public byte[] ToArray() => WrittenSpan.ToArray();

        public void WriteMessageBegin(string name, ThriftMessageType type, int sequenceId)
        {
            // Strict header: version 1 in the high 16 bits, message type in the low byte.
            WriteI32(unchecked((int)0x80010000) | (int)type);
            WriteString(name);
            WriteI32(sequenceId);
        }

        public void WriteFieldBegin(ThriftType type, short id)
        {
            WriteByte((byte)type);
            WriteI16(id);
        }

        public void WriteFieldStop() => WriteByte((byte)ThriftType.Stop);

        public void WriteListBegin(ThriftType elementType, int count)
        {
            WriteByte((byte)elementType);
            WriteI32(count);
        }

        public void WriteMapBegin(ThriftType keyType, ThriftType valueType, int count)
        {
            WriteByte((byte)keyType);
            WriteByte((byte)valueType);
            WriteI32(count);
        }

        public void WriteBool(bool value) => WriteByte(value ? (byte)1 : (byte)0);

        public void WriteByte(byte value)
        {
            Ensure(1);
            _buffer[_length++] = value;
        }

        public void WriteI16(short value)
        {
            Ensure(2);
            BinaryPrimitives.WriteInt16BigEndian(_buffer.AsSpan(_length), value);
            _length += 2;
        }

        public void WriteI32(int value)
        {
            Ensure(4);
            BinaryPrimitives.WriteInt32BigEndian(_buffer.AsSpan(_length), value);
            _length += 4;
        }

        public void WriteI64(long value)
        {
            Ensure(8);
            BinaryPrimitives.WriteInt64BigEndian(_buffer.AsSpan(_length), value);
            _length += 8;
        }

        public void WriteDouble(double value) => WriteI64(BitConverter.DoubleToInt64Bits(value));

        public void WriteString(string value)
        {
            int byteCount = Encoding.UTF8.GetByteCount(value);
            WriteI32(byteCount);
            Ensure(byteCount);
            _length += Encoding.UTF8.GetBytes(value, _buffer.AsSpan(_length));
        }

        public void WriteBinary(ReadOnlySpan<byte> value)
        {
            WriteI32(value.Length);
            Ensure(value.Length);
            value.CopyTo(_buffer.AsSpan(_length));
            _length += value.Length;
        }

        // Field helpers: keep struct Write methods one line per field.

        public void WriteBoolField(short id, bool value)
        {
            WriteFieldBegin(ThriftType.Bool, id);
            WriteBool(value);
        }

        public void WriteI16Field(short id, short value)
        {
            WriteFieldBegin(ThriftType.I16, id);
            WriteI16(value);
        }

        public void WriteI32Field(short id, int value)
        {
            WriteFieldBegin(ThriftType.I32, id);
            WriteI32(value);
        }

        public void WriteI64Field(short id, long value)
        {
            WriteFieldBegin(ThriftType.I64, id);
            WriteI64(value);
        }

        public void WriteDoubleField(short id, double value)
        {
            WriteFieldBegin(ThriftType.Double, id);
            WriteDouble(value);
        }

        public void WriteStringField(short id, string value)
        {
            WriteFieldBegin(ThriftType.String, id);
            WriteString(value);
        }

        public void WriteBinaryField(short id, ReadOnlySpan<byte> value)
        {
            WriteFieldBegin(ThriftType.String, id);
            WriteBinary(value);
        }

        public void WriteStructField(short id, IThriftStruct value)
        {
            WriteFieldBegin(ThriftType.Struct, id);
            value.Write(this);
        }

        public void WriteStructListField<T>(short id, IReadOnlyList<T> values)
            where T : IThriftStruct
        {
            WriteFieldBegin(ThriftType.List, id);
            WriteListBegin(ThriftType.Struct, values.Count);
            foreach (T value in values)
            {
                value.Write(this);
            }
        }

        public void WriteStringListField(short id, IReadOnlyList<string> values)
        {
            WriteFieldBegin(ThriftType.List, id);
            WriteListBegin(ThriftType.String, values.Count);
            foreach (string value in values)
            {
                WriteString(value);
            }
        }

        public void WriteStringMapField(short id, IReadOnlyDictionary<string, string> values)
        {
            WriteFieldBegin(ThriftType.Map, id);
            WriteMapBegin(ThriftType.String, ThriftType.String, values.Count);
            foreach (KeyValuePair<string, string> pair in values)
            {
                WriteString(pair.Key);
                WriteString(pair.Value);
            }
        }

        private void Ensure(int extra)
        {
            if (_length + extra <= _buffer.Length)
            {
                return;
            }

            long wanted = Math.Max((long)_buffer.Length * 2, (long)_length + extra);
            if (wanted > Array.MaxLength)
            {
                throw new InvalidOperationException("Thrift message larger than the maximum array size.");
            }

            Array.Resize(ref _buffer, (int)wanted);
        }
    }
}
