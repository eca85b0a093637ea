using System;
using System.Buffers.Binary;
using System.Text;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>
    /// Accumulates one column's Arrow buffers: validity bitmap, values (fixed width or bit-packed booleans),
    /// and for Utf8 the int32 offsets and the character data.
    /// </summary>
    public sealed class ArrowColumnBuilder
    {
        private readonly ByteBuilder _validity;
        private readonly ByteBuilder _values;
        private readonly ByteBuilder? _offsets;
        private readonly ByteBuilder? _data;

        public ArrowColumnBuilder(ArrowField field, int capacity = 1024)
        {
            Field = field;
            _validity = new ByteBuilder((capacity / 8) + 8);
            int width = field.Type.ByteWidth;
            _values = new ByteBuilder(width == 0 ? (capacity / 8) + 8 : capacity * width);
            if (field.Type.Id == ArrowTypeId.Utf8)
            {
                _offsets = new ByteBuilder((capacity + 1) * 4);
                _offsets.AppendInt32(0);
                _data = new ByteBuilder(capacity * 16);
            }
        }

        public ArrowField Field { get; }

        public int Length { get; private set; }

        public int NullCount { get; private set; }

        internal ReadOnlySpan<byte> Validity => _validity.WrittenSpan;

        internal ReadOnlySpan<byte> Values => _offsets != null ? _offsets.WrittenSpan : _values.WrittenSpan;

        internal ReadOnlySpan<byte> Data => _data != null ? _data.WrittenSpan : ReadOnlySpan<byte>.Empty;

        public void AppendNull()
        {
            if (!Field.Nullable)
            {
                throw new InvalidOperationException($"Column {Field.Name} is not nullable.");
            }

            SetValidity(false);
            NullCount++;
            switch (Field.Type.Id)
            {
                case ArrowTypeId.Utf8:
                    _offsets!.AppendInt32(_data!.Length);
                    break;
                case ArrowTypeId.Bool:
                    EnsureBitByte();
                    break;
                default:
                    _values.Append(Field.Type.ByteWidth);
                    break;
            }

            Length++;
        }

        public void AppendInt32(int value)
        {
            Expect(ArrowTypeId.Int32, ArrowTypeId.Date32);
            BinaryPrimitives.WriteInt32LittleEndian(_values.Append(4), value);
            Valid();
        }

        public void AppendInt64(long value)
        {
            Expect(ArrowTypeId.Int64, ArrowTypeId.Timestamp);
            BinaryPrimitives.WriteInt64LittleEndian(_values.Append(8), value);
            Valid();
        }

        public void AppendDouble(double value)
        {
            Expect(ArrowTypeId.Float64, ArrowTypeId.Float64);
            BinaryPrimitives.WriteDoubleLittleEndian(_values.Append(8), value);
            Valid();
        }

        public void AppendDecimal(decimal value)
        {
            Expect(ArrowTypeId.Decimal128, ArrowTypeId.Decimal128);
            AppendDecimalUnscaled(DecimalConversion.ToUnscaled(value, Field.Type.Scale));
        }

        /// <summary>Appends a Decimal128 given as its unscaled value at the column's scale.</summary>
        public void AppendDecimalUnscaled(Int128 unscaled)
        {
            Expect(ArrowTypeId.Decimal128, ArrowTypeId.Decimal128);
            Span<byte> target = _values.Append(16);
            BinaryPrimitives.WriteUInt64LittleEndian(target, (ulong)unscaled);
            BinaryPrimitives.WriteUInt64LittleEndian(target.Slice(8), (ulong)(unscaled >> 64));
            Valid();
        }

        public void AppendString(string value)
        {
            Expect(ArrowTypeId.Utf8, ArrowTypeId.Utf8);
            int byteCount = Encoding.UTF8.GetByteCount(value);
            Encoding.UTF8.GetBytes(value, _data!.Append(byteCount));
            _offsets!.AppendInt32(_data.Length);
            Valid();
        }

        public void AppendUtf8(ReadOnlySpan<byte> value)
        {
            Expect(ArrowTypeId.Utf8, ArrowTypeId.Utf8);
            _data!.Append(value);
            _offsets!.AppendInt32(_data.Length);
            Valid();
        }

        public void AppendTimestamp(DateTimeOffset value) => AppendInt64((value.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) / 10);

        public void AppendDate(DateOnly value) => AppendInt32(value.DayNumber - DateOnly.FromDateTime(DateTime.UnixEpoch).DayNumber);

        public void AppendBool(bool value)
        {
            Expect(ArrowTypeId.Bool, ArrowTypeId.Bool);
            EnsureBitByte();
            if (value)
            {
                _values.WrittenSpan[Length >> 3] |= (byte)(1 << (Length & 7));
            }

            Valid();
        }

        /// <summary>Appends a boxed value of the column's CLR type (see <see cref="ArrowColumnType.ClrType"/>), or null.</summary>
        public void AppendValue(object? value)
        {
            switch (value)
            {
                case null:
                    AppendNull();
                    break;
                case int i when Field.Type.Id == ArrowTypeId.Int32:
                    AppendInt32(i);
                    break;
                case long l:
                    AppendInt64(l);
                    break;
                case double d:
                    AppendDouble(d);
                    break;
                case decimal m:
                    AppendDecimal(m);
                    break;
                case string s:
                    AppendString(s);
                    break;
                case DateTimeOffset t:
                    AppendTimestamp(t);
                    break;
                case DateOnly date:
                    AppendDate(date);
                    break;
                case bool b:
                    AppendBool(b);
                    break;
                default:
                    throw new ArgumentException($"Cannot append {value.GetType().Name} to {Field.Type} column {Field.Name}.");
            }
        }

        private void Valid()
        {
            SetValidity(true);
            Length++;
        }

        private void SetValidity(bool valid)
        {
            if ((Length & 7) == 0)
            {
                _validity.AppendByte(0);
            }

            if (valid)
            {
                _validity.WrittenSpan[Length >> 3] |= (byte)(1 << (Length & 7));
            }
        }

        private void EnsureBitByte()
        {
            if ((Length & 7) == 0)
            {
                _values.AppendByte(0);
            }
        }

        private void Expect(ArrowTypeId first, ArrowTypeId second)
        {
            if (Field.Type.Id != first && Field.Type.Id != second)
            {
                throw new InvalidOperationException($"Column {Field.Name} is {Field.Type}, not {first}.");
            }
        }
    }
}
