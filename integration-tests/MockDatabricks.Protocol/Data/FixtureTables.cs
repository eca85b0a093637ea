using System;
using System.Collections.Generic;
using System.Linq;
using System.Numerics;
using System.Text;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// The fixture tables upstream's E2E suite expects in main.adbc_testing (its Resources/create_table_all_types.sql and
    /// create_reference_table.sql): all_column_types, one column of every type, and all_column_types_ref, the table its
    /// foreign key references. A few fixed rows each, so a SELECT from them returns checkable values. The VARIANT column
    /// of the upstream table is left out: the mock has no VARIANT type (19 columns, not 20).
    /// </summary>
    public static class FixtureTables
    {
        public const long AllColumnTypesRows = 3;
        public const long ReferenceRows = 3;

        public static TableDefinition AllColumnTypes()
        {
            var fields = new List<SqlField>
            {
                new SqlField("c_tinyint", SqlType.TinyInt),
                new SqlField("c_smallint", SqlType.SmallInt),
                new SqlField("c_int", SqlType.Int, Nullable: false),
                new SqlField("c_bigint", SqlType.BigInt),
                new SqlField("c_decimal", SqlType.Decimal(10, 2)),
                new SqlField("c_float", SqlType.Float),
                new SqlField("c_double", SqlType.Double),
                new SqlField("c_string", SqlType.String, Nullable: false),
                new SqlField("c_binary", SqlType.Binary),
                new SqlField("c_boolean", SqlType.Boolean),
                new SqlField("c_date", SqlType.Date),
                new SqlField("c_timestamp", SqlType.Timestamp),
                new SqlField("c_timestamp_ntz", SqlType.TimestampNtz),
                new SqlField("c_interval_ym", SqlType.IntervalYearToMonth),
                new SqlField("c_interval_ds", SqlType.IntervalDayToSecond),
                new SqlField("c_array", SqlType.Array(SqlType.Int)),
                new SqlField("c_map", SqlType.Map(SqlType.String, SqlType.Int)),
                new SqlField("c_struct", SqlType.Struct(new[] { new SqlField("f1", SqlType.String), new SqlField("f2", SqlType.Int), new SqlField("f3", SqlType.Array(SqlType.Double)) })),
                new SqlField("c_void", SqlType.Void),
            };
            var rows = new List<object?[]>();
            for (int i = 0; i < AllColumnTypesRows; i++)
            {
                int n = i + 1;
                bool nulls = i == AllColumnTypesRows - 1; // the last row has every nullable column null
                rows.Add(new object?[]
                {
                    nulls ? null : (sbyte)n,
                    nulls ? null : (short)(n * 100),
                    n * 10_000,
                    nulls ? null : n * 10_000_000_000L,
                    nulls ? null : new DecimalValue(new BigInteger(n * 12_345), 2),
                    nulls ? null : n * 1.5f,
                    nulls ? null : n * 2.25,
                    $"row {n}",
                    nulls ? null : Encoding.UTF8.GetBytes($"abc{n}"),
                    nulls ? null : n % 2 == 1,
                    nulls ? null : new DateOnly(2023, 9, n),
                    nulls ? null : new DateTimeOffset(2023, 9, n, 12, 34, 56, TimeSpan.Zero),
                    nulls ? null : new DateTime(2023, 9, n, 12, 34, 56, DateTimeKind.Unspecified),
                    nulls ? null : new YearMonthInterval((n * 12) + 6),
                    nulls ? null : new DayTimeInterval(n * 86_400_000_000L),
                    nulls ? null : Enumerable.Range(1, n).Select(v => (object?)v).ToList(),
                    nulls ? null : new List<KeyValuePair<object?, object?>> { new KeyValuePair<object?, object?>($"k{n}", n) },
                    nulls ? null : new object?[] { $"s{n}", n, new List<object?> { n + 0.5 } },
                    null,
                });
            }

            return TableDefinition.Of("main.adbc_testing.all_column_types", fields, rows);
        }

        public static TableDefinition Reference()
        {
            var fields = new List<SqlField>
            {
                new SqlField("r_bigint", SqlType.BigInt, Nullable: false),
                new SqlField("r_boolean", SqlType.Boolean, Nullable: false),
                new SqlField("r_decimal", SqlType.Decimal(10, 2)),
            };
            List<object?[]> rows = Enumerable.Range(1, (int)ReferenceRows)
                .Select(n => new object?[] { n * 10_000_000_000L, n % 2 == 1, new DecimalValue(new BigInteger(n * 100), 2) })
                .ToList();
            return TableDefinition.Of("main.adbc_testing.all_column_types_ref", fields, rows);
        }
    }
}
