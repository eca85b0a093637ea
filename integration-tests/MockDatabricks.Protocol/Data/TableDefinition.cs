using System;
using System.Collections.Generic;
using System.Linq;

namespace MockDatabricks.Protocol.Data
{
    /// <summary>
    /// One column of a generated table: its SQL field and the value at each row, a pure function of the row number
    /// (so any row can be recomputed alone, files can be built in parallel, and tests check values against it).
    /// <paramref name="EstimatedBytes"/> is the column's average uncompressed Arrow bytes per row (for cutting files).
    /// </summary>
    public sealed record TableColumn(SqlField Field, Func<long, object?> Value, int EstimatedBytes);

    /// <summary>
    /// The rows of a SQL result or a sample table the mock generates: columns defined by value functions, a row count, and
    /// a key that names exactly these rows (the data set cache and the tests' expectations go by it). Built by the
    /// statement layer for range(...), literal SELECTs, metadata RPCs and the sample tables (<see cref="SampleTables"/>).
    /// </summary>
    public sealed class TableDefinition
    {
        public TableDefinition(string key, IReadOnlyList<TableColumn> columns)
        {
            Key = key;
            Columns = columns;
        }

        /// <summary>What determines the rows (source, projection, seed): equal keys give equal rows.</summary>
        public string Key { get; }

        public IReadOnlyList<TableColumn> Columns { get; }

        public IReadOnlyList<SqlField> Fields => Columns.Select(c => c.Field).ToList();

        public long EstimatedRowBytes => Math.Max(1, Columns.Sum(c => (long)c.EstimatedBytes));

        /// <summary>A table of fixed rows (literal SELECTs, SET, metadata answers): row r of column c is rows[r][c].</summary>
        public static TableDefinition Of(string key, IReadOnlyList<SqlField> fields, IReadOnlyList<object?[]> rows) =>
            new TableDefinition(key, fields.Select((field, c) => new TableColumn(field, row => rows[(int)row][c], EstimatedBytes(field.Type))).ToList());

        /// <summary>Average uncompressed Arrow bytes per value of a type (strings and nested values are guesses).</summary>
        public static int EstimatedBytes(SqlType type) => type.Kind switch
        {
            SqlTypeKind.Boolean or SqlTypeKind.TinyInt => 1,
            SqlTypeKind.SmallInt => 2,
            SqlTypeKind.Int or SqlTypeKind.Float or SqlTypeKind.Date or SqlTypeKind.IntervalYearMonth => 4,
            SqlTypeKind.BigInt or SqlTypeKind.Double or SqlTypeKind.Timestamp or SqlTypeKind.TimestampNtz or SqlTypeKind.IntervalDayTime => 8,
            SqlTypeKind.Decimal => 16,
            SqlTypeKind.Void => 0,
            _ => 24,
        };
    }
}
