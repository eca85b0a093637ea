namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>
    /// The mock's one SQL front end, for every protocol: a recursive-descent reader of the Spark SQL the mock answers (see
    /// integration-tests/README.md, "SQL" and "Statement grammar"): SELECT lists of expressions over nothing, range(...), a
    /// table, a subquery or VALUES (any of them aliased, with a column alias list), or one of the mock's own data sets
    /// (mock.&lt;preset&gt; WITH (...)), with LIMIT; SET; USE; SHOW (Spark's and the driver's metadata forms,
    /// SqlParser.Show.cs); DESCRIBE. Literals get Spark's types here (1 INT, 1L BIGINT, 1.5 DECIMAL(2,1), 1.5D DOUBLE,
    /// 'x' STRING, DATE '...', INTERVAL ...). DDL and DML are recognised and refused.
    /// </summary>
    public sealed partial class SqlParser
    {
        private static readonly HashSet<string> s_reserved = new HashSet<string>(StringComparer.OrdinalIgnoreCase)
        {
            "FROM", "WHERE", "LIMIT", "GROUP", "ORDER", "HAVING", "UNION", "JOIN", "CROSS", "INNER", "LEFT", "RIGHT", "FULL",
            "ON", "AS", "SELECT", "OFFSET", "WINDOW", "QUALIFY", "EXCEPT", "INTERSECT", "LATERAL", "SORT", "CLUSTER", "DISTRIBUTE",
        };

        private static readonly string[] s_unsupportedStarts =
        {
            "CREATE", "INSERT", "DROP", "DELETE", "UPDATE", "MERGE", "ALTER", "TRUNCATE", "REPLACE", "COPY", "OPTIMIZE",
            "VACUUM", "GRANT", "REVOKE", "CACHE", "UNCACHE", "REFRESH", "MSCK", "ANALYZE", "EXPLAIN", "WITH",
            "VALUES", "CALL", "COMMENT", "RESTORE", "CLONE",
        };

        private readonly string _text;
        private readonly List<Token> _tokens;
        private int _next;

        private SqlParser(string text)
        {
            _text = text;
            _tokens = SqlLexer.Tokenize(text);
        }

        private Token Current => _tokens[_next];

        public static SqlStatement Parse(string text)
        {
            var parser = new SqlParser(text);
            SqlStatement statement = parser.ParseStatement();
            while (parser.Current.IsSymbol(";"))
            {
                parser._next++;
            }

            if (parser.Current.Kind != TokenKind.End)
            {
                throw SqlError.Syntax(parser.Current.ToString(), parser.Current.Position);
            }

            return statement;
        }

        /// <summary>A data type as written in CAST(... AS type) or a column definition.</summary>
        public static SqlType ParseType(string text)
        {
            var parser = new SqlParser(text);
            SqlType type = parser.ReadType();
            parser.Expect(TokenKind.End);
            return type;
        }

        private SqlStatement ParseStatement()
        {
            Token first = Current;
            if (first.Is("SELECT"))
            {
                return ReadSelect();
            }

            if (first.Is("SET"))
            {
                return ReadSet();
            }

            if (first.Is("USE"))
            {
                return ReadUse();
            }

            if (first.Is("SHOW"))
            {
                return ReadShow();
            }

            if ((first.Is("DESCRIBE") || first.Is("DESC")) && !Peek(1).Is("FUNCTION") && !Peek(1).Is("QUERY") && !Peek(1).Is("SCHEMA")
                && !Peek(1).Is("DATABASE") && !Peek(1).Is("CATALOG") && !Peek(1).Is("HISTORY") && !Peek(1).Is("DETAIL"))
            {
                return ReadDescribe();
            }

            if (first.Kind == TokenKind.Identifier && s_unsupportedStarts.Contains(first.Text, StringComparer.OrdinalIgnoreCase))
            {
                string what = string.Join(" ", _tokens.Skip(_next).TakeWhile(t => t.Kind == TokenKind.Identifier).Take(3).Select(t => t.Text.ToUpperInvariant()));
                _next = _tokens.Count - 1;
                return new UnsupportedStatement(what);
            }

            throw SqlError.Syntax(first.ToString(), first.Position);
        }

        private SelectStatement ReadSelect()
        {
            ExpectKeyword("SELECT");
            if (Current.Is("DISTINCT"))
            {
                throw SqlError.NotSupported("SELECT DISTINCT");
            }

            if (Current.Is("ALL"))
            {
                _next++;
            }

            var items = new List<SelectItem>();
            do
            {
                items.Add(ReadSelectItem());
            }
            while (TrySymbol(","));

            var from = new List<FromItem>();
            if (TryKeyword("FROM"))
            {
                from.Add(ReadFromItem());
                while (true)
                {
                    if (TrySymbol(","))
                    {
                        from.Add(ReadFromItem());
                    }
                    else if (Current.Is("CROSS") && Peek(1).Is("JOIN"))
                    {
                        _next += 2;
                        from.Add(ReadFromItem());
                    }
                    else if (Current.Is("JOIN") || Current.Is("INNER") || Current.Is("LEFT") || Current.Is("RIGHT") || Current.Is("FULL"))
                    {
                        throw SqlError.NotSupported("joins other than CROSS JOIN");
                    }
                    else
                    {
                        break;
                    }
                }
            }

            SqlExpr? where = null;
            if (TryKeyword("WHERE"))
            {
                where = ReadExpression();
            }

            string? unsupported = null;
            foreach (string clause in new[] { "GROUP", "HAVING", "ORDER", "SORT", "CLUSTER", "DISTRIBUTE", "WINDOW", "QUALIFY", "UNION", "EXCEPT", "INTERSECT" })
            {
                if (Current.Is(clause))
                {
                    unsupported = clause + " clauses";
                    SkipUntilLimit();
                }
            }

            long? limit = null;
            if (TryKeyword("LIMIT"))
            {
                if (TryKeyword("ALL"))
                {
                    limit = null;
                }
                else
                {
                    Token number = Expect(TokenKind.Number);
                    limit = long.TryParse(number.Text, NumberStyles.None, CultureInfo.InvariantCulture, out long value)
                        ? value
                        : throw SqlError.Syntax(number.ToString(), number.Position);
                }
            }

            if (Current.Is("OFFSET"))
            {
                unsupported ??= "OFFSET";
                SkipUntilLimit();
            }

            return new SelectStatement(items, from, where, limit, unsupported);
        }

        /// <summary>Skips a clause the mock does not execute (the statement is refused later, with the clause named).</summary>
        private void SkipUntilLimit()
        {
            int depth = 0;
            while (Current.Kind != TokenKind.End && !(depth == 0 && (Current.Is("LIMIT") || Current.IsSymbol(")") || Current.IsSymbol(";"))))
            {
                depth += Current.IsSymbol("(") ? 1 : Current.IsSymbol(")") ? -1 : 0;
                _next++;
            }
        }

        private SelectItem ReadSelectItem()
        {
            if (Current.IsSymbol("*"))
            {
                _next++;
                return new SelectItem(null, null, true, null);
            }

            if (Current.Kind is TokenKind.Identifier or TokenKind.QuotedIdentifier && Peek(1).IsSymbol(".") && Peek(2).IsSymbol("*"))
            {
                string qualifier = Current.Text;
                _next += 3;
                return new SelectItem(null, null, true, qualifier);
            }

            SqlExpr expression = ReadExpression();
            return new SelectItem(expression, ReadAlias(), false, null);
        }

        private string? ReadAlias()
        {
            if (TryKeyword("AS"))
            {
                return ReadName();
            }

            if (Current.Kind == TokenKind.QuotedIdentifier || (Current.Kind == TokenKind.Identifier && !s_reserved.Contains(Current.Text)))
            {
                return ReadName();
            }

            return null;
        }

        private FromItem ReadFromItem()
        {
            if (Current.Is("VALUES"))
            {
                var rows = ReadValues();
                return WithColumnAliases(new ValuesFromItem(rows, ReadAlias()));
            }

            if (TrySymbol("("))
            {
                if (Current.Is("VALUES"))
                {
                    var rows = ReadValues();
                    ExpectSymbol(")");
                    return WithColumnAliases(new ValuesFromItem(rows, ReadAlias()));
                }

                if (!Current.Is("SELECT"))
                {
                    throw SqlError.Syntax(Current.ToString(), Current.Position);
                }

                SelectStatement query = ReadSelect();
                ExpectSymbol(")");
                return WithColumnAliases(new SubqueryFromItem(query, ReadAlias()));
            }

            if (Current.Is("RANGE") && Peek(1).IsSymbol("("))
            {
                _next += 2;
                var arguments = new List<SqlExpr>();
                if (!Current.IsSymbol(")"))
                {
                    do
                    {
                        arguments.Add(ReadExpression());
                    }
                    while (TrySymbol(","));
                }

                ExpectSymbol(")");
                return WithColumnAliases(new RangeFromItem(arguments, ReadAlias()));
            }

            var name = new List<string> { ReadName() };
            while (TrySymbol("."))
            {
                name.Add(ReadName());
            }

            if (Current.IsSymbol("("))
            {
                throw SqlError.UnknownFunction(string.Join(".", name));
            }

            if (name.Count == 2 && name[0].Equals("mock", StringComparison.OrdinalIgnoreCase))
            {
                return new MockDatasetFromItem(name[1], Current.Is("WITH") && Peek(1).IsSymbol("(") ? ReadMockOptions() : null, null);
            }

            return WithColumnAliases(new TableFromItem(name, ReadAlias()));
        }

        /// <summary>WITH (key = value, ...) after a mock data set: the text between the parentheses, as written (values need no SQL form: 4mb, 1_000).</summary>
        private string ReadMockOptions()
        {
            _next++;
            Token open = Current;
            ExpectSymbol("(");
            int depth = 1;
            while (Current.Kind != TokenKind.End)
            {
                depth += Current.IsSymbol("(") ? 1 : Current.IsSymbol(")") ? -1 : 0;
                if (depth == 0)
                {
                    string options = _text.Substring(open.Position + 1, Current.Position - open.Position - 1);
                    _next++;
                    return options;
                }

                _next++;
            }

            throw SqlError.Syntax(Current.ToString(), Current.Position);
        }

        /// <summary>VALUES (expr, ...), (expr, ...): the rows of an inline table (a bare expression is a row of one).</summary>
        private List<IReadOnlyList<SqlExpr>> ReadValues()
        {
            ExpectKeyword("VALUES");
            var rows = new List<IReadOnlyList<SqlExpr>>();
            do
            {
                var row = new List<SqlExpr>();
                if (TrySymbol("("))
                {
                    do
                    {
                        row.Add(ReadExpression());
                    }
                    while (TrySymbol(","));

                    ExpectSymbol(")");
                }
                else
                {
                    row.Add(ReadExpression());
                }

                rows.Add(row);
            }
            while (TrySymbol(","));

            return rows;
        }

        /// <summary>An aliased FROM item's column alias list, (name, ...), when one follows the alias.</summary>
        private FromItem WithColumnAliases(FromItem item)
        {
            if (item.Alias == null || !TrySymbol("("))
            {
                return item;
            }

            var names = new List<string>();
            do
            {
                names.Add(ReadName());
            }
            while (TrySymbol(","));

            ExpectSymbol(")");
            return item with { ColumnAliases = names };
        }

        private SetStatement ReadSet()
        {
            ExpectKeyword("SET");
            if (Current.Kind == TokenKind.End || Current.IsSymbol(";"))
            {
                return new SetStatement(null, null);
            }

            // SET key = value, where key is dotted words (spark.sql.x) and value runs to the end; the driver quotes it in backticks.
            var key = new System.Text.StringBuilder();
            while (Current.Kind != TokenKind.End && !Current.IsSymbol("=") && !Current.IsSymbol(";"))
            {
                key.Append(Current.Kind == TokenKind.Symbol ? Current.Text : Current.Text);
                _next++;
            }

            if (!TrySymbol("="))
            {
                return new SetStatement(key.ToString(), null);
            }

            var value = new System.Text.StringBuilder();
            while (Current.Kind != TokenKind.End && !Current.IsSymbol(";"))
            {
                if (value.Length > 0 && Current.Kind != TokenKind.Symbol && Previous.Kind != TokenKind.Symbol)
                {
                    value.Append(' ');
                }

                value.Append(Current.Text);
                _next++;
            }

            return new SetStatement(key.ToString(), value.ToString());
        }

        private UseStatement ReadUse()
        {
            ExpectKeyword("USE");
            bool catalog = TryKeyword("CATALOG");
            if (!catalog && !TryKeyword("SCHEMA"))
            {
                TryKeyword("DATABASE");
            }

            var name = new List<string> { ReadName() };
            while (TrySymbol("."))
            {
                name.Add(ReadName());
            }

            return catalog
                ? new UseStatement(name[0], null)
                : name.Count == 1 ? new UseStatement(null, name[0]) : new UseStatement(name[0], name[1]);
        }

        private SqlStatement ReadDescribe()
        {
            _next++;
            TryKeyword("TABLE");
            bool extended = TryKeyword("EXTENDED") || TryKeyword("FORMATTED");
            var name = new List<string> { ReadName() };
            while (TrySymbol("."))
            {
                name.Add(ReadName());
            }

            bool json = false;
            if (TryKeyword("AS"))
            {
                ExpectKeyword("JSON");
                json = true;
                if (TryKeyword("STATIC"))
                {
                    ExpectKeyword("ONLY");
                }
            }

            return new DescribeStatement(name, extended, json);
        }

        // Expressions, loosest binding first.

        private SqlExpr ReadExpression() => ReadOr();

        private SqlExpr ReadOr() => ReadLeftAssociative(token => token.Is("OR"), ReadAnd);

        private SqlExpr ReadAnd() => ReadLeftAssociative(token => token.Is("AND"), ReadNot);

        /// <summary>
        /// operand (operator operand)*, grouped from the left: a - b - c is (a - b) - c. The expression names the operator
        /// as written, upper-cased (or, div: OR, DIV).
        /// </summary>
        private SqlExpr ReadLeftAssociative(Func<Token, bool> isOperator, Func<SqlExpr> readOperand)
        {
            SqlExpr left = readOperand();
            while (isOperator(Current))
            {
                Token op = Advance();
                left = new BinaryExpr(op.Text.ToUpperInvariant(), left, readOperand(), op.Position);
            }

            return left;
        }

        private SqlExpr ReadNot()
        {
            if (Current.Is("NOT"))
            {
                int position = Advance().Position;
                return new UnaryExpr("NOT", ReadNot(), position);
            }

            return ReadComparison();
        }

        private SqlExpr ReadComparison()
        {
            SqlExpr left = ReadAdditive();
            if (Current.Is("IS"))
            {
                int position = Advance().Position;
                bool negated = TryKeyword("NOT");
                ExpectKeyword("NULL");
                return new IsNullExpr(left, negated, position);
            }

            foreach (string op in new[] { "=", "==", "<>", "!=", "<", ">", "<=", ">=", "<=>" })
            {
                if (Current.IsSymbol(op))
                {
                    int position = Advance().Position;
                    return new BinaryExpr(op == "==" ? "=" : op == "!=" ? "<>" : op, left, ReadAdditive(), position);
                }
            }

            return left;
        }

        private SqlExpr ReadAdditive() =>
            ReadLeftAssociative(token => token.IsSymbol("+") || token.IsSymbol("-") || token.IsSymbol("||"), ReadMultiplicative);

        private SqlExpr ReadMultiplicative() =>
            ReadLeftAssociative(token => token.IsSymbol("*") || token.IsSymbol("/") || token.IsSymbol("%") || token.Is("DIV"), ReadUnary);

        private SqlExpr ReadUnary()
        {
            if (Current.IsSymbol("-") && Peek(1).Kind == TokenKind.Number)
            {
                // Spark's grammar reads the sign as part of a number: -1 is an INT literal named "-1", and -2147483648 an INT.
                int position = Current.Position;
                string digits = Peek(1).Text;
                _next += 2;
                return SqlLiterals.Number("-" + digits, position);
            }

            if (Current.IsSymbol("-") || Current.IsSymbol("+"))
            {
                Token op = Advance();
                SqlExpr operand = ReadUnary();
                return op.Text == "-" ? new UnaryExpr("-", operand, op.Position) : operand;
            }

            return ReadPostfix();
        }

        private SqlExpr ReadPostfix()
        {
            SqlExpr expression = ReadPrimary();
            while (Current.IsSymbol("::"))
            {
                int position = Advance().Position;
                expression = new CastExpr(expression, ReadType(), false, position);
            }

            return expression;
        }

        private SqlExpr ReadPrimary()
        {
            Token token = Current;
            switch (token.Kind)
            {
                case TokenKind.Number:
                    _next++;
                    return NumberLiteral(token);
                case TokenKind.String:
                    _next++;
                    string text = token.Text;
                    while (Current.Kind == TokenKind.String)
                    {
                        // Adjacent string literals concatenate, as in Spark.
                        text += Current.Text;
                        _next++;
                    }

                    return new LiteralExpr(text, SqlType.String, text, token.Position);
                case TokenKind.HexString:
                    _next++;
                    return HexLiteral(token);
                case TokenKind.Symbol when token.Text == "(":
                    _next++;
                    SqlExpr inner = ReadExpression();
                    ExpectSymbol(")");
                    return inner;
                case TokenKind.Identifier or TokenKind.QuotedIdentifier:
                    return ReadIdentifierExpression();
                default:
                    throw SqlError.Syntax(token.ToString(), token.Position);
            }
        }

        private SqlExpr ReadIdentifierExpression()
        {
            Token token = Current;
            if (token.Kind == TokenKind.Identifier)
            {
                string word = token.Text.ToUpperInvariant();
                switch (word)
                {
                    case "NULL":
                        _next++;
                        return new LiteralExpr(null, SqlType.Void, "NULL", token.Position);
                    case "TRUE" or "FALSE":
                        _next++;
                        return new LiteralExpr(word == "TRUE", SqlType.Boolean, word.ToLowerInvariant(), token.Position);
                    case "DATE" or "TIMESTAMP" or "TIMESTAMP_NTZ" or "TIMESTAMP_LTZ" when Peek(1).Kind == TokenKind.String:
                        _next++;
                        Token value = Expect(TokenKind.String);
                        return SqlLiterals.Typed(word, value.Text, token.Position);
                    case "INTERVAL":
                        _next++;
                        return ReadInterval(token.Position);
                    case "CAST" or "TRY_CAST" when Peek(1).IsSymbol("("):
                        _next += 2;
                        SqlExpr operand = ReadExpression();
                        ExpectKeyword("AS");
                        SqlType target = ReadType();
                        ExpectSymbol(")");
                        return new CastExpr(operand, target, word == "TRY_CAST", token.Position);
                    case "CURRENT_DATE" or "CURRENT_TIMESTAMP" or "CURRENT_USER" or "CURRENT_CATALOG" or "CURRENT_SCHEMA" or "CURRENT_DATABASE" when !Peek(1).IsSymbol("("):
                        _next++;
                        return new FunctionExpr(word.ToLowerInvariant(), Array.Empty<SqlExpr>(), Array.Empty<string?>(), false, token.Position);
                }
            }

            if (Peek(1).IsSymbol("("))
            {
                return ReadFunction();
            }

            var parts = new List<string> { ReadName() };
            while (Current.IsSymbol(".") && Peek(1).Kind is TokenKind.Identifier or TokenKind.QuotedIdentifier)
            {
                _next++;
                parts.Add(ReadName());
            }

            return new ColumnRefExpr(parts, token.Position);
        }

        private FunctionExpr ReadFunction()
        {
            Token name = Current;
            _next += 2;
            var arguments = new List<SqlExpr>();
            var names = new List<string?>();
            bool star = false;
            if (TrySymbol("*"))
            {
                star = true;
            }
            else if (!Current.IsSymbol(")"))
            {
                if (Current.Is("DISTINCT"))
                {
                    throw SqlError.NotSupported("DISTINCT aggregates");
                }

                do
                {
                    arguments.Add(ReadExpression());
                    names.Add(TryKeyword("AS") ? ReadName() : null);
                }
                while (TrySymbol(","));
            }

            ExpectSymbol(")");
            if (Current.Is("OVER"))
            {
                throw SqlError.NotSupported("window functions");
            }

            return new FunctionExpr(name.Text.ToLowerInvariant(), arguments, names, star, name.Position);
        }

        /// <summary>INTERVAL 'text' unit [TO unit], or INTERVAL n unit [n unit ...] (several units add up).</summary>
        private SqlExpr ReadInterval(int position)
        {
            if (Current.Kind == TokenKind.String)
            {
                string text = Advance().Text;
                string start = ReadIntervalUnit();
                string? end = TryKeyword("TO") ? ReadIntervalUnit() : null;
                return SqlLiterals.Interval(text, start, end, position);
            }

            var parts = new List<(string Value, string Unit)>();
            while (Current.Kind == TokenKind.Number || Current.IsSymbol("-"))
            {
                string sign = TrySymbol("-") ? "-" : string.Empty;
                string number = Expect(TokenKind.Number).Text;
                parts.Add((sign + number, ReadIntervalUnit()));
            }

            if (parts.Count == 0)
            {
                throw SqlError.Syntax(Current.ToString(), Current.Position);
            }

            return SqlLiterals.IntervalUnits(parts, position);
        }

        private string ReadIntervalUnit()
        {
            Token token = Expect(TokenKind.Identifier);
            string unit = token.Text.ToUpperInvariant().TrimEnd('S');
            return unit switch
            {
                "YEAR" or "MONTH" or "WEEK" or "DAY" or "HOUR" or "MINUTE" or "SECOND" or "MILLISECOND" or "MICROSECOND" => unit,
                _ => throw SqlError.Syntax(token.ToString(), token.Position),
            };
        }

        /// <summary>INT, DECIMAL(10,2), VARCHAR(255), ARRAY&lt;INT&gt;, MAP&lt;STRING, INT&gt;, STRUCT&lt;a: INT, b STRING&gt;, INTERVAL DAY TO SECOND, ...</summary>
        private SqlType ReadType()
        {
            Token token = Expect(TokenKind.Identifier);
            string name = token.Text.ToUpperInvariant();
            switch (name)
            {
                case "BOOLEAN":
                    return SqlType.Boolean;
                case "TINYINT" or "BYTE":
                    return SqlType.TinyInt;
                case "SMALLINT" or "SHORT":
                    return SqlType.SmallInt;
                case "INT" or "INTEGER":
                    return SqlType.Int;
                case "BIGINT" or "LONG":
                    return SqlType.BigInt;
                case "FLOAT" or "REAL":
                    return SqlType.Float;
                case "DOUBLE":
                    return SqlType.Double;
                case "DECIMAL" or "DEC" or "NUMERIC":
                    if (TrySymbol("("))
                    {
                        int precision = ReadInt();
                        int scale = TrySymbol(",") ? ReadInt() : 0;
                        ExpectSymbol(")");
                        return SqlType.Decimal(precision, scale);
                    }

                    return SqlType.Decimal(10, 0);
                case "STRING":
                    return SqlType.String;
                case "VARCHAR" or "CHAR" or "CHARACTER":
                    ExpectSymbol("(");
                    int length = ReadInt();
                    ExpectSymbol(")");
                    return name == "VARCHAR" ? SqlType.Varchar(length) : SqlType.Char(length);
                case "BINARY":
                    return SqlType.Binary;
                case "DATE":
                    return SqlType.Date;
                case "TIMESTAMP" or "TIMESTAMP_LTZ":
                    return SqlType.Timestamp;
                case "TIMESTAMP_NTZ":
                    return SqlType.TimestampNtz;
                case "VOID":
                    return SqlType.Void;
                case "INTERVAL":
                    string start = ReadIntervalUnit();
                    string? end = TryKeyword("TO") ? ReadIntervalUnit() : null;
                    return SqlType.Interval(start, end);
                case "ARRAY":
                    ExpectSymbol("<");
                    SqlType element = ReadType();
                    ExpectSymbol(">");
                    return SqlType.Array(element);
                case "MAP":
                    ExpectSymbol("<");
                    SqlType key = ReadType();
                    ExpectSymbol(",");
                    SqlType value = ReadType();
                    ExpectSymbol(">");
                    return SqlType.Map(key, value);
                case "STRUCT":
                    ExpectSymbol("<");
                    var fields = new List<SqlField>();
                    if (!Current.IsSymbol(">"))
                    {
                        do
                        {
                            string field = ReadName();
                            TrySymbol(":");
                            SqlType fieldType = ReadType();
                            bool nullable = !(Current.Is("NOT") && Peek(1).Is("NULL"));
                            if (!nullable)
                            {
                                _next += 2;
                            }

                            if (TryKeyword("COMMENT"))
                            {
                                Expect(TokenKind.String);
                            }

                            fields.Add(new SqlField(field, fieldType, nullable));
                        }
                        while (TrySymbol(","));
                    }

                    ExpectSymbol(">");
                    return SqlType.Struct(fields);
                default:
                    throw new SqlError("UNSUPPORTED_DATATYPE", $"Unsupported data type \"{token.Text}\".", "0A000");
            }
        }

        private int ReadInt()
        {
            Token token = Expect(TokenKind.Number);
            return int.TryParse(token.Text, NumberStyles.None, CultureInfo.InvariantCulture, out int value) ? value : throw SqlError.Syntax(token.ToString(), token.Position);
        }

        private static LiteralExpr NumberLiteral(Token token) => SqlLiterals.Number(token.Text, token.Position);

        private static LiteralExpr HexLiteral(Token token)
        {
            string hex = token.Text.Length % 2 == 1 ? "0" + token.Text : token.Text;
            try
            {
                return new LiteralExpr(Convert.FromHexString(hex), SqlType.Binary, $"X'{token.Text.ToUpperInvariant()}'", token.Position);
            }
            catch (FormatException)
            {
                throw SqlError.Syntax($"X'{token.Text}'", token.Position);
            }
        }

        private string ReadName()
        {
            Token token = Current;
            if (token.Kind is TokenKind.Identifier or TokenKind.QuotedIdentifier)
            {
                _next++;
                return token.Text;
            }

            throw SqlError.Syntax(token.ToString(), token.Position);
        }

        private Token Peek(int ahead) => _tokens[Math.Min(_next + ahead, _tokens.Count - 1)];

        private Token Previous => _tokens[Math.Max(0, _next - 1)];

        private bool TryKeyword(string keyword)
        {
            if (Current.Is(keyword))
            {
                _next++;
                return true;
            }

            return false;
        }

        private bool TrySymbol(string symbol)
        {
            if (Current.IsSymbol(symbol))
            {
                _next++;
                return true;
            }

            return false;
        }

        private void ExpectKeyword(string keyword)
        {
            if (!TryKeyword(keyword))
            {
                throw SqlError.Syntax(Current.ToString(), Current.Position);
            }
        }

        private void ExpectSymbol(string symbol)
        {
            if (!TrySymbol(symbol))
            {
                throw SqlError.Syntax(Current.ToString(), Current.Position);
            }
        }

        private Token Expect(TokenKind kind)
        {
            if (Current.Kind != kind)
            {
                throw SqlError.Syntax(Current.ToString(), Current.Position);
            }

            return Advance();
        }

        /// <summary>Moves past the current token and returns it, for the text or position a node keeps of it.</summary>
        private Token Advance()
        {
            Token token = Current;
            _next++;
            return token;
        }
    }
}
