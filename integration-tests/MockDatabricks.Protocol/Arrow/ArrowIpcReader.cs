using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Text;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>One decoded column: its field and the raw Arrow buffers, with typed value access.</summary>
    public sealed class ArrowColumnData
    {
        private static readonly int s_epochDay = DateOnly.FromDateTime(DateTime.UnixEpoch).DayNumber;
        private readonly ReadOnlyMemory<byte> _validity;
        private readonly ReadOnlyMemory<byte> _values;
        private readonly ReadOnlyMemory<byte> _data;

        internal ArrowColumnData(ArrowField field, int length, int nullCount, ReadOnlyMemory<byte> validity, ReadOnlyMemory<byte> values, ReadOnlyMemory<byte> data)
        {
            Field = field;
            Length = length;
            NullCount = nullCount;
            _validity = validity;
            _values = values;
            _data = data;
        }

        public ArrowField Field { get; }

        public int Length { get; }

        public int NullCount { get; }

        public bool IsNull(int row)
        {
            CheckRow(row);
            return NullCount != 0 && (_validity.Span[row >> 3] & (1 << (row & 7))) == 0;
        }

        /// <summary>The value as the CLR type of <see cref="ArrowColumnType.ClrType"/>, or null.</summary>
        public object? GetValue(int row)
        {
            if (IsNull(row))
            {
                return null;
            }

            ReadOnlySpan<byte> values = _values.Span;
            switch (Field.Type.Id)
            {
                case ArrowTypeId.Int32:
                    return BinaryPrimitives.ReadInt32LittleEndian(values.Slice(row * 4));
                case ArrowTypeId.Int64:
                    return BinaryPrimitives.ReadInt64LittleEndian(values.Slice(row * 8));
                case ArrowTypeId.Float64:
                    return BinaryPrimitives.ReadDoubleLittleEndian(values.Slice(row * 8));
                case ArrowTypeId.Decimal128:
                    {
                        ulong low = BinaryPrimitives.ReadUInt64LittleEndian(values.Slice(row * 16));
                        ulong high = BinaryPrimitives.ReadUInt64LittleEndian(values.Slice((row * 16) + 8));
                        return DecimalConversion.FromUnscaled((Int128)(((UInt128)high << 64) | low), Field.Type.Scale);
                    }

                case ArrowTypeId.Utf8:
                    {
                        int start = BinaryPrimitives.ReadInt32LittleEndian(values.Slice(row * 4));
                        int end = BinaryPrimitives.ReadInt32LittleEndian(values.Slice((row * 4) + 4));
                        return Encoding.UTF8.GetString(_data.Span.Slice(start, end - start));
                    }

                case ArrowTypeId.Timestamp:
                    {
                        long micros = BinaryPrimitives.ReadInt64LittleEndian(values.Slice(row * 8));
                        return new DateTimeOffset(DateTimeOffset.UnixEpoch.Ticks + (micros * 10), TimeSpan.Zero);
                    }

                case ArrowTypeId.Date32:
                    return DateOnly.FromDayNumber(s_epochDay + BinaryPrimitives.ReadInt32LittleEndian(values.Slice(row * 4)));
                default:
                    return (values[row >> 3] & (1 << (row & 7))) != 0;
            }
        }

        private void CheckRow(int row)
        {
            if ((uint)row >= (uint)Length)
            {
                throw new ArgumentOutOfRangeException(nameof(row), $"Row {row} outside 0..{Length - 1}.");
            }
        }
    }

    /// <summary>A decoded record batch.</summary>
    public sealed class ArrowRecordBatchData
    {
        internal ArrowRecordBatchData(ArrowSchema schema, int length, IReadOnlyList<ArrowColumnData> columns)
        {
            Schema = schema;
            Length = length;
            Columns = columns;
        }

        public ArrowSchema Schema { get; }

        public int Length { get; }

        public IReadOnlyList<ArrowColumnData> Columns { get; }
    }

    /// <summary>A decoded IPC stream: its schema and every record batch up to EOS or the end of the input.</summary>
    public sealed record ArrowStreamContents(ArrowSchema Schema, IReadOnlyList<ArrowRecordBatchData> Batches);

    /// <summary>
    /// Arrow IPC reader for exactly the types <see cref="ArrowIpcWriter"/> writes. Strict about structure (it is
    /// the tests' oracle): unknown types, compressed bodies, and buffers outside the body are errors.
    /// </summary>
    public static class ArrowIpcReader
    {
        public static ArrowStreamContents ReadStream(ReadOnlyMemory<byte> data)
        {
            int position = 0;
            ArrowSchema? schema = null;
            var batches = new List<ArrowRecordBatchData>();
            while (TryReadMessage(data, ref position, out FbTableView message, out ReadOnlyMemory<byte> body))
            {
                byte headerType = message.GetUByte(1);
                if (headerType == 1)
                {
                    if (schema != null)
                    {
                        throw new InvalidDataException("A second Schema message in one stream.");
                    }

                    schema = ParseSchema(message.GetTable(2) ?? throw new InvalidDataException("Schema message without header."));
                }
                else if (headerType == 3)
                {
                    if (schema == null)
                    {
                        throw new InvalidDataException("RecordBatch before Schema in an IPC stream.");
                    }

                    batches.Add(ParseRecordBatch(schema, message, body));
                }
                else
                {
                    throw new InvalidDataException($"Unsupported IPC message type {headerType}.");
                }
            }

            return new ArrowStreamContents(schema ?? throw new InvalidDataException("IPC stream without a Schema message."), batches);
        }

        /// <summary>Reads the first message, which must be a Schema (the arrowSchema metadata field).</summary>
        public static ArrowSchema ReadSchema(ReadOnlyMemory<byte> data)
        {
            int position = 0;
            if (!TryReadMessage(data, ref position, out FbTableView message, out _) || message.GetUByte(1) != 1)
            {
                throw new InvalidDataException("arrowSchema bytes do not start with a Schema message.");
            }

            return ParseSchema(message.GetTable(2) ?? throw new InvalidDataException("Schema message without header."));
        }

        /// <summary>Decodes an inline TSparkArrowBatch: the first RecordBatch message (a leading Schema is skipped), against the metadata schema.</summary>
        public static ArrowRecordBatchData ReadRecordBatch(ReadOnlyMemory<byte> data, ArrowSchema schema)
        {
            int position = 0;
            while (TryReadMessage(data, ref position, out FbTableView message, out ReadOnlyMemory<byte> body))
            {
                byte headerType = message.GetUByte(1);
                if (headerType == 3)
                {
                    return ParseRecordBatch(schema, message, body);
                }

                if (headerType != 1)
                {
                    throw new InvalidDataException($"Unsupported IPC message type {headerType}.");
                }
            }

            throw new InvalidDataException("No RecordBatch message in the inline batch.");
        }

        private static bool TryReadMessage(ReadOnlyMemory<byte> data, ref int position, out FbTableView message, out ReadOnlyMemory<byte> body)
        {
            message = default;
            body = default;
            ReadOnlySpan<byte> span = data.Span;
            if (position + 4 > span.Length)
            {
                if (position == span.Length)
                {
                    return false;
                }

                throw new InvalidDataException($"Truncated IPC message prefix at byte {position}.");
            }

            int length = BinaryPrimitives.ReadInt32LittleEndian(span.Slice(position));
            position += 4;
            if (length == -1)
            {
                if (position + 4 > span.Length)
                {
                    throw new InvalidDataException($"Continuation marker without a length at byte {position}.");
                }

                length = BinaryPrimitives.ReadInt32LittleEndian(span.Slice(position));
                position += 4;
            }

            if (length == 0)
            {
                return false; // end-of-stream marker
            }

            if (length < 0 || position + length > span.Length)
            {
                throw new InvalidDataException($"IPC metadata length {length} runs past the end of the data.");
            }

            message = FbTableView.Root(data.Slice(position, length));
            position += length;
            short version = message.GetShort(0);
            if (version != 4)
            {
                throw new InvalidDataException($"Unexpected IPC metadata version {version} (expected V5 = 4).");
            }

            long bodyLength = message.GetLong(3);
            if (bodyLength < 0 || position + bodyLength > span.Length)
            {
                throw new InvalidDataException($"IPC body length {bodyLength} runs past the end of the data.");
            }

            body = data.Slice(position, (int)bodyLength);
            position += (int)bodyLength;
            return true;
        }

        private static ArrowSchema ParseSchema(FbTableView schema)
        {
            (int count, int start) = schema.GetVector(1);
            var fields = new List<ArrowField>(count);
            for (int i = 0; i < count; i++)
            {
                FbTableView field = schema.GetVectorTable(start + (4 * i));
                string name = field.GetString(0) ?? string.Empty;
                bool nullable = field.GetBool(1);
                byte typeType = field.GetUByte(2);
                FbTableView type = field.GetTable(3) ?? throw new InvalidDataException($"Field {name} has no type table.");
                fields.Add(new ArrowField(name, ParseType(name, typeType, type), nullable));
            }

            return new ArrowSchema(fields);
        }

        private static ArrowColumnType ParseType(string name, byte typeType, FbTableView type)
        {
            switch (typeType)
            {
                case 2:
                    int bitWidth = type.GetInt(0);
                    if (!type.GetBool(1) || (bitWidth != 32 && bitWidth != 64))
                    {
                        throw new InvalidDataException($"Field {name}: only signed int32/int64 are supported.");
                    }

                    return bitWidth == 32 ? ArrowColumnType.Int32 : ArrowColumnType.Int64;
                case 3:
                    return type.GetShort(0) == 2 ? ArrowColumnType.Float64 : throw new InvalidDataException($"Field {name}: only double precision floats are supported.");
                case 5:
                    return ArrowColumnType.Utf8;
                case 6:
                    return ArrowColumnType.Bool;
                case 7:
                    if (type.GetInt(2, 128) != 128)
                    {
                        throw new InvalidDataException($"Field {name}: only Decimal128 is supported.");
                    }

                    return ArrowColumnType.Decimal(type.GetInt(0), type.GetInt(1));
                case 8:
                    return type.GetShort(0, 1) == 0 ? ArrowColumnType.Date32 : throw new InvalidDataException($"Field {name}: only Date32 (DAY) is supported.");
                case 10:
                    return type.GetShort(0) == 2
                        ? new ArrowColumnType(ArrowTypeId.Timestamp, TimeZone: type.GetString(1))
                        : throw new InvalidDataException($"Field {name}: only microsecond timestamps are supported.");
                default:
                    throw new InvalidDataException($"Field {name}: unsupported Arrow type id {typeType}.");
            }
        }

        private static ArrowRecordBatchData ParseRecordBatch(ArrowSchema schema, FbTableView message, ReadOnlyMemory<byte> body)
        {
            FbTableView batch = message.GetTable(2) ?? throw new InvalidDataException("RecordBatch message without header.");
            if (batch.Has(3))
            {
                throw new InvalidDataException("Compressed IPC record batch bodies are not supported (nor by the driver).");
            }

            long length = batch.GetLong(0);
            (int nodeCount, int nodeStart) = batch.GetVector(1);
            (int bufferCount, int bufferStart) = batch.GetVector(2);
            if (nodeCount != schema.Fields.Count)
            {
                throw new InvalidDataException($"RecordBatch has {nodeCount} field nodes, schema has {schema.Fields.Count} fields.");
            }

            int bufferIndex = 0;
            ReadOnlyMemory<byte> NextBuffer()
            {
                if (bufferIndex >= bufferCount)
                {
                    throw new InvalidDataException("RecordBatch has fewer buffers than its schema needs.");
                }

                long offset = batch.ReadLongAt(bufferStart + (16 * bufferIndex));
                long size = batch.ReadLongAt(bufferStart + (16 * bufferIndex) + 8);
                bufferIndex++;
                if (offset < 0 || size < 0 || offset + size > body.Length)
                {
                    throw new InvalidDataException($"Buffer [{offset}, +{size}) lies outside the {body.Length}-byte body.");
                }

                return body.Slice((int)offset, (int)size);
            }

            var columns = new List<ArrowColumnData>(nodeCount);
            for (int i = 0; i < nodeCount; i++)
            {
                long nodeLength = batch.ReadLongAt(nodeStart + (16 * i));
                long nullCount = batch.ReadLongAt(nodeStart + (16 * i) + 8);
                if (nodeLength != length)
                {
                    throw new InvalidDataException($"Column {i} has {nodeLength} rows, the batch {length}.");
                }

                ArrowField field = schema.Fields[i];
                ReadOnlyMemory<byte> validity = NextBuffer();
                ReadOnlyMemory<byte> values = NextBuffer();
                ReadOnlyMemory<byte> data = field.Type.Id == ArrowTypeId.Utf8 ? NextBuffer() : ReadOnlyMemory<byte>.Empty;
                CheckSizes(field, (int)nodeLength, (int)nullCount, validity, values, data);
                columns.Add(new ArrowColumnData(field, (int)nodeLength, (int)nullCount, validity, values, data));
            }

            if (bufferIndex != bufferCount)
            {
                throw new InvalidDataException($"RecordBatch has {bufferCount} buffers, its schema uses {bufferIndex}.");
            }

            return new ArrowRecordBatchData(schema, (int)length, columns);
        }

        private static void CheckSizes(ArrowField field, int length, int nullCount, ReadOnlyMemory<byte> validity, ReadOnlyMemory<byte> values, ReadOnlyMemory<byte> data)
        {
            int bitmapBytes = (length + 7) / 8;
            if (nullCount > 0 && validity.Length < bitmapBytes)
            {
                throw new InvalidDataException($"Column {field.Name}: validity bitmap too short.");
            }

            if (nullCount > 0 && !field.Nullable)
            {
                throw new InvalidDataException($"Column {field.Name} is not nullable but has {nullCount} nulls.");
            }

            int needed = field.Type.Id switch
            {
                ArrowTypeId.Bool => bitmapBytes,
                ArrowTypeId.Utf8 => length == 0 ? 0 : (length + 1) * 4,
                _ => length * field.Type.ByteWidth,
            };
            if (values.Length < needed)
            {
                throw new InvalidDataException($"Column {field.Name}: value buffer has {values.Length} bytes, needs {needed}.");
            }

            if (field.Type.Id == ArrowTypeId.Utf8 && length > 0)
            {
                int last = BinaryPrimitives.ReadInt32LittleEndian(values.Span.Slice(length * 4));
                if (last < 0 || last > data.Length)
                {
                    throw new InvalidDataException($"Column {field.Name}: string offsets run past the data buffer.");
                }
            }
        }
    }
}
