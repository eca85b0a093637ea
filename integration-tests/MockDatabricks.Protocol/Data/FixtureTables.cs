using System;
using System.Collections.Generic;
using System.Linq;
using System.Numerics;
using System.Text;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// The fixture tables upstream's E2E suite expects in main.adbc_testing, its read-only fixture schema: all_column_types,
    /// one column of every type, as its Resources/create_table_all_types.sql declares it (20 columns, VARIANT included),
    /// fk_test_ref_table, the table its foreign key references, as create_reference_table.sql declares it;
    /// cross_ref_customers and cross_ref_orders, which upstream's tools and tests name but whose columns upstream does not
    /// publish (these are invented: customer_id first, orders referencing customers); and sample_types, the table of its
    /// Resources/Databricks.sql that its config names. A few fixed rows each, so a SELECT from them returns checkable values.
    /// </summary>
    public static class FixtureTables
    {
        public const long AllColumnTypesRows = 3;
        public const long ReferenceRows = 3;
        public const long CustomerRows = 3;
        public const long OrderRows = 4;

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
                new SqlField("c_variant", SqlType.Variant),
                new SqlField("c_void", SqlType.Void),
            };
            return Numbered("main.adbc_testing.all_column_types", fields, AllColumnTypesRows, n =>
            {
                bool nulls = n == AllColumnTypesRows; // the last row has every nullable column null
                return new object?[]
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
                    nulls ? null : $"{{\"n\":{n},\"tags\":[\"t{n}\"]}}",
                    null,
                };
            });
        }

        public const long SampleTypesRows = 12;

        /// <summary>
        /// The table upstream's Resources/Databricks.sql creates for the suite's metadata and query tests (its config's
        /// "metadata": 19 columns), with the 12 rows the script leaves (ids 1, 2, 4..13: it deletes id 3).
        /// </summary>
        public static TableDefinition SampleTypes()
        {
            var fields = new List<SqlField>
            {
                new SqlField("id", SqlType.BigInt),
                new SqlField("byte", SqlType.TinyInt),
                new SqlField("short", SqlType.SmallInt),
                new SqlField("integer", SqlType.Int),
                new SqlField("float", SqlType.Float),
                new SqlField("number", SqlType.Double),
                new SqlField("decimal", SqlType.Decimal(38, 9)),
                new SqlField("is_active", SqlType.Boolean),
                new SqlField("name", SqlType.String),
                new SqlField("data", SqlType.Binary),
                new SqlField("date", SqlType.Date),
                new SqlField("timestamp", SqlType.Timestamp),
                new SqlField("timestamp_ntz", SqlType.TimestampNtz),
                new SqlField("timestamp_ltz", SqlType.Timestamp),
                new SqlField("numbers", SqlType.Array(SqlType.BigInt)),
                new SqlField("person", SqlType.Struct(new[] { new SqlField("name", SqlType.String), new SqlField("age", SqlType.BigInt) })),
                new SqlField("map", SqlType.Map(SqlType.Int, SqlType.String)),
                new SqlField("varchar", SqlType.Varchar(255)),
                new SqlField("char", SqlType.Char(10)),
            };

            static object?[] Row(long id, sbyte b, short s, int i, float f, double d, string dec, bool active, string name, string data, DateOnly date, DateTimeOffset at, long[] numbers, long age, int mapKey, string mapValue, DateTimeOffset? ltz = null) =>
                new object?[]
                {
                    id, b, s, i, f, d, DecimalValue.Parse(dec).Rescale(9), active, name, Encoding.UTF8.GetBytes(data), date, at,
                    DateTime.SpecifyKind(at.UtcDateTime, DateTimeKind.Unspecified), ltz ?? at, numbers.Select(n => (object?)n).ToList(),
                    new object?[] { name, age }, new List<KeyValuePair<object?, object?>> { new KeyValuePair<object?, object?>(mapKey, mapValue) }, name, name,
                };

            static DateTimeOffset At(int year, int month, int day, int hour, int minute, int second) => new DateTimeOffset(year, month, day, hour, minute, second, TimeSpan.Zero);

            var rows = new List<object?[]>
            {
                Row(1, 2, 3, 4, 7.89f, 1.23, "4.56", true, "John Doe", "abc123", new DateOnly(2023, 9, 8), At(2023, 9, 8, 12, 34, 56), new long[] { 1, 2, 3 }, 30, 1, "John Doe"),
                Row(2, 127, 32767, int.MaxValue, float.MaxValue, double.MaxValue, "9.99999999999999999999999999999999E+28", false, "Jane Doe", "def456", new DateOnly(2023, 9, 9), At(2023, 9, 9, 13, 45, 57), new long[] { 4, 5, 6 }, 40, 1, "John Doe"),
            };
            for (int n = 4; n <= 13; n++)
            {
                int k = n - 4;
                rows.Add(Row(n, (sbyte)(10 + k), (short)(100 + (10 * k)), 1000 + (100 * k), (float)(1.1m + (0.1m * k)), (double)(2.2m + (0.1m * k)), (3.3m + (0.1m * k)).ToString(System.Globalization.CultureInfo.InvariantCulture),
                    n % 2 == 0, $"User {n}", n >= 10 ? $"user{n}{n % 10}" : $"user0{n}", new DateOnly(2023, 9, 10 + k), At(2023, 9, 10 + k, 10 + k, 0, 0),
                    new long[] { (3L * n) - 2, (3L * n) - 1, 3L * n }, 21 + n, n, $"User {n}"));
            }

            return TableDefinition.Of("main.adbc_testing.sample_types", fields, rows);
        }

        /// <summary>fk_test_ref_table: the primary key (r_bigint, r_boolean) that all_column_types' foreign key references.</summary>
        public static TableDefinition Reference()
        {
            var fields = new List<SqlField>
            {
                new SqlField("r_bigint", SqlType.BigInt, Nullable: false),
                new SqlField("r_boolean", SqlType.Boolean, Nullable: false),
                new SqlField("r_decimal", SqlType.Decimal(10, 2)),
            };
            return Numbered("main.adbc_testing.fk_test_ref_table", fields, ReferenceRows,
                n => new object?[] { n * 10_000_000_000L, n % 2 == 1, new DecimalValue(new BigInteger(n * 100), 2) });
        }

        public static TableDefinition Customers()
        {
            var fields = new List<SqlField>
            {
                new SqlField("customer_id", SqlType.BigInt, Nullable: false),
                new SqlField("customer_name", SqlType.String),
                new SqlField("email", SqlType.String),
                new SqlField("created_at", SqlType.Timestamp),
            };
            return Numbered("main.adbc_testing.cross_ref_customers", fields, CustomerRows,
                n => new object?[] { (long)n, $"Customer {n}", $"customer{n}@example.com", new DateTimeOffset(2023, 9, n, 9, 0, 0, TimeSpan.Zero) });
        }

        /// <summary>cross_ref_orders: customer_id references cross_ref_customers; the last order has none.</summary>
        public static TableDefinition Orders()
        {
            var fields = new List<SqlField>
            {
                new SqlField("order_id", SqlType.BigInt, Nullable: false),
                new SqlField("customer_id", SqlType.BigInt),
                new SqlField("order_date", SqlType.Date),
                new SqlField("amount", SqlType.Decimal(10, 2)),
            };
            return Numbered("main.adbc_testing.cross_ref_orders", fields, OrderRows,
                n => new object?[] { 100L + n, n < OrderRows ? (long)(((n - 1) % CustomerRows) + 1) : null, new DateOnly(2023, 10, n), new DecimalValue(new BigInteger(n * 2_550), 2) });
        }

        /// <summary>A table of <paramref name="rowCount"/> fixed rows, row n (from 1, as the rows' own keys count) made by <paramref name="row"/>.</summary>
        private static TableDefinition Numbered(string key, IReadOnlyList<SqlField> fields, long rowCount, Func<int, object?[]> row) =>
            TableDefinition.Of(key, fields, Enumerable.Range(1, (int)rowCount).Select(row).ToList());
    }
}
