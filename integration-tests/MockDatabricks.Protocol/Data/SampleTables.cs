using System;
using System.Collections.Generic;
using System.Linq;
using System.Numerics;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// The well-known tables of a Databricks workspace that tests read, as generated data sets with their real schemas and
    /// row counts: main.tpcds_sf100_delta.store_sales (TPC-DS at scale 100: 287,997,024 rows, read with LIMIT) and
    /// samples.nyctaxi.trips (21,932 rows). Every value is a pure function of (table, row, column), with TPC-DS-like
    /// domains (surrogate keys in their ranges, about 4% nulls in nullable keys, prices and amounts that add up:
    /// ext_sales_price = sales_price x quantity, net_paid = ext_sales_price - coupon_amt, ...), so tests recompute any value.
    /// </summary>
    public static class SampleTables
    {
        public const long StoreSalesRows = 287_997_024;
        public const long NycTaxiTripsRows = 21_932;

        private static readonly SqlType s_money = SqlType.Decimal(7, 2);

        /// <summary>Fully qualified name (lower case) to the table's rows.</summary>
        public static IReadOnlyDictionary<string, (TableDefinition Table, long Rows)> All { get; } = new Dictionary<string, (TableDefinition, long)>(StringComparer.OrdinalIgnoreCase)
        {
            ["main.tpcds_sf100_delta.store_sales"] = (StoreSales(), StoreSalesRows),
            ["samples.nyctaxi.trips"] = (NycTaxiTrips(), NycTaxiTripsRows),
        };

        private static TableDefinition StoreSales()
        {
            var columns = new List<TableColumn>
            {
                Key("ss_sold_date_sk", 0, 2_450_816, 1_823, nullable: true),
                Key("ss_sold_time_sk", 1, 28_800, 46_800, nullable: true),
                Key("ss_item_sk", 2, 1, 204_000, nullable: false),
                Key("ss_customer_sk", 3, 1, 2_000_000, nullable: true),
                Key("ss_cdemo_sk", 4, 1, 1_920_800, nullable: true),
                Key("ss_hdemo_sk", 5, 1, 7_200, nullable: true),
                Key("ss_addr_sk", 6, 1, 1_000_000, nullable: true),
                Key("ss_store_sk", 7, 1, 402, nullable: true),
                Key("ss_promo_sk", 8, 1, 1_000, nullable: true),
                new TableColumn(new SqlField("ss_ticket_number", SqlType.BigInt, false), row => (row / 12) + 1, 8),
                new TableColumn(new SqlField("ss_quantity", SqlType.Int, true), row => Null(row, 10) ? null : StoreSalesLine.Of(row).Quantity, 4),
                Money("ss_wholesale_cost", 11, line => line.WholesaleCost),
                Money("ss_list_price", 12, line => line.ListPrice),
                Money("ss_sales_price", 13, line => line.SalesPrice),
                Money("ss_ext_discount_amt", 14, line => (line.ListPrice - line.SalesPrice) * line.Quantity),
                Money("ss_ext_sales_price", 15, line => line.ExtSalesPrice),
                Money("ss_ext_wholesale_cost", 16, line => line.WholesaleCost * line.Quantity),
                Money("ss_ext_list_price", 17, line => line.ListPrice * line.Quantity),
                Money("ss_ext_tax", 18, line => line.ExtTax),
                Money("ss_coupon_amt", 19, line => line.Coupon),
                Money("ss_net_paid", 20, line => line.ExtSalesPrice - line.Coupon),
                Money("ss_net_paid_inc_tax", 21, line => line.ExtSalesPrice - line.Coupon + line.ExtTax),
                Money("ss_net_profit", 22, line => line.ExtSalesPrice - line.Coupon - (line.WholesaleCost * line.Quantity)),
            };
            return new TableDefinition("main.tpcds_sf100_delta.store_sales", columns);
        }

        private static TableColumn Key(string name, int column, long first, long count, bool nullable) =>
            new TableColumn(new SqlField(name, SqlType.Int, nullable), row => nullable && Null(row, column) ? null : (int)(first + (long)(Hash(row, column) % (ulong)count)), 4);

        /// <summary>A DECIMAL(7,2) column from a line's amount in cents.</summary>
        private static TableColumn Money(string name, int column, Func<StoreSalesLine, long> cents) =>
            new TableColumn(new SqlField(name, s_money, true), row => Null(row, column) ? null : new DecimalValue(new BigInteger(cents(StoreSalesLine.Of(row))), 2), 16);

        /// <summary>About 4% nulls per nullable column, independently per column, as in TPC-DS's generated data.</summary>
        private static bool Null(long row, int column) => Hash(row, column + 100) % 100 < 4;

        /// <summary>One store_sales line's amounts in cents; the extended amounts follow from them as in TPC-DS.</summary>
        private readonly record struct StoreSalesLine(int Quantity, long WholesaleCost, long ListPrice, long SalesPrice, long Coupon, long TaxPermille)
        {
            public long ExtSalesPrice => SalesPrice * Quantity;

            public long ExtTax => ExtSalesPrice * TaxPermille / 1000;

            public static StoreSalesLine Of(long row)
            {
                ulong h = Hash(row, 50);
                int quantity = 1 + (int)(h % 100);
                long wholesale = 100 + (long)((h >> 8) % 9_901);            // 1.00 .. 100.00
                long list = wholesale * (100 + (long)((h >> 24) % 101)) / 100; // up to twice the cost
                long sales = list * (long)((h >> 32) % 101) / 100;             // 0 .. 100% of list
                long coupon = (h >> 40) % 10 == 0 ? sales * quantity * (long)((h >> 44) % 100) / 100 : 0;
                long taxPermille = (long)((h >> 52) % 91);                     // 0 .. 9.0%
                return new StoreSalesLine(quantity, wholesale, list, sales, coupon, taxPermille);
            }
        }

        private static TableDefinition NycTaxiTrips()
        {
            DateTimeOffset start = new DateTimeOffset(2016, 1, 1, 0, 0, 0, TimeSpan.Zero);
            long seconds = 60L * 24 * 60 * 60; // the sample spans January and February 2016
            DateTimeOffset Pickup(long row) => start.AddSeconds(row * seconds / NycTaxiTripsRows).AddSeconds((long)(Hash(row, 0) % 60));
            double Distance(long row) => Math.Round(0.3 + (Hash(row, 2) % 1500 / 100.0), 2);
            var columns = new List<TableColumn>
            {
                new TableColumn(new SqlField("tpep_pickup_datetime", SqlType.Timestamp), row => Pickup(row), 8),
                new TableColumn(new SqlField("tpep_dropoff_datetime", SqlType.Timestamp), row => Pickup(row).AddSeconds(120 + (long)(Distance(row) * 180)), 8),
                new TableColumn(new SqlField("trip_distance", SqlType.Double), row => Distance(row), 8),
                new TableColumn(new SqlField("fare_amount", SqlType.Double), row => Math.Round(2.5 + (Distance(row) * 2.5), 1), 8),
                new TableColumn(new SqlField("pickup_zip", SqlType.Int), row => 10001 + (int)(Hash(row, 4) % 300), 4),
                new TableColumn(new SqlField("dropoff_zip", SqlType.Int), row => 10001 + (int)(Hash(row, 5) % 300), 4),
            };
            return new TableDefinition("samples.nyctaxi.trips", columns);
        }

        private static ulong Hash(long row, int salt)
        {
            // SplitMix64 finaliser over (row, salt), as the mock's other generators.
            ulong x = ((ulong)row * 0x9E3779B97F4A7C15UL) ^ ((ulong)salt << 48) ^ 0xD1B54A32D192ED03UL;
            x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9UL;
            x = (x ^ (x >> 27)) * 0x94D049BB133111EBUL;
            return x ^ (x >> 31);
        }

        /// <summary>The names of the columns of a table, for descriptions and tests.</summary>
        public static IReadOnlyList<string> ColumnNames(string table) => All[table].Table.Columns.Select(c => c.Field.Name).ToList();
    }
}
