using System;
using System.Collections.Generic;
using System.Linq;
using System.Buffers.Binary;
using System.Text;
using Apache.Arrow;
using Apache.Arrow.Types;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// Deterministic rows: every value is a pure function of (seed, row, column), so any test can check any row
    /// without generating the rows before it, and files can be built in parallel. Values look like a sales table
    /// (sequential ids, small counts, prices, decimal amounts, short texts from a vocabulary, increasing timestamps,
    /// dates, flags, skewed country names, about 5% nulls), which makes LZ4 compress them roughly 2-4x, as real
    /// Databricks results do: neither all zeros nor random noise.
    /// </summary>
    public sealed class DatasetGenerator
    {
        private static readonly DateTimeOffset s_timestampBase = new DateTimeOffset(2024, 1, 1, 0, 0, 0, TimeSpan.Zero);
        private static readonly DateOnly s_dateBase = new DateOnly(2020, 1, 1);
        private static readonly int s_epochDay = DateOnly.FromDateTime(DateTime.UnixEpoch).DayNumber;
        private static readonly long s_timestampBaseMicros = (s_timestampBase.UtcTicks - DateTimeOffset.UnixEpoch.UtcTicks) / 10;

        private static readonly string[] s_words =
        {
            "order", "shipped", "pending", "customer", "invoice", "payment", "received", "warehouse", "north", "south",
            "east", "west", "express", "standard", "priority", "return", "refund", "discount", "premium", "basic",
            "delivery", "delayed", "confirmed", "cancelled", "the", "a", "of", "and", "for", "with", "from", "to",
            "blue", "green", "red", "large", "small", "medium", "box", "pallet", "crate", "unit", "item", "batch",
            "Zürich", "café", "naïve", "São Paulo", "Kraków", "東京", "München", "Ørsted", "señal", "façade",
            "alpha", "beta", "gamma", "delta", "epsilon", "omega", "sigma", "kappa", "lambda", "theta",
        };

        private static readonly string[] s_countries =
        {
            "United States", "Germany", "France", "United Kingdom", "Japan", "Brazil", "India", "Canada", "Australia", "Spain",
            "Italy", "Netherlands", "Sweden", "Poland", "Mexico", "South Korea", "Switzerland", "Norway", "Denmark", "Ireland",
        };

        private static readonly double[] s_catalogue = Enumerable.Range(0, 1000)
            .Select(i => Math.Round(((i * 7919L) % 100_000) / 100.0 + 0.99, 2)).ToArray();

        private static readonly byte[][] s_wordBytes = s_words.Select(Encoding.UTF8.GetBytes).ToArray();
        private static readonly byte[][] s_countryBytes = s_countries.Select(Encoding.UTF8.GetBytes).ToArray();

        private const int LinesPerOrder = 4;

        private readonly ColumnKind[] _kinds;
        private readonly TableColumn[]? _table;
        private readonly ulong _seed;

        public DatasetGenerator(DatasetSpec spec)
        {
            Spec = spec;
            _seed = (ulong)(uint)spec.Seed * 0x100000001B3UL;
            if (spec.Table is TableDefinition table)
            {
                _table = table.Columns.ToArray();
                _kinds = System.Array.Empty<ColumnKind>();
                Fields = table.Fields;
                Schema = new Schema(Fields.Select(f => new Field(f.Name, ArrowColumns.NativeType(f.Type), f.Nullable, new Dictionary<string, string> { [ArrowColumns.SqlNameKey] = f.Type.Sql })), metadata: null);
            }
            else
            {
                (Schema, _kinds) = Define(spec.Profile);
                Fields = Schema.FieldsList.Select(f => new SqlField(f.Name, SqlTypeOf(f.DataType), f.IsNullable)).ToList();
            }
        }

        private enum ColumnKind
        {
            Id,
            Quantity,
            Price,
            Amount,
            Description,
            LongText,
            CreatedAt,
            EventDate,
            IsActive,
            Country,
        }

        public DatasetSpec Spec { get; }

        /// <summary>The columns with native Arrow types (what <see cref="BuildBatch"/> returns).</summary>
        public Schema Schema { get; }

        /// <summary>The columns as SQL fields: what the column descriptors describe.</summary>
        public IReadOnlyList<SqlField> Fields { get; }

        /// <summary>Average uncompressed Arrow bytes per row of a data set (used to cut files of about the target size).</summary>
        public static long EstimatedRowBytes(DatasetSpec spec) => spec.Table?.EstimatedRowBytes ?? EstimatedRowBytes(spec.Profile);

        /// <summary>Average uncompressed Arrow bytes per row (used to cut files of about the target size).</summary>
        public static long EstimatedRowBytes(DatasetProfile profile) => profile switch
        {
            DatasetProfile.Narrow => 21,
            DatasetProfile.Strings => 190,
            _ => 100,
        };

        public static Schema SchemaFor(DatasetProfile profile) => Define(profile).Schema;

        /// <summary>
        /// The expected value at (row, column), computed from (seed, row, column) alone, as the CLR type
        /// <see cref="ArrowValues.Get"/> reads from the column: long, int, double, decimal, string, DateTimeOffset,
        /// DateOnly, bool; or null.
        /// </summary>
        public object? GetValue(long row, int column)
        {
            if (row < 0 || row >= Spec.Rows)
            {
                throw new ArgumentOutOfRangeException(nameof(row), $"Row {row} outside 0..{Spec.Rows - 1}.");
            }

            if (_table != null)
            {
                return _table[column].Value(row);
            }

            ColumnKind kind = _kinds[column];
            if (IsNull(row, column))
            {
                return null;
            }

            ulong h = ValueHash(row, column, kind);
            switch (kind)
            {
                case ColumnKind.Id:
                    return row;
                case ColumnKind.Quantity:
                    return Quantity(h);
                case ColumnKind.Price:
                    return Price(h);
                case ColumnKind.Amount:
                    return Amount(h);
                case ColumnKind.CreatedAt:
                    return DateTimeOffset.UnixEpoch.AddTicks(CreatedAtMicros(row, h) * 10);
                case ColumnKind.EventDate:
                    return DateOnly.FromDayNumber(s_epochDay + EventDateDays(row, h));
                case ColumnKind.IsActive:
                    return (h & 1) == 1;
                case ColumnKind.Country:
                    return s_countries[CountryIndex(h)];
                default:
                    Span<byte> scratch = stackalloc byte[2048];
                    int length = WriteText(row, column, kind, scratch);
                    return Encoding.UTF8.GetString(scratch.Slice(0, length));
            }
        }

        /// <summary>
        /// Whether <paramref name="array"/>[<paramref name="index"/>] holds the value at (<paramref name="row"/>,
        /// <paramref name="column"/>): what <see cref="ArrowValues.AreEqual"/> of <see cref="GetValue"/> and
        /// <see cref="ArrowValues.Get"/> says, without boxing a value or building a string. Why: the memory probe checks
        /// values while it measures the driver, and the boxing path's garbage (~8 MB per 1 GB result at its 1/1000
        /// sample, waiting for the next Gen0) showed up in the working set it reports as the driver's.
        /// </summary>
        public bool ValueEquals(long row, int column, IArrowArray array, int index)
        {
            if (row < 0 || row >= Spec.Rows)
            {
                throw new ArgumentOutOfRangeException(nameof(row), $"Row {row} outside 0..{Spec.Rows - 1}.");
            }

            if (_table != null)
            {
                object? expected = _table[column].Value(row);
                object? actual = ArrowValues.Read(array, index, Fields[column].Type);
                return actual is string text && !Fields[column].Type.IsStringLike
                    ? text == SqlValues.ToHiveString(expected, Fields[column].Type)
                    : SqlValueEquality.AreEqual(expected, actual);
            }

            bool expectNull = IsNull(row, column);
            if (expectNull || array.IsNull(index))
            {
                return expectNull && array.IsNull(index);
            }

            ColumnKind kind = _kinds[column];
            ulong h = ValueHash(row, column, kind);
            switch (kind)
            {
                case ColumnKind.Id:
                    return array is Int64Array ids && ids.GetValue(index) == row;
                case ColumnKind.Quantity:
                    return array is Int32Array quantities && quantities.GetValue(index) == Quantity(h);
                case ColumnKind.Price:
                    return array is DoubleArray prices && prices.GetValue(index).Equals(Price(h));
                case ColumnKind.Amount:
                    Span<byte> unscaled = stackalloc byte[16];
                    BinaryPrimitives.WriteInt128LittleEndian(unscaled, AmountUnscaled(h));
                    return array is Decimal128Array amounts && amounts.GetBytes(index).SequenceEqual(unscaled);
                case ColumnKind.CreatedAt:
                    return array is TimestampArray times && times.GetTimestamp(index)?.UtcTicks == DateTimeOffset.UnixEpoch.AddTicks(CreatedAtMicros(row, h) * 10).UtcTicks;
                case ColumnKind.EventDate:
                    return array is Date32Array dates && dates.GetDateOnly(index) == DateOnly.FromDayNumber(s_epochDay + EventDateDays(row, h));
                case ColumnKind.IsActive:
                    return array is BooleanArray flags && flags.GetValue(index) == ((h & 1) == 1);
                case ColumnKind.Country:
                    return array is StringArray countries && countries.GetBytes(index).SequenceEqual(s_countryBytes[CountryIndex(h)]);
                default:
                    Span<byte> scratch = stackalloc byte[2048];
                    int length = WriteText(row, column, kind, scratch);
                    return array is StringArray texts && texts.GetBytes(index).SequenceEqual(scratch.Slice(0, length));
            }
        }

        /// <summary>The schema as served to a client with these useArrowNativeTypes: strings where a warehouse sends strings.</summary>
        public Schema ServedSchema(ResultTypes types) =>
            _table == null ? types.Apply(Schema) : new Schema(Fields.Select(f => ArrowColumns.ServedField(f, types)), metadata: null);

        /// <summary>Rows [start, start+count) as served to a client with these useArrowNativeTypes.</summary>
        public RecordBatch BuildServedBatch(long start, int count, ResultTypes types)
        {
            if (_table == null)
            {
                return types.Apply(BuildBatch(start, count));
            }

            Schema served = ServedSchema(types);
            IArrowArray[] arrays = _table.Select(c => ArrowColumns.Build(c.Field.Type, Values(c, start, count), types)).ToArray();
            return new RecordBatch(served, arrays, count);
        }

        /// <summary>Rows [start, start+count) as a record batch built with Apache.Arrow's array builders (the fast path used to build files).</summary>
        public RecordBatch BuildBatch(long start, int count)
        {
            if (_table != null)
            {
                return new RecordBatch(Schema, _table.Select(c => ArrowColumns.BuildNative(c.Field.Type, Values(c, start, count))).ToArray(), count);
            }

            var arrays = new IArrowArray[_kinds.Length];
            for (int column = 0; column < arrays.Length; column++)
            {
                arrays[column] = BuildColumn(column, start, count);
            }

            return new RecordBatch(Schema, arrays, count);
        }

        private static object?[] Values(TableColumn column, long start, int count)
        {
            var values = new object?[count];
            for (int i = 0; i < count; i++)
            {
                values[i] = column.Value(start + i);
            }

            return values;
        }

        /// <summary>The SQL type of a mock.* column's Arrow type.</summary>
        private static SqlType SqlTypeOf(IArrowType type) => type switch
        {
            Int64Type => SqlType.BigInt,
            Int32Type => SqlType.Int,
            DoubleType => SqlType.Double,
            Decimal128Type d => SqlType.Decimal(d.Precision, d.Scale),
            StringType => SqlType.String,
            TimestampType => SqlType.Timestamp,
            Date32Type => SqlType.Date,
            BooleanType => SqlType.Boolean,
            _ => throw new NotSupportedException($"No SQL type for {type.Name} in the mock's profiles."),
        };

        private IArrowArray BuildColumn(int column, long start, int count)
        {
            IArrowType type = Schema.FieldsList[column].DataType;
            ColumnKind kind = _kinds[column];
            byte[] scratch = new byte[2048];
            return kind switch
            {
                ColumnKind.Id => Fill(new Int64Array.Builder(), column, start, count, (b, row, _) => b.Append(row)),
                ColumnKind.Quantity => Fill(new Int32Array.Builder(), column, start, count, (b, _, h) => b.Append(Quantity(h))),
                ColumnKind.Price => Fill(new DoubleArray.Builder(), column, start, count, (b, _, h) => b.Append(Price(h))),
                // The 16-byte two's complement unscaled value: exact, and without a decimal round trip per value.
                ColumnKind.Amount => Fill(new Decimal128Array.Builder((Decimal128Type)type), column, start, count, (b, _, h) =>
                {
                    BinaryPrimitives.WriteInt128LittleEndian(scratch, AmountUnscaled(h));
                    b.Append(scratch.AsSpan(0, 16));
                }),
                ColumnKind.CreatedAt => Fill(new TimestampArray.Builder((TimestampType)type), column, start, count, (b, row, h) => b.Append(DateTimeOffset.UnixEpoch.AddTicks(CreatedAtMicros(row, h) * 10))),
                ColumnKind.EventDate => Fill(new Date32Array.Builder(), column, start, count, (b, row, h) => b.Append(DateOnly.FromDayNumber(s_epochDay + EventDateDays(row, h)))),
                ColumnKind.IsActive => Fill(new BooleanArray.Builder(), column, start, count, (b, _, h) => b.Append((h & 1) == 1)),
                ColumnKind.Country => Fill(new StringArray.Builder(), column, start, count, (b, _, h) => b.Append(s_countryBytes[CountryIndex(h)].AsSpan())),
                _ => Fill(new StringArray.Builder(), column, start, count, (b, row, _) => b.Append(scratch.AsSpan(0, WriteText(row, column, kind, scratch)))),
            };
        }

        /// <summary>Appends rows [start, start+count) of a column: null where the formula says so, else the value from the row's hash.</summary>
        private IArrowArray Fill<TBuilder>(TBuilder builder, int column, long start, int count, Action<TBuilder, long, ulong> append)
            where TBuilder : IArrowArrayBuilder<IArrowArray, TBuilder>
        {
            builder.Reserve(count);
            ColumnKind kind = _kinds[column];
            for (long row = start; row < start + count; row++)
            {
                if (IsNull(row, column))
                {
                    builder.AppendNull();
                }
                else
                {
                    append(builder, row, ValueHash(row, column, kind));
                }
            }

            return builder.Build(default);
        }

        private static (Schema Schema, ColumnKind[] Kinds) Define(DatasetProfile profile)
        {
            var columns = new List<(Field, ColumnKind)>
            {
                (new Field("id", Int64Type.Default, nullable: false), ColumnKind.Id),
            };
            switch (profile)
            {
                case DatasetProfile.Narrow:
                    columns.Add((new Field("quantity", Int32Type.Default, nullable: true), ColumnKind.Quantity));
                    columns.Add((new Field("price", DoubleType.Default, nullable: true), ColumnKind.Price));
                    break;
                case DatasetProfile.Strings:
                    columns.Add((new Field("notes", StringType.Default, nullable: true), ColumnKind.LongText));
                    columns.Add((new Field("country", StringType.Default, nullable: false), ColumnKind.Country));
                    break;
                default:
                    columns.Add((new Field("quantity", Int32Type.Default, nullable: true), ColumnKind.Quantity));
                    columns.Add((new Field("price", DoubleType.Default, nullable: true), ColumnKind.Price));
                    columns.Add((new Field("amount", new Decimal128Type(18, 4), nullable: true), ColumnKind.Amount));
                    columns.Add((new Field("description", StringType.Default, nullable: true), ColumnKind.Description));
                    columns.Add((new Field("created_at", new TimestampType(TimeUnit.Microsecond, "Etc/UTC"), nullable: true), ColumnKind.CreatedAt));
                    columns.Add((new Field("event_date", Date32Type.Default, nullable: true), ColumnKind.EventDate));
                    columns.Add((new Field("is_active", BooleanType.Default, nullable: true), ColumnKind.IsActive));
                    columns.Add((new Field("country", StringType.Default, nullable: false), ColumnKind.Country));
                    break;
            }

            return (new Schema(columns.Select(c => c.Item1), metadata: null), columns.Select(c => c.Item2).ToArray());
        }

        private bool IsNull(long row, int column) =>
            Schema.FieldsList[column].IsNullable && (Hash(row, column, 15) % 100) < 5;

        // Most order lines have quantity 1, some a few units, rare bulk orders.
        private static int Quantity(ulong h) => (h % 8) switch
        {
            0 => (int)((h >> 40) % 100_000),
            1 or 2 => 2 + (int)((h >> 8) % 20),
            _ => 1,
        };

        // Prices come from a catalogue of 1000 products, as in a real fact table: repeated values, not noise.
        private static double Price(ulong h) => s_catalogue[(int)((h >> 16) % (ulong)s_catalogue.Length)];

        private static decimal Amount(ulong h) => AmountUnscaled(h) / 10_000m;

        /// <summary>The amount at scale 4 (the column is decimal(18,4)).</summary>
        private static long AmountUnscaled(ulong h) => ((long)(h % 200_000) - 20_000) * 100;

        private static long CreatedAtMicros(long row, ulong h) => s_timestampBaseMicros + (row / LinesPerOrder * 4_000_000) + ((long)(h % 1000) * 1000);

        private static int EventDateDays(long row, ulong h) => s_dateBase.DayNumber - s_epochDay + (int)(row / 5000) + (int)(h % 30);

        private static int CountryIndex(ulong h)
        {
            // Skewed: the first countries are much more frequent.
            int a = (int)(h % (ulong)s_countries.Length);
            int b = (int)((h >> 20) % (ulong)s_countries.Length);
            return Math.Min(a, b);
        }

        private int WriteText(long row, int column, ColumnKind kind, Span<byte> target)
        {
            ulong h = Hash(row, column, 0);
            int words = kind == ColumnKind.LongText ? 5 + (int)(h % 36) : 1 + (int)(h % 8);
            int length = 0;
            for (int i = 0; i < words; i++)
            {
                ulong w = Hash(row, column, 1 + i);
                int a = (int)(w % (ulong)s_words.Length);
                int b = (int)((w >> 24) % (ulong)s_words.Length);
                byte[] word = s_wordBytes[Math.Min(a, b)];
                if (i > 0)
                {
                    target[length++] = (byte)' ';
                }

                word.CopyTo(target.Slice(length));
                length += word.Length;
            }

            if (kind == ColumnKind.Description && (h >> 60) == 0)
            {
                // One row in 16 carries a reference number: varying length, less compressible.
                length += Encoding.ASCII.GetBytes(" #" + (h >> 8 & 0xFFFFFF).ToString("X6", System.Globalization.CultureInfo.InvariantCulture), target.Slice(length));
            }

            return length;
        }

        /// <summary>
        /// Rows come in orders of <see cref="LinesPerOrder"/> lines; order-level columns (time, date, flag, country)
        /// repeat within an order, as in a clustered fact table. That is where most of the LZ4 ratio comes from.
        /// </summary>
        private ulong ValueHash(long row, int column, ColumnKind kind) => kind switch
        {
            ColumnKind.CreatedAt or ColumnKind.EventDate or ColumnKind.IsActive or ColumnKind.Country => Hash(row / LinesPerOrder, column, 0),
            _ => Hash(row, column, 0),
        };

        private ulong Hash(long row, int column, int salt) =>
            Mix(Mix(_seed ^ (ulong)row) + ((ulong)column << 8) + (ulong)salt);

        private static ulong Mix(ulong x)
        {
            // SplitMix64 finaliser.
            x += 0x9E3779B97F4A7C15UL;
            x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
            x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
            return x ^ (x >> 31);
        }
    }
}
