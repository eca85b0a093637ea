using System.Numerics;

namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>
    /// An expression with its Spark type, nullability and column name (Spark's auto-generated alias), and its value at any
    /// row of the source: a pure function of the row number, like every generated value. Constant expressions are
    /// evaluated once, when bound, so their errors (DIVIDE_BY_ZERO, CAST_INVALID_INPUT) answer the statement.
    /// </summary>
    public sealed record BoundExpr(SqlType Type, bool Nullable, string Name, Func<long, object?> Evaluate, bool Constant);

    /// <summary>The columns an expression can name (the FROM source's), and what the session functions answer.</summary>
    public sealed record BindingScope(IReadOnlyList<(string? Qualifier, TableColumn Column)> Columns, SessionContext Session, DateTimeOffset Now)
    {
        public static BindingScope Empty(SessionContext session, DateTimeOffset now) => new BindingScope(Array.Empty<(string?, TableColumn)>(), session, now);
    }

    public static class SqlBinder
    {
        public static BoundExpr Bind(SqlExpr expression, BindingScope scope)
        {
            BoundExpr bound = BindCore(expression, scope);
            if (bound.Constant)
            {
                object? value = bound.Evaluate(0);
                return bound with { Evaluate = _ => value, Nullable = value == null };
            }

            return bound;
        }

        private static BoundExpr BindCore(SqlExpr expression, BindingScope scope) => expression switch
        {
            LiteralExpr literal => new BoundExpr(literal.Type, literal.Value == null, literal.Name, _ => literal.Value, true),
            ColumnRefExpr column => BindColumn(column, scope),
            CastExpr cast => BindCast(cast, scope),
            UnaryExpr unary => BindUnary(unary, scope),
            BinaryExpr binary => BindBinary(binary, scope),
            IsNullExpr isNull => BindIsNull(isNull, scope),
            FunctionExpr function => BindFunction(function, scope),
            _ => throw SqlError.Syntax(expression.GetType().Name, expression.Position),
        };

        private static BoundExpr BindColumn(ColumnRefExpr column, BindingScope scope)
        {
            string name = column.Parts[^1];
            string? qualifier = column.Parts.Count > 1 ? column.Parts[^2] : null;
            var matches = scope.Columns
                .Where(c => c.Column.Field.Name.Equals(name, StringComparison.OrdinalIgnoreCase)
                    && (qualifier == null || (c.Qualifier != null && c.Qualifier.Equals(qualifier, StringComparison.OrdinalIgnoreCase))))
                .ToList();
            if (matches.Count == 0)
            {
                string candidates = string.Join(", ", scope.Columns.Select(c => $"`{c.Column.Field.Name}`"));
                throw SqlError.ColumnNotFound($"`{string.Join("`.`", column.Parts)}`", candidates);
            }

            if (matches.Count > 1)
            {
                throw new SqlError("AMBIGUOUS_REFERENCE", $"Reference `{name}` is ambiguous.", "42704");
            }

            TableColumn source = matches[0].Column;
            return new BoundExpr(source.Field.Type, source.Field.Nullable, source.Field.Name, source.Value, false);
        }

        private static BoundExpr BindCast(CastExpr cast, BindingScope scope)
        {
            BoundExpr operand = Bind(cast.Operand, scope);
            if (!SqlCast.CanCast(operand.Type, cast.Target))
            {
                throw SqlError.DataType($"Cannot resolve \"CAST({operand.Name} AS {cast.Target.Sql})\" due to data type mismatch: cannot cast {operand.Type.Sql} to {cast.Target.Sql}.");
            }

            string name = $"{(cast.Try ? "TRY_CAST" : "CAST")}({operand.Name} AS {cast.Target.Sql})";
            return new BoundExpr(cast.Target, operand.Nullable || cast.Try, name, row => SqlCast.Cast(operand.Evaluate(row), operand.Type, cast.Target, cast.Try), operand.Constant);
        }

        private static BoundExpr BindUnary(UnaryExpr unary, BindingScope scope)
        {
            BoundExpr operand = Bind(unary.Operand, scope);
            if (unary.Operator == "NOT")
            {
                Expect(operand, SqlTypeKind.Boolean, "NOT");
                return new BoundExpr(SqlType.Boolean, operand.Nullable, $"(NOT {operand.Name})", row => operand.Evaluate(row) is bool b ? !b : null, operand.Constant);
            }

            if (!operand.Type.IsNumeric && !operand.Type.IsInterval && operand.Type.Kind != SqlTypeKind.Void)
            {
                throw SqlError.DataType($"Cannot resolve \"(- {operand.Name})\": the operand is {operand.Type.Sql}, not a number.");
            }

            SqlType type = operand.Type.Kind == SqlTypeKind.Void ? SqlType.Double : operand.Type;
            return new BoundExpr(type, operand.Nullable, $"(- {operand.Name})", row => SqlArithmetic.Negate(operand.Evaluate(row), type), operand.Constant);
        }

        private static BoundExpr BindIsNull(IsNullExpr isNull, BindingScope scope)
        {
            BoundExpr operand = Bind(isNull.Operand, scope);
            string name = $"({operand.Name} IS {(isNull.Negated ? "NOT " : string.Empty)}NULL)";
            return new BoundExpr(SqlType.Boolean, false, name, row => (operand.Evaluate(row) == null) != isNull.Negated, operand.Constant);
        }

        private static BoundExpr BindBinary(BinaryExpr binary, BindingScope scope)
        {
            BoundExpr left = Bind(binary.Left, scope);
            BoundExpr right = Bind(binary.Right, scope);
            string name = $"({left.Name} {binary.Operator} {right.Name})";
            bool constant = left.Constant && right.Constant;
            bool nullable = left.Nullable || right.Nullable;
            switch (binary.Operator)
            {
                case "AND" or "OR":
                    Expect(left, SqlTypeKind.Boolean, binary.Operator);
                    Expect(right, SqlTypeKind.Boolean, binary.Operator);
                    bool and = binary.Operator == "AND";
                    return new BoundExpr(SqlType.Boolean, nullable, name, row => SqlArithmetic.Logic(and, left.Evaluate(row), right.Evaluate(row)), constant);
                case "=" or "<>" or "<" or ">" or "<=" or ">=" or "<=>":
                    SqlType common = SqlTypeRules.Wider(left.Type, right.Type);
                    return new BoundExpr(SqlType.Boolean, binary.Operator != "<=>" && nullable, name,
                        row => SqlArithmetic.Compare(binary.Operator, left.Evaluate(row), left.Type, right.Evaluate(row), right.Type, common), constant);
                case "||":
                    return new BoundExpr(SqlType.String, nullable, $"concat({left.Name}, {right.Name})",
                        row => left.Evaluate(row) is object l && right.Evaluate(row) is object r
                            ? SqlCast.Cast(l, left.Type, SqlType.String)!.ToString() + SqlCast.Cast(r, right.Type, SqlType.String)
                            : null,
                        constant);
                default:
                    SqlType type = SqlArithmetic.ResultType(binary.Operator, left.Type, right.Type, name);
                    return new BoundExpr(type, nullable, name,
                        row => SqlArithmetic.Apply(binary.Operator, left.Evaluate(row), left.Type, right.Evaluate(row), right.Type, type), constant);
            }
        }

        private static BoundExpr BindFunction(FunctionExpr function, BindingScope scope)
        {
            List<BoundExpr> args = function.Arguments.Select(a => Bind(a, scope)).ToList();
            bool allConstant = args.All(a => a.Constant);
            string Call(string name) => $"{name}({string.Join(", ", args.Select(a => a.Name))})";
            switch (function.Name)
            {
                case "current_catalog":
                    return Constant(SqlType.String, scope.Session.Catalog, "current_catalog()");
                case "current_schema" or "current_database":
                    return Constant(SqlType.String, scope.Session.Schema, $"{function.Name}()");
                case "current_user" or "user" or "session_user":
                    return Constant(SqlType.String, SessionContext.User, $"{function.Name}()");
                case "current_timestamp" or "now" or "localtimestamp":
                    return Constant(SqlType.Timestamp, scope.Now, $"{function.Name}()");
                case "current_date" or "curdate":
                    return Constant(SqlType.Date, DateOnly.FromDateTime(scope.Now.UtcDateTime), $"{function.Name}()");
                case "version":
                    return Constant(SqlType.String, "3.5.0 MockDatabricks", "version()");
                case "array":
                    SqlType element = SqlTypeRules.Wider(args.Select(a => a.Type));
                    return new BoundExpr(SqlType.Array(element), false, Call("array"),
                        row => args.Select(a => SqlCast.Cast(a.Evaluate(row), a.Type, element)).ToList(), allConstant);
                case "map":
                    if (args.Count % 2 != 0)
                    {
                        throw SqlError.DataType("map expects a positive even number of arguments.");
                    }

                    SqlType key = SqlTypeRules.Wider(args.Where((_, i) => i % 2 == 0).Select(a => a.Type));
                    SqlType value = SqlTypeRules.Wider(args.Where((_, i) => i % 2 == 1).Select(a => a.Type));
                    return new BoundExpr(SqlType.Map(key, value), false, Call("map"),
                        row => Enumerable.Range(0, args.Count / 2)
                            .Select(i => new KeyValuePair<object?, object?>(SqlCast.Cast(args[2 * i].Evaluate(row), args[2 * i].Type, key), SqlCast.Cast(args[(2 * i) + 1].Evaluate(row), args[(2 * i) + 1].Type, value)))
                            .ToList(),
                        allConstant);
                case "struct":
                    var fields = args.Select((a, i) => new SqlField(function.ArgumentNames[i] ?? (function.Arguments[i] is ColumnRefExpr c ? c.Parts[^1] : $"col{i + 1}"), a.Type, a.Nullable)).ToList();
                    return new BoundExpr(SqlType.Struct(fields), false, Call("struct"), row => args.Select(a => a.Evaluate(row)).ToArray(), allConstant);
                case "named_struct":
                    if (args.Count % 2 != 0 || args.Where((_, i) => i % 2 == 0).Any(a => !a.Constant || a.Type.Kind != SqlTypeKind.String))
                    {
                        throw SqlError.DataType("named_struct expects pairs of a constant string name and a value.");
                    }

                    var named = Enumerable.Range(0, args.Count / 2).Select(i => new SqlField((string)args[2 * i].Evaluate(0)!, args[(2 * i) + 1].Type, args[(2 * i) + 1].Nullable)).ToList();
                    return new BoundExpr(SqlType.Struct(named), false, Call("named_struct"),
                        row => Enumerable.Range(0, args.Count / 2).Select(i => args[(2 * i) + 1].Evaluate(row)).ToArray(), allConstant);
                case "sequence":
                    return BindSequence(args, Call("sequence"), allConstant);
                case "coalesce":
                    SqlType wider = SqlTypeRules.Wider(args.Select(a => a.Type));
                    return new BoundExpr(wider, args.All(a => a.Nullable), Call("coalesce"),
                        row => args.Select(a => SqlCast.Cast(a.Evaluate(row), a.Type, wider)).FirstOrDefault(v => v != null), allConstant);
                case "concat":
                    return new BoundExpr(SqlType.String, args.Any(a => a.Nullable), Call("concat"),
                        row =>
                        {
                            var text = new StringBuilder();
                            foreach (BoundExpr a in args)
                            {
                                if (a.Evaluate(row) is not object v)
                                {
                                    return null;
                                }

                                text.Append(SqlCast.Cast(v, a.Type, SqlType.String));
                            }

                            return text.ToString();
                        },
                        allConstant);
                case "upper" or "ucase" or "lower" or "lcase":
                    Arity(function, args, 1);
                    bool upper = function.Name is "upper" or "ucase";
                    return new BoundExpr(SqlType.String, args[0].Nullable, Call(function.Name),
                        row => SqlCast.Cast(args[0].Evaluate(row), args[0].Type, SqlType.String) is string s ? (upper ? s.ToUpperInvariant() : s.ToLowerInvariant()) : null, allConstant);
                case "length" or "char_length" or "character_length":
                    Arity(function, args, 1);
                    return new BoundExpr(SqlType.Int, args[0].Nullable, Call(function.Name),
                        row => SqlCast.Cast(args[0].Evaluate(row), args[0].Type, SqlType.String) is string s ? new StringInfo(s).LengthInTextElements : null, allConstant);
                case "abs":
                    Arity(function, args, 1);
                    return new BoundExpr(args[0].Type, args[0].Nullable, Call("abs"),
                        row => args[0].Evaluate(row) is object v && SqlArithmetic.Sign(v) < 0 ? SqlArithmetic.Negate(v, args[0].Type) : args[0].Evaluate(row), allConstant);
                case "typeof":
                    Arity(function, args, 1);
                    return Constant(SqlType.String, args[0].Type.Sql.ToLowerInvariant(), Call("typeof"));
                case "timestamp" or "date" or "string" or "int" or "bigint" or "smallint" or "tinyint" or "double" or "float" or "decimal"
                    or "boolean" or "binary" or "to_timestamp" or "to_date":
                    // Spark's type-named cast functions: timestamp('2023-01-15 10:30:45') is CAST(... AS TIMESTAMP).
                    Arity(function, args, 1);
                    SqlType target = SqlParser.ParseType(function.Name.Replace("to_", string.Empty, StringComparison.Ordinal));
                    if (!SqlCast.CanCast(args[0].Type, target))
                    {
                        throw SqlError.DataType($"Cannot resolve \"{Call(function.Name)}\": cannot cast {args[0].Type.Sql} to {target.Sql}.");
                    }

                    return new BoundExpr(target, args[0].Nullable, Call(function.Name), row => SqlCast.Cast(args[0].Evaluate(row), args[0].Type, target), allConstant);
                case "count" or "sum" or "avg" or "min" or "max":
                    throw SqlError.NotSupported($"the aggregate {function.Name.ToUpperInvariant()}(...) here (only SELECT COUNT(*) FROM <source>)");
                case "explode":
                    throw SqlError.NotSupported("explode(...) other than FROM (SELECT explode(sequence(a, b)))");
                default:
                    throw SqlError.UnknownFunction(function.Name);
            }
        }

        /// <summary>sequence(start, stop [, step]) of integers: an ARRAY of the arguments' type.</summary>
        private static BoundExpr BindSequence(List<BoundExpr> args, string name, bool constant)
        {
            if (args.Count is < 2 or > 3 || args.Any(a => !a.Type.IsIntegral))
            {
                throw SqlError.NotSupported("sequence(...) other than of integers");
            }

            SqlType type = SqlTypeRules.Wider(args.Select(a => a.Type));
            return new BoundExpr(SqlType.Array(type), args.Any(a => a.Nullable), name, row =>
            {
                long start = Convert.ToInt64(args[0].Evaluate(row), CultureInfo.InvariantCulture);
                long stop = Convert.ToInt64(args[1].Evaluate(row), CultureInfo.InvariantCulture);
                long step = args.Count == 3 ? Convert.ToInt64(args[2].Evaluate(row), CultureInfo.InvariantCulture) : (stop >= start ? 1 : -1);
                return SequenceValues(start, stop, step).Select(v => SqlCast.FitIntegral(v, type, v.ToString(CultureInfo.InvariantCulture), "BIGINT")).ToList();
            }, constant);
        }

        /// <summary>The values of sequence(start, stop, step): stop included when reached; a step of the wrong sign is an error.</summary>
        public static IEnumerable<long> SequenceValues(long start, long stop, long step)
        {
            if (step == 0 || (stop > start && step < 0) || (stop < start && step > 0))
            {
                throw new SqlError("INVALID_PARAMETER_VALUE.SEQUENCE_WRONG_INPUT_TYPES", $"Illegal sequence boundaries: {start} to {stop} by {step}.", "22023");
            }

            for (long value = start; step > 0 ? value <= stop : value >= stop; value += step)
            {
                yield return value;
            }
        }

        private static BoundExpr Constant(SqlType type, object value, string name) => new BoundExpr(type, false, name, _ => value, true);

        private static void Arity(FunctionExpr function, List<BoundExpr> args, int count)
        {
            if (args.Count != count)
            {
                throw new SqlError("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", $"The `{function.Name}` requires {count} parameters but the actual number is {args.Count}.", "42605");
            }
        }

        private static void Expect(BoundExpr operand, SqlTypeKind kind, string op)
        {
            if (operand.Type.Kind != kind && operand.Type.Kind != SqlTypeKind.Void)
            {
                throw SqlError.DataType($"The operand {operand.Name} of {op} is {operand.Type.Sql}, not BOOLEAN.");
            }
        }
    }
}
