using System.Collections;
using System.Numerics;

namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>
    /// Arithmetic, comparison and logic with Spark's ANSI semantics: integer results keep the wider integer type and
    /// overflow is an error, / gives DOUBLE for integers and a DECIMAL by Spark's precision rules for decimals, any
    /// division by zero is DIVIDE_BY_ZERO, DIV is integral division (BIGINT).
    /// </summary>
    public static class SqlArithmetic
    {
        public static SqlType ResultType(string op, SqlType left, SqlType right, string expression)
        {
            if (left.Kind == SqlTypeKind.Void && right.Kind == SqlTypeKind.Void)
            {
                return SqlType.Double;
            }

            SqlType l = left.Kind == SqlTypeKind.Void ? right : left;
            SqlType r = right.Kind == SqlTypeKind.Void ? left : right;
            if (!l.IsNumeric || !r.IsNumeric)
            {
                throw SqlError.DataType($"Cannot resolve \"{expression}\" due to data type mismatch: the operands are {left.Sql} and {right.Sql}, not numbers.");
            }

            if (op == "DIV")
            {
                return SqlType.BigInt;
            }

            SqlType wider = SqlTypeRules.Wider(l, r);
            if (wider.Kind is SqlTypeKind.Double or SqlTypeKind.Float)
            {
                return op == "/" ? SqlType.Double : wider;
            }

            if (wider.Kind == SqlTypeKind.Decimal)
            {
                return SqlTypeRules.DecimalResult(op, l, r);
            }

            return op == "/" ? SqlType.Double : wider;
        }

        public static object? Apply(string op, object? left, SqlType leftType, object? right, SqlType rightType, SqlType result)
        {
            if (left == null || right == null)
            {
                return null;
            }

            switch (result.Kind)
            {
                case SqlTypeKind.Double or SqlTypeKind.Float:
                    double a = SqlCast.ToDouble(left, leftType);
                    double b = SqlCast.ToDouble(right, rightType);
                    if (op is "/" or "%" && b == 0)
                    {
                        throw SqlError.DivideByZero();
                    }

                    double value = op switch
                    {
                        "+" => a + b,
                        "-" => a - b,
                        "*" => a * b,
                        "/" => a / b,
                        _ => a % b, // Java's and .NET's remainder agree: the sign of the dividend

                    };
                    return result.Kind == SqlTypeKind.Float ? (float)value : value;
                case SqlTypeKind.Decimal:
                    return DecimalOp(op, SqlCast.ToDecimal(left, leftType), SqlCast.ToDecimal(right, rightType), result);
                default:
                    BigInteger x = Integral(left);
                    BigInteger y = Integral(right);
                    if (op is "DIV" or "%" && y.IsZero)
                    {
                        throw SqlError.DivideByZero();
                    }

                    BigInteger exact = op switch
                    {
                        "+" => x + y,
                        "-" => x - y,
                        "*" => x * y,
                        "DIV" => BigInteger.Divide(x, y),
                        _ => BigInteger.Remainder(x, y),
                    };
                    try
                    {
                        return SqlCast.FitIntegral(exact, result, exact.ToString(CultureInfo.InvariantCulture), result.Sql);
                    }
                    catch (SqlError)
                    {
                        throw SqlError.ArithmeticOverflow($"{result.Sql.ToLowerInvariant()} {op} of {x} and {y}");
                    }
            }
        }

        private static DecimalValue DecimalOp(string op, DecimalValue a, DecimalValue b, SqlType result)
        {
            int scale = Math.Max(a.Scale, b.Scale);
            DecimalValue exact;
            switch (op)
            {
                case "+":
                    exact = new DecimalValue(a.Rescale(scale).Unscaled + b.Rescale(scale).Unscaled, scale);
                    break;
                case "-":
                    exact = new DecimalValue(a.Rescale(scale).Unscaled - b.Rescale(scale).Unscaled, scale);
                    break;
                case "*":
                    exact = new DecimalValue(a.Unscaled * b.Unscaled, a.Scale + b.Scale);
                    break;
                case "/":
                    if (b.Unscaled.IsZero)
                    {
                        throw SqlError.DivideByZero();
                    }

                    // a / b at the result's scale plus one digit, then rounded half up.
                    int digits = result.Scale + 1;
                    BigInteger numerator = a.Unscaled * BigInteger.Pow(10, digits + b.Scale);
                    BigInteger denominator = b.Unscaled * BigInteger.Pow(10, a.Scale);
                    exact = new DecimalValue(BigInteger.Divide(numerator, denominator), digits);
                    break;
                default:
                    if (b.Unscaled.IsZero)
                    {
                        throw SqlError.DivideByZero();
                    }

                    exact = new DecimalValue(BigInteger.Remainder(a.Rescale(scale).Unscaled, b.Rescale(scale).Unscaled), scale);
                    break;
            }

            DecimalValue rounded = exact.Rescale(result.Scale);
            if (BigInteger.Abs(rounded.Unscaled) >= BigInteger.Pow(10, result.Precision))
            {
                throw SqlError.ArithmeticOverflow($"{result.Sql} {op}");
            }

            return rounded;
        }

        private static BigInteger Integral(object value) => value switch
        {
            sbyte v => v,
            short v => v,
            int v => v,
            long v => v,
            _ => new BigInteger(Convert.ToInt64(value, CultureInfo.InvariantCulture)),
        };

        public static object? Negate(object? value, SqlType type) => value switch
        {
            null => null,
            sbyte v => v == sbyte.MinValue ? throw SqlError.ArithmeticOverflow("tinyint negation") : (sbyte)-v,
            short v => v == short.MinValue ? throw SqlError.ArithmeticOverflow("smallint negation") : (short)-v,
            int v => v == int.MinValue ? throw SqlError.ArithmeticOverflow("int negation") : -v,
            long v => v == long.MinValue ? throw SqlError.ArithmeticOverflow("bigint negation") : -v,
            float v => -v,
            double v => -v,
            DecimalValue v => new DecimalValue(-v.Unscaled, v.Scale),
            YearMonthInterval v => new YearMonthInterval(-v.Months),
            DayTimeInterval v => new DayTimeInterval(-v.Micros),
            _ => throw SqlError.DataType($"Cannot negate a {type.Sql}."),
        };

        public static int Sign(object value) => value switch
        {
            DecimalValue d => d.Unscaled.Sign,
            double d => Math.Sign(d),
            float f => Math.Sign(f),
            _ => Math.Sign(Convert.ToInt64(value, CultureInfo.InvariantCulture)),
        };

        /// <summary>Three-valued AND / OR.</summary>
        public static object? Logic(bool and, object? left, object? right)
        {
            bool? l = (bool?)left;
            bool? r = (bool?)right;
            if (and)
            {
                return l == false || r == false ? false : l == null || r == null ? null : true;
            }

            return l == true || r == true ? true : l == null || r == null ? null : false;
        }

        public static object? Compare(string op, object? left, SqlType leftType, object? right, SqlType rightType, SqlType common)
        {
            if (op == "<=>")
            {
                return left == null || right == null ? left == null && right == null : Order(left, leftType, right, rightType, common) == 0;
            }

            if (left == null || right == null)
            {
                return null;
            }

            int order = Order(left, leftType, right, rightType, common);
            return op switch
            {
                "=" => order == 0,
                "<>" => order != 0,
                "<" => order < 0,
                ">" => order > 0,
                "<=" => order <= 0,
                _ => order >= 0,
            };
        }

        private static int Order(object left, SqlType leftType, object right, SqlType rightType, SqlType common)
        {
            object? l = SqlCast.Cast(left, leftType, common);
            object? r = SqlCast.Cast(right, rightType, common);
            return (l, r) switch
            {
                (DecimalValue a, DecimalValue b) => a.Rescale(Math.Max(a.Scale, b.Scale)).Unscaled.CompareTo(b.Rescale(Math.Max(a.Scale, b.Scale)).Unscaled),
                (string a, string b) => string.CompareOrdinal(a, b),
                (IComparable a, _) => a.CompareTo(r),
                _ => StructuralComparisons.StructuralComparer.Compare(l, r),
            };
        }
    }
}
