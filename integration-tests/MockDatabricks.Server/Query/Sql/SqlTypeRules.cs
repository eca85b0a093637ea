namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>Spark's type coercion for the expressions the mock evaluates: wider common types and decimal result types.</summary>
    public static class SqlTypeRules
    {
        private const int MaxPrecision = 38;

        /// <summary>The type two values meet in (ARRAY(...) elements, MAP keys and values, comparison and arithmetic operands).</summary>
        public static SqlType Wider(SqlType a, SqlType b)
        {
            if (a == b)
            {
                return a;
            }

            if (a.Kind == SqlTypeKind.Void)
            {
                return b;
            }

            if (b.Kind == SqlTypeKind.Void)
            {
                return a;
            }

            if (a.IsNumeric && b.IsNumeric)
            {
                return WiderNumeric(a, b);
            }

            if (a.IsStringLike || b.IsStringLike)
            {
                return SqlType.String;
            }

            if ((a.Kind, b.Kind) is (SqlTypeKind.Date, SqlTypeKind.Timestamp) or (SqlTypeKind.Timestamp, SqlTypeKind.Date))
            {
                return SqlType.Timestamp;
            }

            if (a.Kind == b.Kind)
            {
                switch (a.Kind)
                {
                    case SqlTypeKind.Array:
                        return SqlType.Array(Wider(a.Element!, b.Element!));
                    case SqlTypeKind.Map:
                        return SqlType.Map(Wider(a.Key!, b.Key!), Wider(a.Element!, b.Element!));
                    case SqlTypeKind.Struct when a.Fields.Count == b.Fields.Count:
                        return SqlType.Struct(a.Fields.Zip(b.Fields).Select(p => new SqlField(p.First.Name, Wider(p.First.Type, p.Second.Type), p.First.Nullable || p.Second.Nullable)).ToList());
                    case SqlTypeKind.IntervalYearMonth or SqlTypeKind.IntervalDayTime:
                        return a;
                }
            }

            throw SqlError.DataType($"The data types {a.Sql} and {b.Sql} have no common type.");
        }

        public static SqlType Wider(IEnumerable<SqlType> types) => types.Aggregate(SqlType.Void, Wider);

        private static SqlType WiderNumeric(SqlType a, SqlType b)
        {
            if (a.Kind == SqlTypeKind.Double || b.Kind == SqlTypeKind.Double)
            {
                return SqlType.Double;
            }

            if (a.Kind == SqlTypeKind.Float || b.Kind == SqlTypeKind.Float)
            {
                return a.Kind == SqlTypeKind.Decimal || b.Kind == SqlTypeKind.Decimal ? SqlType.Double : SqlType.Float;
            }

            if (a.Kind == SqlTypeKind.Decimal || b.Kind == SqlTypeKind.Decimal)
            {
                SqlType x = AsDecimal(a);
                SqlType y = AsDecimal(b);
                int scale = Math.Max(x.Scale, y.Scale);
                int range = Math.Max(x.Precision - x.Scale, y.Precision - y.Scale);
                return SqlType.Decimal(Math.Min(MaxPrecision, range + scale), Math.Min(scale, MaxPrecision));
            }

            return Rank(a) >= Rank(b) ? a : b;
        }

        /// <summary>An integral type as the DECIMAL that holds all its values (Spark's DecimalType.forType).</summary>
        public static SqlType AsDecimal(SqlType type) => type.Kind switch
        {
            SqlTypeKind.Decimal => type,
            SqlTypeKind.TinyInt => SqlType.Decimal(3, 0),
            SqlTypeKind.SmallInt => SqlType.Decimal(5, 0),
            SqlTypeKind.Int => SqlType.Decimal(10, 0),
            SqlTypeKind.BigInt => SqlType.Decimal(20, 0),
            SqlTypeKind.Float => SqlType.Decimal(14, 7),
            _ => SqlType.Decimal(30, 15),
        };

        private static int Rank(SqlType type) => type.Kind switch
        {
            SqlTypeKind.TinyInt => 1,
            SqlTypeKind.SmallInt => 2,
            SqlTypeKind.Int => 3,
            _ => 4,
        };

        /// <summary>The result type of a decimal +, -, *, /, % (Spark's DecimalPrecision, with precision loss allowed).</summary>
        public static SqlType DecimalResult(string op, SqlType left, SqlType right)
        {
            SqlType a = AsDecimal(left);
            SqlType b = AsDecimal(right);
            int p1 = a.Precision, s1 = a.Scale, p2 = b.Precision, s2 = b.Scale;
            (int precision, int scale) = op switch
            {
                "+" or "-" => (Math.Max(p1 - s1, p2 - s2) + Math.Max(s1, s2) + 1, Math.Max(s1, s2)),
                "*" => (p1 + p2 + 1, s1 + s2),
                "/" => (p1 - s1 + s2 + Math.Max(6, s1 + p2 + 1), Math.Max(6, s1 + p2 + 1)),
                _ => (Math.Min(p1 - s1, p2 - s2) + Math.Max(s1, s2), Math.Max(s1, s2)),
            };
            if (precision <= MaxPrecision)
            {
                return SqlType.Decimal(Math.Max(precision, 1), scale);
            }

            int integerDigits = precision - scale;
            int minimumScale = Math.Min(scale, 6);
            int adjustedScale = Math.Max(MaxPrecision - integerDigits, minimumScale);
            return SqlType.Decimal(MaxPrecision, adjustedScale);
        }
    }
}
