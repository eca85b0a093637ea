using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>
    /// Minimal Arrow IPC writer: encapsulated messages (0xFFFFFFFF continuation, int32 metadata length, flatbuffer
    /// Message padded to 8 bytes, body of 8-byte aligned buffers), metadata version V5, no body compression
    /// (the driver's readers have no codec). A CloudFetch file is Schema + RecordBatch* + EOS; an inline
    /// TSparkArrowBatch is one RecordBatch message alone; arrowSchema is Schema + EOS.
    /// </summary>
    public static class ArrowIpcWriter
    {
        private const short MetadataVersionV5 = 4;
        private const byte HeaderSchema = 1;
        private const byte HeaderRecordBatch = 3;

        public static byte[] SchemaStream(ArrowSchema schema)
        {
            var output = new ByteBuilder(512);
            WriteSchemaMessage(output, schema);
            WriteEndOfStream(output);
            return output.ToArray();
        }

        public static byte[] RecordBatchMessage(IReadOnlyList<ArrowColumnBuilder> columns)
        {
            var output = new ByteBuilder(EstimateBodyLength(columns) + 1024);
            WriteRecordBatchMessage(output, columns);
            return output.ToArray();
        }

        public static void WriteSchemaMessage(ByteBuilder output, ArrowSchema schema)
        {
            var fields = new FbTableVector(schema.Fields.Select(FieldTable));
            FbTable schemaTable = new FbTable().Short(0, 0).Ref(1, fields);
            FbTable message = new FbTable()
                .Short(0, MetadataVersionV5)
                .UByte(1, HeaderSchema)
                .Ref(2, schemaTable)
                .Long(3, 0);
            WriteMessage(output, FlatBufferWriter.Serialize(message), 0, null);
        }

        public static void WriteRecordBatchMessage(ByteBuilder output, IReadOnlyList<ArrowColumnBuilder> columns)
        {
            int length = columns.Count == 0 ? 0 : columns[0].Length;
            if (columns.Any(c => c.Length != length))
            {
                throw new ArgumentException("All columns of a record batch must have the same length.");
            }

            // Buffer table first (offsets within the body), then the body itself.
            var buffers = new List<(long Offset, long Length)>();
            long bodyOffset = 0;
            void Add(int byteLength)
            {
                buffers.Add((bodyOffset, byteLength));
                bodyOffset += Align8(byteLength);
            }

            foreach (ArrowColumnBuilder column in columns)
            {
                Add(column.NullCount == 0 ? 0 : column.Validity.Length);
                Add(column.Values.Length);
                if (column.Field.Type.Id == ArrowTypeId.Utf8)
                {
                    Add(column.Data.Length);
                }
            }

            var nodes = new byte[columns.Count * 16];
            for (int i = 0; i < columns.Count; i++)
            {
                BinaryPrimitives.WriteInt64LittleEndian(nodes.AsSpan(i * 16), columns[i].Length);
                BinaryPrimitives.WriteInt64LittleEndian(nodes.AsSpan((i * 16) + 8), columns[i].NullCount);
            }

            var bufferStructs = new byte[buffers.Count * 16];
            for (int i = 0; i < buffers.Count; i++)
            {
                BinaryPrimitives.WriteInt64LittleEndian(bufferStructs.AsSpan(i * 16), buffers[i].Offset);
                BinaryPrimitives.WriteInt64LittleEndian(bufferStructs.AsSpan((i * 16) + 8), buffers[i].Length);
            }

            FbTable recordBatch = new FbTable()
                .Long(0, length)
                .Ref(1, new FbStructVector(nodes, columns.Count))
                .Ref(2, new FbStructVector(bufferStructs, buffers.Count));
            FbTable message = new FbTable()
                .Short(0, MetadataVersionV5)
                .UByte(1, HeaderRecordBatch)
                .Ref(2, recordBatch)
                .Long(3, bodyOffset);
            WriteMessage(output, FlatBufferWriter.Serialize(message), bodyOffset, columns);
        }

        public static void WriteEndOfStream(ByteBuilder output)
        {
            output.AppendUInt32(0xFFFFFFFF);
            output.AppendInt32(0);
        }

        private static void WriteMessage(ByteBuilder output, byte[] metadata, long bodyLength, IReadOnlyList<ArrowColumnBuilder>? columns)
        {
            if (output.Length % 8 != 0)
            {
                throw new InvalidOperationException("IPC messages must start at an 8-byte boundary.");
            }

            // metadata is already padded to 8 bytes, so prefix (8) + metadata keeps the body 8-byte aligned.
            output.AppendUInt32(0xFFFFFFFF);
            output.AppendInt32(metadata.Length);
            output.Append(metadata);
            int bodyStart = output.Length;
            if (columns != null)
            {
                foreach (ArrowColumnBuilder column in columns)
                {
                    if (column.NullCount != 0)
                    {
                        AppendPadded(output, column.Validity);
                    }

                    AppendPadded(output, column.Values);
                    if (column.Field.Type.Id == ArrowTypeId.Utf8)
                    {
                        AppendPadded(output, column.Data);
                    }
                }
            }

            if (output.Length - bodyStart != bodyLength)
            {
                throw new InvalidOperationException("Record batch body length mismatch.");
            }
        }

        private static void AppendPadded(ByteBuilder output, ReadOnlySpan<byte> bytes)
        {
            output.Append(bytes);
            output.PadTo(8);
        }

        private static long Align8(long value) => (value + 7) & ~7L;

        private static int EstimateBodyLength(IReadOnlyList<ArrowColumnBuilder> columns) =>
            columns.Sum(c => c.Validity.Length + c.Values.Length + c.Data.Length + 24);

        private static FbTable FieldTable(ArrowField field)
        {
            (byte typeType, FbTable typeTable) = TypeTable(field.Type);
            return new FbTable()
                .Ref(0, new FbString(field.Name))
                .Bool(1, field.Nullable)
                .UByte(2, typeType)
                .Ref(3, typeTable)
                .Ref(5, new FbTableVector(Array.Empty<FbTable>()));
        }

        // Type union ids from Schema.fbs: Int=2, FloatingPoint=3, Utf8=5, Bool=6, Decimal=7, Date=8, Timestamp=10.
        private static (byte, FbTable) TypeTable(ArrowColumnType type) => type.Id switch
        {
            ArrowTypeId.Int32 => (2, new FbTable().Int(0, 32).Bool(1, true)),
            ArrowTypeId.Int64 => (2, new FbTable().Int(0, 64).Bool(1, true)),
            ArrowTypeId.Float64 => (3, new FbTable().Short(0, 2)),
            ArrowTypeId.Utf8 => (5, new FbTable()),
            ArrowTypeId.Bool => (6, new FbTable()),
            ArrowTypeId.Decimal128 => (7, new FbTable().Int(0, type.Precision).Int(1, type.Scale).Int(2, 128)),
            ArrowTypeId.Date32 => (8, new FbTable().Short(0, 0)),
            ArrowTypeId.Timestamp => (10, type.TimeZone == null
                ? new FbTable().Short(0, 2)
                : new FbTable().Short(0, 2).Ref(1, new FbString(type.TimeZone))),
            _ => throw new NotSupportedException(type.ToString()),
        };
    }
}
