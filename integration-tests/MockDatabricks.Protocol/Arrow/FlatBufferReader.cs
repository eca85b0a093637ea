using System;
using System.Buffers.Binary;
using System.IO;
using System.Text;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>A read-only view of one flatbuffer table: vtable lookups by slot, with bounds checks.</summary>
    internal readonly struct FbTableView
    {
        private readonly ReadOnlyMemory<byte> _buffer;
        private readonly int _position;

        private FbTableView(ReadOnlyMemory<byte> buffer, int position)
        {
            _buffer = buffer;
            _position = position;
        }

        public static FbTableView Root(ReadOnlyMemory<byte> buffer)
        {
            uint offset = ReadUInt32(buffer.Span, 0);
            return new FbTableView(buffer, Checked(buffer, offset));
        }

        public bool Has(int slot) => FieldOffset(slot) != 0;

        public bool GetBool(int slot, bool defaultValue = false)
        {
            int offset = FieldOffset(slot);
            return offset == 0 ? defaultValue : Span[_position + offset] != 0;
        }

        public byte GetUByte(int slot, byte defaultValue = 0)
        {
            int offset = FieldOffset(slot);
            return offset == 0 ? defaultValue : Span[_position + offset];
        }

        public short GetShort(int slot, short defaultValue = 0)
        {
            int offset = FieldOffset(slot);
            return offset == 0 ? defaultValue : BinaryPrimitives.ReadInt16LittleEndian(Span.Slice(_position + offset));
        }

        public int GetInt(int slot, int defaultValue = 0)
        {
            int offset = FieldOffset(slot);
            return offset == 0 ? defaultValue : BinaryPrimitives.ReadInt32LittleEndian(Span.Slice(_position + offset));
        }

        public long GetLong(int slot, long defaultValue = 0)
        {
            int offset = FieldOffset(slot);
            return offset == 0 ? defaultValue : BinaryPrimitives.ReadInt64LittleEndian(Span.Slice(_position + offset));
        }

        public FbTableView? GetTable(int slot)
        {
            int target = Indirect(slot);
            return target < 0 ? null : new FbTableView(_buffer, target);
        }

        public string? GetString(int slot)
        {
            int target = Indirect(slot);
            if (target < 0)
            {
                return null;
            }

            int length = checked((int)ReadUInt32(Span, target));
            if (target + 4 + length > Span.Length)
            {
                throw new InvalidDataException("Flatbuffer string runs past the end of the buffer.");
            }

            return Encoding.UTF8.GetString(Span.Slice(target + 4, length));
        }

        /// <summary>Returns the vector's element count and the position of its first element.</summary>
        public (int Count, int Start) GetVector(int slot)
        {
            int target = Indirect(slot);
            if (target < 0)
            {
                return (0, 0);
            }

            int count = checked((int)ReadUInt32(Span, target));
            return (count, target + 4);
        }

        public FbTableView GetVectorTable(int elementPosition)
        {
            uint offset = ReadUInt32(Span, elementPosition);
            return new FbTableView(_buffer, Checked(_buffer, elementPosition + offset));
        }

        public long ReadLongAt(int position) => BinaryPrimitives.ReadInt64LittleEndian(Span.Slice(position, 8));

        private ReadOnlySpan<byte> Span => _buffer.Span;

        private int Indirect(int slot)
        {
            int offset = FieldOffset(slot);
            if (offset == 0)
            {
                return -1;
            }

            int fieldPosition = _position + offset;
            return Checked(_buffer, fieldPosition + ReadUInt32(Span, fieldPosition));
        }

        private int FieldOffset(int slot)
        {
            int vtable = _position - BinaryPrimitives.ReadInt32LittleEndian(Span.Slice(_position, 4));
            if (vtable < 0 || vtable + 4 > Span.Length)
            {
                throw new InvalidDataException("Flatbuffer vtable out of range.");
            }

            int vtableSize = BinaryPrimitives.ReadUInt16LittleEndian(Span.Slice(vtable));
            int entry = 4 + (2 * slot);
            if (entry + 2 > vtableSize)
            {
                return 0;
            }

            return BinaryPrimitives.ReadUInt16LittleEndian(Span.Slice(vtable + entry));
        }

        private static uint ReadUInt32(ReadOnlySpan<byte> span, int position)
        {
            if (position < 0 || position + 4 > span.Length)
            {
                throw new InvalidDataException("Flatbuffer offset out of range.");
            }

            return BinaryPrimitives.ReadUInt32LittleEndian(span.Slice(position));
        }

        private static int Checked(ReadOnlyMemory<byte> buffer, long position)
        {
            if (position < 0 || position + 4 > buffer.Length)
            {
                throw new InvalidDataException("Flatbuffer offset out of range.");
            }

            return (int)position;
        }
    }
}
