using MockDatabricks.Server.Catalog;
using MockDatabricks.Server.Query.Sql;

namespace MockDatabricks.Server.Query
{
    /// <summary>What a statement is executed with: the session, the client's file size limit, the statement's clock.</summary>
    /// <param name="MaxBytesPerFile">The client's maxBytesPerFile (Thrift) or its equivalent: the target size of a SQL result's CloudFetch files.</param>
    public sealed record StatementContext(SessionContext Session, long? MaxBytesPerFile = null, DateTimeOffset? Now = null);

    /// <summary>
    /// Turns a statement into what the mock serves, independent of the protocol that carries it (Thrift's ExecuteStatement,
    /// the Statement Execution API, through <see cref="State.StatementExecutor"/>): the result's rows as a generated data
    /// set (<see cref="QuerySpec.Dataset"/> with a <see cref="TableDefinition"/>) and how it is delivered. Not a SQL engine:
    /// a result is a mock.* data set (<see cref="MockDatasets"/>) or a generated table (literals, VALUES, range(...), a
    /// catalog table), projected through expressions, cut by LIMIT; a COUNT(*) of such a source is the product of its row
    /// counts. USE and SET act on the session; SHOW and DESCRIBE answer from <see cref="MockCatalog"/>. Anything else is
    /// refused with the error class a warehouse would give, or MOCK_NOT_SUPPORTED (DDL, DML, WHERE, joins other than CROSS JOIN).
    /// </summary>
    public static class StatementPlanner
    {
        /// <summary>How fast a COUNT(*) "runs": rows per second (a warehouse counts a cross join of ranges at about this rate).</summary>
        public const double CountRowsPerSecond = 1e9;

        /// <summary>The longest a statement is made to run.</summary>
        public static readonly TimeSpan MaxRunningTime = TimeSpan.FromSeconds(30);

        /// <summary>The session setting that makes LIMIT on SQL sources serve whole files (as limit_files=whole on mock.* data sets).</summary>
        public const string LimitFilesSetting = "mock.limit_files";

        public static QuerySpec Plan(string statement, StatementContext context)
        {
            SqlStatement parsed = SqlParser.Parse(statement);
            DateTimeOffset now = TruncateToMicros(context.Now ?? DateTimeOffset.UtcNow);
            return parsed switch
            {
                SelectStatement { From: [MockDatasetFromItem source] } select => MockDatasets.Plan(select, source),
                SelectStatement select => PlanSelect(select, context, now),
                SetStatement set => PlanSet(set, context.Session),
                UseStatement use => PlanUse(use, context.Session),
                ShowStatement show => ShowResults.Answer(show, context.Session),
                DescribeStatement describe => TableDescriptions.Describe(describe, context.Session),
                UnsupportedStatement unsupported => throw SqlError.NotSupported(unsupported.What),
                _ => throw SqlError.NotSupported(parsed.GetType().Name),
            };
        }

        private static QuerySpec PlanSelect(SelectStatement select, StatementContext context, DateTimeOffset now)
        {
            if (select.Unsupported != null)
            {
                throw SqlError.NotSupported(select.Unsupported);
            }

            if (select.Items.Count == 1 && select.Items[0].Expression is FunctionExpr { Name: "count", Star: true } count)
            {
                return PlanCount(select, count, context, now);
            }

            (TableDefinition? source, long sourceRows, string sourceKey, IReadOnlyList<(string? Qualifier, TableColumn Column)> columns) = Source(select.From, context, now);
            var scope = new BindingScope(columns, context.Session, now);
            if (select.Where != null && !ConstantFilter(select.Where, scope))
            {
                // WHERE FALSE (a schema-only query): no rows. A filter on row values would need an engine.
                sourceRows = 0;
            }

            var projected = new List<TableColumn>();
            var keys = new List<string>();
            bool constant = true;
            foreach (SelectItem item in select.Items)
            {
                if (item.Star)
                {
                    if (source == null)
                    {
                        throw new SqlError("INVALID_USAGE_OF_STAR_OR_REGEX", "Invalid usage of '*' in the SELECT list without a FROM clause.", "42000");
                    }

                    foreach ((string? qualifier, TableColumn column) in columns.Where(c => item.StarQualifier == null || string.Equals(c.Qualifier, item.StarQualifier, StringComparison.OrdinalIgnoreCase)))
                    {
                        projected.Add(column);
                        keys.Add(column.Field.Name);
                    }

                    constant = false;
                    continue;
                }

                BoundExpr bound = SqlBinder.Bind(item.Expression!, scope);
                string name = item.Alias ?? bound.Name;
                projected.Add(new TableColumn(new SqlField(name, bound.Type, bound.Nullable), bound.Evaluate, TableDefinition.EstimatedBytes(bound.Type)));
                keys.Add($"{name}={bound.Name}:{bound.Type.Sql}");
                constant &= bound.Constant;
            }

            long rows = source == null ? 1 : sourceRows;
            if (rows > 0)
            {
                // Errors a value raises (DIVIDE_BY_ZERO, CAST_INVALID_INPUT, overflow) answer the statement, as in a warehouse
                // that fails the query: the first and last row are evaluated now.
                foreach (TableColumn column in projected)
                {
                    _ = column.Value(0);
                    _ = column.Value(rows - 1);
                }
            }

            // A result whose values depend on the statement (literals, session functions) is made for it and not cached;
            // range(...) and tables projected through deterministic expressions are data sets, cached like mock.*.
            bool cacheable = source != null && !constant && !keys.Any(k => k.Contains("current_", StringComparison.Ordinal) || k.Contains("now()", StringComparison.Ordinal));
            var table = new TableDefinition($"{sourceKey}|select {string.Join(", ", keys)}", projected);
            var dataset = new DatasetSpec { Rows = rows, Table = table, TargetFileBytes = FileBytes(context) };
            var spec = new QuerySpec
            {
                Name = sourceKey,
                Dataset = dataset,
                Cacheable = cacheable,
                LimitServesWholeFiles = string.Equals(context.Session.Get(LimitFilesSetting), "whole", StringComparison.OrdinalIgnoreCase),
            };
            spec = select.Limit is long limit ? MockDatasets.WithLimit(spec, limit) : spec;
            spec.Dataset.Validate();
            return spec;
        }

        /// <summary>SELECT COUNT(*) FROM source: one BIGINT, the source's row count; the statement runs rows / 1e9 seconds (at most 30 s).</summary>
        private static QuerySpec PlanCount(SelectStatement select, FunctionExpr count, StatementContext context, DateTimeOffset now)
        {
            if (select.From.Count == 0)
            {
                throw SqlError.NotSupported("COUNT(*) without FROM");
            }

            long rows = RowCount(select.From, context, now);
            if (select.Limit == 0)
            {
                rows = 0;
            }

            if (Filtered(select))
            {
                // A COUNT(*) under a filter on row values (the suite's long-running query for cancel and timeout tests):
                // it runs as long as counting the unfiltered rows would, then fails, because the mock cannot count
                // what the filter keeps. A client that cancels or times out first never sees the failure.
                return new QuerySpec
                {
                    Name = "count",
                    Dataset = new DatasetSpec { Rows = 0, Table = TableDefinition.Of("filtered count", new[] { new SqlField("count(1)", SqlType.BigInt, false) }, new List<object?[]>()) },
                    Mode = ResultMode.Inline,
                    Cacheable = false,
                    RunningFor = TimeSpan.FromSeconds(Math.Min(MaxRunningTime.TotalSeconds, rows / CountRowsPerSecond)),
                    FailsWith = SqlError.NotSupported($"a COUNT(*) under a WHERE filter on row values ({rows} rows to filter); the statement ran until then"),
                };
            }

            string name = "count(1)";
            var field = new SqlField(name, SqlType.BigInt, false);
            List<object?[]> values = select.Limit == 0 ? new List<object?[]>() : new List<object?[]> { new object?[] { rows } };
            var table = TableDefinition.Of($"count {rows}", new[] { field }, values);
            TimeSpan running = TimeSpan.FromSeconds(Math.Min(MaxRunningTime.TotalSeconds, rows / CountRowsPerSecond));
            return new QuerySpec
            {
                Name = "count",
                Dataset = new DatasetSpec { Rows = values.Count, Table = table },
                Mode = ResultMode.Inline,
                Cacheable = false,
                RunningFor = running,
            };
        }

        /// <summary>Whether the SELECT or a subquery of its FROM has a WHERE (COUNT(*) cannot evaluate filters on row values).</summary>
        private static bool Filtered(SelectStatement select) =>
            select.Where != null || select.From.OfType<SubqueryFromItem>().Any(sub => Filtered(sub.Query));

        /// <summary>A WHERE that depends on no row value (WHERE FALSE, WHERE 1 = 1): its value; anything else is refused.</summary>
        private static bool ConstantFilter(SqlExpr where, BindingScope scope)
        {
            BoundExpr filter = SqlBinder.Bind(where, scope);
            if (!filter.Constant || filter.Type.Kind is not (SqlTypeKind.Boolean or SqlTypeKind.Void))
            {
                throw SqlError.NotSupported("WHERE clauses on row values (only constant ones, such as WHERE FALSE)");
            }

            return filter.Evaluate(0) is true;
        }

        /// <summary>Rows of a FROM list (cross joined): the product of the items' rows.</summary>
        private static long RowCount(IReadOnlyList<FromItem> from, StatementContext context, DateTimeOffset now)
        {
            long total = 1;
            foreach (FromItem item in from)
            {
                long rows = item switch
                {
                    SubqueryFromItem sub when sub.Query.Items.Count == 1 && sub.Query.Items[0].Expression is FunctionExpr { Name: "explode" } => Source(new[] { item }, context, now).Rows,
                    SubqueryFromItem sub => Math.Min(sub.Query.Limit ?? long.MaxValue, sub.Query.From.Count == 0 ? 1 : RowCount(sub.Query.From, context, now)),
                    _ => Source(new[] { item }, context, now).Rows,
                };
                total = checked(total * rows);
            }

            return total;
        }

        /// <summary>The rows a SELECT reads: nothing (one row), range(...), a catalog table, explode(sequence(...)), or a subquery.</summary>
        private static (TableDefinition? Table, long Rows, string Key, IReadOnlyList<(string? Qualifier, TableColumn Column)> Columns) Source(
            IReadOnlyList<FromItem> from, StatementContext context, DateTimeOffset now)
        {
            if (from.Count == 0)
            {
                return (null, 1, "values", Array.Empty<(string?, TableColumn)>());
            }

            if (from.Count > 1)
            {
                throw SqlError.NotSupported("selecting columns from a join (only SELECT COUNT(*) FROM a CROSS JOIN b)");
            }

            FromItem item = from[0];
            return Renamed(item, Read(item, context, now));
        }

        private static (TableDefinition? Table, long Rows, string Key, IReadOnlyList<(string? Qualifier, TableColumn Column)> Columns) Read(
            FromItem item, StatementContext context, DateTimeOffset now)
        {
            switch (item)
            {
                case ValuesFromItem values:
                    return Values(values, context, now);
                case RangeFromItem range:
                    (long start, long end, long step) = RangeArguments(range, context, now);
                    long rows = RangeRows(start, end, step);
                    var id = new TableColumn(new SqlField("id", SqlType.BigInt, false), row => start + (row * step), 8);
                    var table = new TableDefinition($"range({start}, {end}, {step})", new[] { id });
                    return (table, rows, table.Key, new[] { (range.Alias, id) });
                case TableFromItem named:
                    CatalogTable catalogTable = MockCatalog.Resolve(named.Name, context.Session)
                        ?? throw SqlError.TableNotFound("`" + string.Join("`.`", named.Name) + "`");
                    string alias = named.Alias ?? catalogTable.Name;
                    return (catalogTable.Data, catalogTable.Rows, catalogTable.FullName, catalogTable.Data.Columns.Select(c => ((string?)alias, AsRead(c))).ToList());
                case SubqueryFromItem sub when sub.Query.From.Count == 0 && sub.Query.Items.Count == 1 && sub.Query.Items[0].Expression is FunctionExpr { Name: "explode" } explode:
                    return Explode(explode, sub, context, now);
                case MockDatasetFromItem mock:
                    throw new FormatException($"{MockDatasets.Grammar} mock.{mock.Preset} is read alone, not in a subquery or a join.");
                case SubqueryFromItem sub:
                    QuerySpec inner = PlanSelect(sub.Query, context, now);
                    TableDefinition innerTable = inner.Dataset.Table!;
                    return (innerTable, inner.ResultRows, innerTable.Key, innerTable.Columns.Select(c => (sub.Alias, c)).ToList());
                default:
                    throw SqlError.NotSupported(item.GetType().Name);
            }
        }

        /// <summary>A FROM item with a column alias list (AS t(a, b)): its columns renamed in order, as many names as columns.</summary>
        private static (TableDefinition? Table, long Rows, string Key, IReadOnlyList<(string? Qualifier, TableColumn Column)> Columns) Renamed(
            FromItem item, (TableDefinition? Table, long Rows, string Key, IReadOnlyList<(string? Qualifier, TableColumn Column)> Columns) source)
        {
            if (item.ColumnAliases is not { } names)
            {
                return source;
            }

            if (names.Count != source.Columns.Count)
            {
                throw new SqlError(
                    "NUM_TABLE_VALUE_ALIASES_MISMATCH",
                    $"Number of given aliases does not match number of output columns. Alias: `{item.Alias}`; number of aliases: {names.Count}; number of output columns: {source.Columns.Count}.",
                    "42826");
            }

            var columns = source.Columns.Select((c, i) => (c.Qualifier, c.Column with { Field = c.Column.Field with { Name = names[i] } })).ToList();
            var table = new TableDefinition($"{source.Key} as ({string.Join(", ", names)})", columns.Select(c => c.Item2).ToList());
            return (table, source.Rows, table.Key, columns);
        }

        /// <summary>VALUES rows of constants: each column takes the type its values meet in (Spark's inline table rule), named col1, col2, ...</summary>
        private static (TableDefinition? Table, long Rows, string Key, IReadOnlyList<(string? Qualifier, TableColumn Column)> Columns) Values(
            ValuesFromItem inline, StatementContext context, DateTimeOffset now)
        {
            var scope = BindingScope.Empty(context.Session, now);
            int width = inline.Rows[0].Count;
            var bound = new List<List<BoundExpr>>();
            foreach (IReadOnlyList<SqlExpr> row in inline.Rows)
            {
                if (row.Count != width)
                {
                    throw new SqlError(
                        "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH",
                        $"Invalid inline table. Inline table expected {width} columns but found {row.Count} columns in row {bound.Count}.",
                        "42000");
                }

                bound.Add(row.Select(e => SqlBinder.Bind(e, scope)).Select(b => b.Constant
                    ? b
                    : throw new SqlError("INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE", $"Invalid inline table. Cannot evaluate the expression {b.Name} in inline table definition.", "42000")).ToList());
            }

            List<object?[]> values = bound.Select(row => row.Select(b => b.Evaluate(0)).ToArray()).ToList();
            var fields = new List<SqlField>();
            for (int c = 0; c < width; c++)
            {
                SqlType type = SqlTypeRules.Wider(bound.Select(row => row[c].Type));
                fields.Add(new SqlField($"col{c + 1}", type, values.Any(row => row[c] == null)));
            }

            List<object?[]> rows = values.Select((row, r) => row.Select((value, c) => SqlCast.Cast(value, bound[r][c].Type, fields[c].Type)).ToArray()).ToList();
            string key = "values " + string.Join("; ", bound.Select(row => string.Join(", ", row.Select(b => $"{b.Name}:{b.Type.Sql}"))));
            TableDefinition table = TableDefinition.Of(key, fields, rows);
            return (table, rows.Count, table.Key, table.Columns.Select(c => (inline.Alias, c)).ToList());
        }

        /// <summary>
        /// A table column as a query reads it: VARCHAR(n) and CHAR(n) read as STRING, a CHAR padded with spaces to its
        /// length (Spark's read-side char padding); the catalog RPCs keep the declared types.
        /// </summary>
        private static TableColumn AsRead(TableColumn column) => column.Field.Type.Kind switch
        {
            SqlTypeKind.Varchar => column with { Field = column.Field with { Type = SqlType.String } },
            SqlTypeKind.Char => column with
            {
                Field = column.Field with { Type = SqlType.String },
                Value = row => column.Value(row) is string text ? text.PadRight(column.Field.Type.Length) : null,
            },
            _ => column,
        };

        /// <summary>(SELECT explode(sequence(a, b [, step]))): one row per value, in a column named col.</summary>
        private static (TableDefinition? Table, long Rows, string Key, IReadOnlyList<(string? Qualifier, TableColumn Column)> Columns) Explode(
            FunctionExpr explode, SubqueryFromItem sub, StatementContext context, DateTimeOffset now)
        {
            if (explode.Arguments.Count != 1)
            {
                throw SqlError.NotSupported("explode(...) of more than one argument");
            }

            BoundExpr array = SqlBinder.Bind(explode.Arguments[0], BindingScope.Empty(context.Session, now));
            if (!array.Constant || array.Type.Kind != SqlTypeKind.Array)
            {
                throw SqlError.NotSupported("explode(...) of anything but a constant array");
            }

            var values = (IReadOnlyList<object?>)array.Evaluate(0)!;
            string name = sub.Query.Items[0].Alias ?? "col";
            var column = new TableColumn(new SqlField(name, array.Type.Element!, values.Any(v => v == null)), row => values[(int)row], TableDefinition.EstimatedBytes(array.Type.Element!));
            var table = new TableDefinition($"explode({array.Name})", new[] { column });
            long rows = Math.Min(values.Count, sub.Query.Limit ?? long.MaxValue);
            return (table, rows, table.Key, new[] { (sub.Alias, column) });
        }

        private static (long Start, long End, long Step) RangeArguments(RangeFromItem range, StatementContext context, DateTimeOffset now)
        {
            var scope = BindingScope.Empty(context.Session, now);
            List<long> values = range.Arguments.Select(a =>
            {
                BoundExpr bound = SqlBinder.Bind(a, scope);
                return bound.Constant && bound.Type.IsIntegral
                    ? Convert.ToInt64(bound.Evaluate(0), CultureInfo.InvariantCulture)
                    : throw SqlError.DataType($"range(...) takes integer constants, not {bound.Name} ({bound.Type.Sql}).");
            }).ToList();
            return values.Count switch
            {
                1 => (0, values[0], 1),
                2 => (values[0], values[1], 1),
                3 or 4 => values[2] == 0
                    ? throw new SqlError("FAILED_FUNCTION_CALL", "range(...): the step must not be 0.", "38000")
                    : (values[0], values[1], values[2]),
                _ => throw new SqlError("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", $"The `range` requires [1, 2, 3, 4] parameters but the actual number is {values.Count}.", "42605"),
            };
        }

        /// <summary>Rows of range(start, end, step): the values start, start + step, ... before end.</summary>
        public static long RangeRows(long start, long end, long step)
        {
            if ((step > 0 && end <= start) || (step < 0 && end >= start))
            {
                return 0;
            }

            decimal span = (decimal)end - start;
            return (long)Math.Ceiling(span / step);
        }

        private static QuerySpec PlanSet(SetStatement set, SessionContext session)
        {
            var fields = new[] { new SqlField("key", SqlType.String, false), new SqlField("value", SqlType.String) };
            List<object?[]> rows;
            if (set.Key == null)
            {
                rows = session.Configuration.Select(kv => new object?[] { kv.Key, kv.Value }).ToList();
            }
            else if (set.Value == null)
            {
                rows = new List<object?[]> { new object?[] { set.Key, session.Get(set.Key) ?? "<undefined>" } };
            }
            else
            {
                session.Set(set.Key, set.Value);
                rows = new List<object?[]> { new object?[] { set.Key, set.Value } };
            }

            return Fixed("set", fields, rows);
        }

        private static QuerySpec PlanUse(UseStatement use, SessionContext session)
        {
            string catalog = use.Catalog ?? session.Catalog;
            if (!MockCatalog.CatalogExists(catalog))
            {
                throw new SqlError("NO_SUCH_CATALOG_EXCEPTION", $"Catalog '{catalog}' was not found.", "42704");
            }

            if (use.Schema != null && !MockCatalog.SchemaExists(catalog, use.Schema))
            {
                throw new SqlError("SCHEMA_NOT_FOUND", $"The schema `{catalog}`.`{use.Schema}` cannot be found.", "42704");
            }

            session.Use(use.Catalog, use.Schema);
            return Fixed("use", new[] { new SqlField("result", SqlType.String) }, Array.Empty<object?[]>()) with { Kind = StatementKind.NoResult };
        }

        /// <summary>The answer of a command (SHOW, DESCRIBE, SET, a catalog RPC): fixed rows made for this statement, inline, not cached.</summary>
        public static QuerySpec Fixed(string name, IReadOnlyList<SqlField> fields, IReadOnlyList<object?[]> rows) => new QuerySpec
        {
            Kind = StatementKind.Command,
            Name = name,
            Dataset = new DatasetSpec { Rows = rows.Count, Table = TableDefinition.Of(name, fields, rows) },
            Mode = ResultMode.Inline,
            Cacheable = false,
        };

        /// <summary>The CloudFetch file size target of a SQL result: the client's maxBytesPerFile, as a warehouse honours it (20 MB without it).</summary>
        private static long FileBytes(StatementContext context) =>
            context.MaxBytesPerFile is long bytes && bytes >= 1024 ? Math.Min(bytes, DatasetSpec.DefaultTargetFileBytes * 8) : DatasetSpec.DefaultTargetFileBytes;

        private static DateTimeOffset TruncateToMicros(DateTimeOffset time) => new DateTimeOffset(time.UtcTicks - (time.UtcTicks % 10), TimeSpan.Zero);
    }
}
