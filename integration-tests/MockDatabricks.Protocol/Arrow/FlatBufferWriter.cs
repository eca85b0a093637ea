using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace MockDatabricks.Protocol.Arrow
{
    /// <summary>A flatbuffer object that a table field or vector element can point to.</summary>
    internal abstract class FbNode
    {
    }

    /// <summary>
    /// A flatbuffer table described by slot (the field's index in the .fbs declaration). Every field is written
    /// explicitly, defaults included, so readers never depend on schema defaults (Date's default unit is
    /// MILLISECOND, and the mock needs DAY).
    /// </summary>
    internal sealed class FbTable : FbNode
    {
        public List<(int Slot, int Size, long Value, FbNode? Child)> Fields { get; } = new();

        public FbTable Bool(int slot, bool value) => Scalar(slot, 1, value ? 1 : 0);

        public FbTable UByte(int slot, byte value) => Scalar(slot, 1, value);

        public FbTable Short(int slot, short value) => Scalar(slot, 2, value);

        public FbTable Int(int slot, int value) => Scalar(slot, 4, value);

        public FbTable Long(int slot, long value) => Scalar(slot, 8, value);

        public FbTable Ref(int slot, FbNode child)
        {
            Fields.Add((slot, 4, 0, child));
            return this;
        }

        private FbTable Scalar(int slot, int size, long value)
        {
            Fields.Add((slot, size, value, null));
            return this;
        }
    }

    internal sealed class FbString : FbNode
    {
        public FbString(string value)
        {
            Value = value;
        }

        public string Value { get; }
    }

    internal sealed class FbTableVector : FbNode
    {
        public FbTableVector(IEnumerable<FbTable> tables)
        {
            Tables = tables.ToList();
        }

        public List<FbTable> Tables { get; }
    }

    /// <summary>A vector of fixed-size structs (Arrow's FieldNode and Buffer: two longs each), 8-byte aligned.</summary>
    internal sealed class FbStructVector : FbNode
    {
        public FbStructVector(byte[] data, int count)
        {
            Data = data;
            Count = count;
        }

        public byte[] Data { get; }

        public int Count { get; }
    }

    /// <summary>
    /// Serialises a flatbuffer front to back: root offset, then each table preceded by its vtable, then the
    /// objects it references. Every uoffset therefore points forward (as the format requires), and each scalar is
    /// aligned to its size relative to the buffer start, which the caller keeps 8-byte aligned in the IPC stream.
    /// </summary>
    internal static class FlatBufferWriter
    {
        public static byte[] Serialize(FbTable root)
        {
            var buffer = new ByteBuilder(512);
            buffer.AppendUInt32(0);
            int rootPosition = WriteTable(buffer, root);
            buffer.WriteUInt32At(0, (uint)rootPosition);
            buffer.PadTo(8);
            return buffer.ToArray();
        }

        private static int WriteNode(ByteBuilder buffer, FbNode node) => node switch
        {
            FbTable table => WriteTable(buffer, table),
            FbString text => WriteString(buffer, text.Value),
            FbTableVector vector => WriteTableVector(buffer, vector),
            FbStructVector structs => WriteStructVector(buffer, structs),
            _ => throw new InvalidOperationException("Unknown flatbuffer node."),
        };

        private static int WriteTable(ByteBuilder buffer, FbTable table)
        {
            int slotCount = table.Fields.Count == 0 ? 0 : table.Fields.Max(f => f.Slot) + 1;

            // vtable: [vtable size][table size][offset per slot]
            buffer.PadTo(2);
            int vtablePosition = buffer.Length;
            buffer.Append(4 + (2 * slotCount));

            buffer.PadTo(4);
            int tableStart = buffer.Length;

            // Lay out fields largest first so padding stays small; each aligned to its size in absolute terms.
            var ordered = table.Fields.Select((f, index) => (Field: f, Index: index))
                .OrderByDescending(x => x.Field.Size).ThenBy(x => x.Index).ToList();
            var offsets = new int[table.Fields.Count];
            int offset = 4;
            foreach (var (field, index) in ordered)
            {
                while ((tableStart + offset) % field.Size != 0)
                {
                    offset++;
                }

                offsets[index] = offset;
                offset += field.Size;
            }

            int tableSize = offset;
            buffer.Append(tableSize);
            buffer.WriteInt32At(tableStart, tableStart - vtablePosition);
            buffer.WriteUInt16At(vtablePosition, (ushort)(4 + (2 * slotCount)));
            buffer.WriteUInt16At(vtablePosition + 2, (ushort)tableSize);

            for (int i = 0; i < table.Fields.Count; i++)
            {
                var field = table.Fields[i];
                int position = tableStart + offsets[i];
                buffer.WriteUInt16At(vtablePosition + 4 + (2 * field.Slot), (ushort)offsets[i]);
                Span<byte> target = buffer.WrittenSpan.Slice(position, field.Size);
                switch (field.Size)
                {
                    case 1:
                        target[0] = (byte)field.Value;
                        break;
                    case 2:
                        System.Buffers.Binary.BinaryPrimitives.WriteInt16LittleEndian(target, (short)field.Value);
                        break;
                    case 4:
                        System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(target, (int)field.Value);
                        break;
                    default:
                        System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(target, field.Value);
                        break;
                }
            }

            for (int i = 0; i < table.Fields.Count; i++)
            {
                if (table.Fields[i].Child is FbNode child)
                {
                    int fieldPosition = tableStart + offsets[i];
                    int childPosition = WriteNode(buffer, child);
                    buffer.WriteUInt32At(fieldPosition, (uint)(childPosition - fieldPosition));
                }
            }

            return tableStart;
        }

        private static int WriteString(ByteBuilder buffer, string value)
        {
            buffer.PadTo(4);
            int position = buffer.Length;
            byte[] bytes = Encoding.UTF8.GetBytes(value);
            buffer.AppendInt32(bytes.Length);
            buffer.Append(bytes);
            buffer.AppendByte(0);
            return position;
        }

        private static int WriteTableVector(ByteBuilder buffer, FbTableVector vector)
        {
            buffer.PadTo(4);
            int position = buffer.Length;
            buffer.AppendInt32(vector.Tables.Count);
            buffer.Append(4 * vector.Tables.Count);
            for (int i = 0; i < vector.Tables.Count; i++)
            {
                int elementPosition = position + 4 + (4 * i);
                int tablePosition = WriteTable(buffer, vector.Tables[i]);
                buffer.WriteUInt32At(elementPosition, (uint)(tablePosition - elementPosition));
            }

            return position;
        }

        private static int WriteStructVector(ByteBuilder buffer, FbStructVector vector)
        {
            // The elements (longs) must be 8-byte aligned, so the length prefix sits at 4 mod 8.
            buffer.PadTo(4);
            if ((buffer.Length + 4) % 8 != 0)
            {
                buffer.Append(4);
            }

            int position = buffer.Length;
            buffer.AppendInt32(vector.Count);
            buffer.Append(vector.Data);
            return position;
        }
    }
}
