using System;
using System.Buffers.Binary;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>A growable little-endian byte buffer (Arrow and LZ4 are little-endian; Thrift has its own writer).</summary>
    public sealed class ByteBuilder
    {
        private byte[] _buffer;

        public ByteBuilder(int initialCapacity = 1024)
        {
            _buffer = new byte[Math.Max(16, initialCapacity)];
        }

        public int Length { get; private set; }

        public Span<byte> WrittenSpan => _buffer.AsSpan(0, Length);

        public ReadOnlyMemory<byte> WrittenMemory => _buffer.AsMemory(0, Length);

        public byte[] ToArray() => WrittenSpan.ToArray();

        public void Clear() => Length = 0;

        /// <summary>Reserves <paramref name="count"/> bytes (zeroed) and returns them for the caller to fill.</summary>
        public Span<byte> Append(int count)
        {
            Ensure(count);
            Span<byte> span = _buffer.AsSpan(Length, count);
            span.Clear();
            Length += count;
            return span;
        }

        /// <summary>Returns writable space of at least <paramref name="count"/> bytes without committing it; call <see cref="Advance"/>.</summary>
        public Span<byte> GetSpan(int count)
        {
            Ensure(count);
            return _buffer.AsSpan(Length);
        }

        public void Advance(int count) => Length += count;

        public void Append(ReadOnlySpan<byte> bytes)
        {
            Ensure(bytes.Length);
            bytes.CopyTo(_buffer.AsSpan(Length));
            Length += bytes.Length;
        }

        public void AppendByte(byte value)
        {
            Ensure(1);
            _buffer[Length++] = value;
        }

        public void AppendUInt16(ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(Append(2), value);

        public void AppendInt32(int value) => BinaryPrimitives.WriteInt32LittleEndian(Append(4), value);

        public void AppendUInt32(uint value) => BinaryPrimitives.WriteUInt32LittleEndian(Append(4), value);

        public void AppendInt64(long value) => BinaryPrimitives.WriteInt64LittleEndian(Append(8), value);

        public void PadTo(int alignment)
        {
            int remainder = Length % alignment;
            if (remainder != 0)
            {
                Append(alignment - remainder);
            }
        }

        public void WriteInt32At(int position, int value) => BinaryPrimitives.WriteInt32LittleEndian(_buffer.AsSpan(position), value);

        public void WriteUInt32At(int position, uint value) => BinaryPrimitives.WriteUInt32LittleEndian(_buffer.AsSpan(position), value);

        public void WriteUInt16At(int position, ushort value) => BinaryPrimitives.WriteUInt16LittleEndian(_buffer.AsSpan(position), value);

        private void Ensure(int extra)
        {
            if (Length + extra <= _buffer.Length)
            {
                return;
            }

            long wanted = Math.Max((long)_buffer.Length * 2, (long)Length + extra);
            if (wanted > Array.MaxLength)
            {
                wanted = Array.MaxLength;
                if (Length + extra > wanted)
                {
                    throw new InvalidOperationException("Buffer larger than the maximum array size.");
                }
            }

            Array.Resize(ref _buffer, (int)wanted);
        }
    }
}
