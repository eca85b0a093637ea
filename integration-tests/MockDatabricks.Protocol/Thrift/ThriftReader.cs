using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Text;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>
    /// Thrift binary protocol reader over one complete message in memory. Accepts strict (versioned) and
    /// non-strict message headers, checks every length against the remaining input so a hostile or truncated
    /// body fails with <see cref="ThriftProtocolException"/> instead of a huge allocation.
    /// </summary>
    public sealed class ThriftReader
    {
        private const int MaxDepth = 64;
        private readonly ReadOnlyMemory<byte> _data;
        private int _position;
        private int _depth;

        public ThriftReader(ReadOnlyMemory<byte> data)
        {
            _data = data;
        }

        public int Position => _position;

        public int Remaining => _data.Length - _position;

        public ThriftMessageHeader ReadMessageBegin()
        {
            int first = ReadI32();
            if (first < 0)
            {
                int version = first & unchecked((int)0xFFFF0000);
                if (version != unchecked((int)0x80010000))
                {
                    throw new ThriftProtocolException($"Bad Thrift message version 0x{first:X8}.");
                }

                var type = (ThriftMessageType)(first & 0xFF);
                string name = ReadString();
                int sequenceId = ReadI32();
                return new ThriftMessageHeader(name, CheckMessageType(type), sequenceId);
            }

            // Non-strict header: the first i32 is the name length.
            string oldName = ReadUtf8(first);
            var oldType = (ThriftMessageType)ReadByte();
            int oldSequenceId = ReadI32();
            return new ThriftMessageHeader(oldName, CheckMessageType(oldType), oldSequenceId);
        }

        public void ReadStructBegin()
        {
            if (++_depth > MaxDepth)
            {
                throw new ThriftProtocolException("Thrift structs nested too deeply.");
            }
        }

        public void ReadStructEnd() => _depth--;

        /// <summary>Reads a field header; false at STOP.</summary>
        public bool ReadFieldBegin(out ThriftType type, out short id)
        {
            type = (ThriftType)ReadByte();
            if (type == ThriftType.Stop)
            {
                id = 0;
                return false;
            }

            id = ReadI16();
            return true;
        }

        public (ThriftType ElementType, int Count) ReadListBegin()
        {
            var elementType = (ThriftType)ReadByte();
            int count = ReadI32();
            CheckCount(count, MinimumSize(elementType));
            return (elementType, count);
        }

        public (ThriftType KeyType, ThriftType ValueType, int Count) ReadMapBegin()
        {
            var keyType = (ThriftType)ReadByte();
            var valueType = (ThriftType)ReadByte();
            int count = ReadI32();
            CheckCount(count, MinimumSize(keyType) + MinimumSize(valueType));
            return (keyType, valueType, count);
        }

        public bool ReadBool() => ReadByte() != 0;

        public byte ReadByte()
        {
            Need(1);
            return _data.Span[_position++];
        }

        public short ReadI16()
        {
            Need(2);
            short value = BinaryPrimitives.ReadInt16BigEndian(_data.Span.Slice(_position));
            _position += 2;
            return value;
        }

        public int ReadI32()
        {
            Need(4);
            int value = BinaryPrimitives.ReadInt32BigEndian(_data.Span.Slice(_position));
            _position += 4;
            return value;
        }

        public long ReadI64()
        {
            Need(8);
            long value = BinaryPrimitives.ReadInt64BigEndian(_data.Span.Slice(_position));
            _position += 8;
            return value;
        }

        public double ReadDouble() => BitConverter.Int64BitsToDouble(ReadI64());

        public string ReadString() => ReadUtf8(ReadI32());

        public byte[] ReadBinary() => ReadBinaryMemory().ToArray();

        /// <summary>A slice of the input (no copy): valid as long as the input buffer is.</summary>
        public ReadOnlyMemory<byte> ReadBinaryMemory()
        {
            int length = ReadI32();
            if (length < 0)
            {
                throw new ThriftProtocolException($"Negative binary length {length}.");
            }

            Need(length);
            ReadOnlyMemory<byte> slice = _data.Slice(_position, length);
            _position += length;
            return slice;
        }

        public List<string> ReadStringList()
        {
            (ThriftType elementType, int count) = ReadListBegin();
            var list = new List<string>(count);
            for (int i = 0; i < count; i++)
            {
                if (elementType == ThriftType.String)
                {
                    list.Add(ReadString());
                }
                else
                {
                    Skip(elementType);
                }
            }

            return list;
        }

        public List<int> ReadI32List()
        {
            (ThriftType elementType, int count) = ReadListBegin();
            var list = new List<int>(count);
            for (int i = 0; i < count; i++)
            {
                if (elementType == ThriftType.I32)
                {
                    list.Add(ReadI32());
                }
                else
                {
                    Skip(elementType);
                }
            }

            return list;
        }

        public Dictionary<string, string> ReadStringMap()
        {
            (ThriftType keyType, ThriftType valueType, int count) = ReadMapBegin();
            var map = new Dictionary<string, string>(count, StringComparer.Ordinal);
            for (int i = 0; i < count; i++)
            {
                if (keyType == ThriftType.String && valueType == ThriftType.String)
                {
                    map[ReadString()] = ReadString();
                }
                else
                {
                    Skip(keyType);
                    Skip(valueType);
                }
            }

            return map;
        }

        public List<T> ReadStructList<T>(Func<ThriftReader, T> readElement)
        {
            (ThriftType elementType, int count) = ReadListBegin();
            var list = new List<T>(count);
            for (int i = 0; i < count; i++)
            {
                if (elementType == ThriftType.Struct)
                {
                    list.Add(readElement(this));
                }
                else
                {
                    Skip(elementType);
                }
            }

            return list;
        }

        /// <summary>Skips one value of the given wire type (unknown fields, fields with an unexpected type).</summary>
        public void Skip(ThriftType type)
        {
            switch (type)
            {
                case ThriftType.Bool:
                case ThriftType.Byte:
                    Advance(1);
                    break;
                case ThriftType.I16:
                    Advance(2);
                    break;
                case ThriftType.I32:
                    Advance(4);
                    break;
                case ThriftType.I64:
                case ThriftType.Double:
                    Advance(8);
                    break;
                case ThriftType.String:
                    ReadBinaryMemory();
                    break;
                case ThriftType.Struct:
                    ReadStructBegin();
                    while (ReadFieldBegin(out ThriftType fieldType, out _))
                    {
                        Skip(fieldType);
                    }

                    ReadStructEnd();
                    break;
                case ThriftType.Map:
                    {
                        (ThriftType keyType, ThriftType valueType, int count) = ReadMapBegin();
                        EnterContainer();
                        for (int i = 0; i < count; i++)
                        {
                            Skip(keyType);
                            Skip(valueType);
                        }

                        _depth--;
                        break;
                    }

                case ThriftType.Set:
                case ThriftType.List:
                    {
                        (ThriftType elementType, int count) = ReadListBegin();
                        EnterContainer();
                        for (int i = 0; i < count; i++)
                        {
                            Skip(elementType);
                        }

                        _depth--;
                        break;
                    }

                default:
                    throw new ThriftProtocolException($"Unknown Thrift wire type {(byte)type} at byte {_position}.");
            }
        }

        /// <summary>Throws the same kind of error the generated C# client throws for a missing required field.</summary>
        public static void Require(bool isSet, string structName, string fieldName)
        {
            if (!isSet)
            {
                throw new ThriftProtocolException($"Required field '{fieldName}' of {structName} was not found (or had the wrong wire type).");
            }
        }

        private void EnterContainer()
        {
            if (++_depth > MaxDepth)
            {
                throw new ThriftProtocolException("Thrift containers nested too deeply.");
            }
        }

        private static ThriftMessageType CheckMessageType(ThriftMessageType type)
        {
            if (type < ThriftMessageType.Call || type > ThriftMessageType.Oneway)
            {
                throw new ThriftProtocolException($"Invalid Thrift message type {(byte)type}.");
            }

            return type;
        }

        private static int MinimumSize(ThriftType type) => type switch
        {
            ThriftType.Bool or ThriftType.Byte => 1,
            ThriftType.I16 => 2,
            ThriftType.I32 => 4,
            ThriftType.I64 or ThriftType.Double => 8,
            ThriftType.String => 4,
            ThriftType.Struct => 1,
            ThriftType.Map => 6,
            ThriftType.Set or ThriftType.List => 5,
            _ => throw new ThriftProtocolException($"Unknown Thrift wire type {(byte)type}."),
        };

        private void CheckCount(int count, int minimumElementSize)
        {
            if (count < 0 || (long)count * minimumElementSize > Remaining)
            {
                throw new ThriftProtocolException($"Container size {count} does not fit in the remaining {Remaining} bytes.");
            }
        }

        private string ReadUtf8(int length)
        {
            if (length < 0)
            {
                throw new ThriftProtocolException($"Negative string length {length}.");
            }

            Need(length);
            string value = Encoding.UTF8.GetString(_data.Span.Slice(_position, length));
            _position += length;
            return value;
        }

        private void Advance(int count)
        {
            Need(count);
            _position += count;
        }

        private void Need(int count)
        {
            if (count > Remaining)
            {
                throw new ThriftProtocolException($"Unexpected end of Thrift data at byte {_position} (needed {count}, {Remaining} left).");
            }
        }
    }
}
