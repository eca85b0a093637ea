namespace MockDatabricks.Server.Query.Sql
{
    // The statements and expressions the mock reads (Spark SQL syntax), before names and types are resolved.

    public abstract record SqlExpr(int Position);

    /// <summary>A literal with its Spark type and the column name Spark gives it (1, hello, 1.5, NULL, INTERVAL '2-6' YEAR TO MONTH).</summary>
    public sealed record LiteralExpr(object? Value, SqlType Type, string Name, int Position) : SqlExpr(Position);

    /// <summary>A column name, possibly qualified (a.id).</summary>
    public sealed record ColumnRefExpr(IReadOnlyList<string> Parts, int Position) : SqlExpr(Position);

    public sealed record CastExpr(SqlExpr Operand, SqlType Target, bool Try, int Position) : SqlExpr(Position);

    public sealed record UnaryExpr(string Operator, SqlExpr Operand, int Position) : SqlExpr(Position);

    public sealed record BinaryExpr(string Operator, SqlExpr Left, SqlExpr Right, int Position) : SqlExpr(Position);

    public sealed record IsNullExpr(SqlExpr Operand, bool Negated, int Position) : SqlExpr(Position);

    /// <summary>A function call; <paramref name="ArgumentNames"/> holds the AS names of STRUCT(... AS name) arguments; COUNT(*) has <paramref name="Star"/>.</summary>
    public sealed record FunctionExpr(string Name, IReadOnlyList<SqlExpr> Arguments, IReadOnlyList<string?> ArgumentNames, bool Star, int Position) : SqlExpr(Position);

    public abstract record SqlStatement;

    public sealed record SelectItem(SqlExpr? Expression, string? Alias, bool Star, string? StarQualifier);

    /// <summary>A SELECT; <paramref name="Unsupported"/> names a clause the mock does not execute (GROUP BY, ORDER BY, ...).</summary>
    public sealed record SelectStatement(IReadOnlyList<SelectItem> Items, IReadOnlyList<FromItem> From, SqlExpr? Where, long? Limit, string? Unsupported) : SqlStatement;

    public abstract record FromItem(string? Alias)
    {
        /// <summary>The column names after the alias (range(3) AS t(n), (VALUES ...) AS t(a, b)): the item's columns renamed in order.</summary>
        public IReadOnlyList<string>? ColumnAliases { get; init; }
    }

    public sealed record TableFromItem(IReadOnlyList<string> Name, string? Alias) : FromItem(Alias);

    /// <summary>range(end) or range(start, end [, step [, partitions]]).</summary>
    public sealed record RangeFromItem(IReadOnlyList<SqlExpr> Arguments, string? Alias) : FromItem(Alias);

    public sealed record SubqueryFromItem(SelectStatement Query, string? Alias) : FromItem(Alias);

    /// <summary>
    /// mock.&lt;preset&gt; [WITH (key = value, ...)]: one of the mock's own data sets; <paramref name="Options"/> is the text
    /// between the parentheses, as written (the data set options, <see cref="MockDatasets"/>).
    /// </summary>
    public sealed record MockDatasetFromItem(string Preset, string? Options, string? Alias) : FromItem(Alias);

    /// <summary>VALUES (a, b), (c, d): an inline table of constant rows; its columns are col1, col2, ... unless renamed.</summary>
    public sealed record ValuesFromItem(IReadOnlyList<IReadOnlyList<SqlExpr>> Rows, string? Alias) : FromItem(Alias);

    /// <summary>SET (list), SET key (show one), SET key = value.</summary>
    public sealed record SetStatement(string? Key, string? Value) : SqlStatement;

    /// <summary>USE [CATALOG | SCHEMA | DATABASE] name, where a two-part name is catalog.schema.</summary>
    public sealed record UseStatement(string? Catalog, string? Schema) : SqlStatement;

    public enum ShowWhat
    {
        Catalogs,
        Schemas,
        Tables,
        Columns,
        PrimaryKeys,
        ForeignKeys,
    }

    /// <summary>
    /// SHOW CATALOGS | SCHEMAS | TABLES | COLUMNS | KEYS | FOREIGN KEYS with where to look and the LIKE patterns (Databricks'
    /// SHOW patterns, <see cref="Catalog.ShowPattern"/>): IN ALL CATALOGS (<paramref name="AllCatalogs"/>), IN CATALOG c
    /// or SHOW SCHEMAS IN c (<paramref name="Catalog"/>), SHOW TABLES IN [c.]s (<paramref name="Schema"/>, the name's
    /// parts), SHOW [FOREIGN] KEYS IN CATALOG c IN SCHEMA s IN TABLE t.
    /// </summary>
    public sealed record ShowStatement(ShowWhat What, bool AllCatalogs, string? Catalog, IReadOnlyList<string>? Schema, string? Table) : SqlStatement
    {
        public string? SchemaPattern { get; init; }

        public string? TablePattern { get; init; }

        /// <summary>LIKE 'p' (or a bare 'p'): on the names SHOW lists.</summary>
        public string? Pattern { get; init; }
    }

    /// <summary>DESCRIBE [TABLE] [EXTENDED] name [AS JSON [STATIC ONLY]].</summary>
    public sealed record DescribeStatement(IReadOnlyList<string> Name, bool Extended, bool Json) : SqlStatement;

    /// <summary>Anything the mock recognises but does not execute (DDL, DML): the statement's first words.</summary>
    public sealed record UnsupportedStatement(string What) : SqlStatement;
}
