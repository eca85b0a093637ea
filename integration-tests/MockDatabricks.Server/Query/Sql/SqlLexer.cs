namespace MockDatabricks.Server.Query.Sql
{
    public enum TokenKind
    {
        Identifier,
        QuotedIdentifier,
        Number,
        String,
        HexString,
        Symbol,
        End,
    }

    /// <summary>One token; <see cref="Text"/> is the identifier, the number's digits and suffix, the string's value, or the symbol.</summary>
    public sealed record Token(TokenKind Kind, string Text, int Position)
    {
        public bool Is(string keyword) => Kind == TokenKind.Identifier && Text.Equals(keyword, StringComparison.OrdinalIgnoreCase);

        public bool IsSymbol(string symbol) => Kind == TokenKind.Symbol && Text == symbol;

        public override string ToString() => Kind switch
        {
            TokenKind.End => "end of input",
            TokenKind.String => $"'{Text}'",
            TokenKind.QuotedIdentifier => $"`{Text}`",
            _ => $"'{Text}'",
        };
    }

    /// <summary>
    /// Spark SQL's tokens, as far as the mock reads them: identifiers (plain or `quoted`), numbers with Spark's literal
    /// suffixes (L, S, Y, D, F, BD), 'strings' and "strings" (with '' and backslash escapes), X'hex', operators.
    /// Comments (-- and /* */) are skipped.
    /// </summary>
    public static class SqlLexer
    {
        private static readonly string[] s_symbols = { "::", "<=>", "<=", ">=", "<>", "!=", "==", "||", "(", ")", ",", ".", "+", "-", "*", "/", "%", "=", "<", ">", "[", "]", ":", ";" };

        public static List<Token> Tokenize(string text)
        {
            var tokens = new List<Token>();
            int i = 0;
            while (i < text.Length)
            {
                char c = text[i];
                if (char.IsWhiteSpace(c))
                {
                    i++;
                }
                else if (c == '-' && At(text, i + 1) == '-')
                {
                    while (i < text.Length && text[i] != '\n')
                    {
                        i++;
                    }
                }
                else if (c == '/' && At(text, i + 1) == '*')
                {
                    int end = text.IndexOf("*/", i + 2, StringComparison.Ordinal);
                    i = end < 0 ? text.Length : end + 2;
                }
                else if ((c == 'X' || c == 'x') && At(text, i + 1) == '\'')
                {
                    int start = i;
                    (string hex, i) = ReadString(text, i + 1);
                    tokens.Add(new Token(TokenKind.HexString, hex, start));
                }
                else if (char.IsLetter(c) || c == '_')
                {
                    int start = i;
                    while (i < text.Length && (char.IsLetterOrDigit(text[i]) || text[i] == '_'))
                    {
                        i++;
                    }

                    tokens.Add(new Token(TokenKind.Identifier, text.Substring(start, i - start), start));
                }
                else if (char.IsDigit(c) || (c == '.' && char.IsDigit(At(text, i + 1))))
                {
                    int start = i;
                    i = ReadNumber(text, i);
                    tokens.Add(new Token(TokenKind.Number, text.Substring(start, i - start), start));
                }
                else if (c == '\'' || c == '"')
                {
                    int start = i;
                    (string value, i) = ReadString(text, i);
                    tokens.Add(new Token(TokenKind.String, value, start));
                }
                else if (c == '`')
                {
                    int start = i;
                    (string name, i) = ReadQuoted(text, i, backslashEscapes: false, "unterminated `quoted identifier`");
                    tokens.Add(new Token(TokenKind.QuotedIdentifier, name, start));
                }
                else
                {
                    string? symbol = Array.Find(s_symbols, s => string.CompareOrdinal(text, i, s, 0, s.Length) == 0);
                    if (symbol == null)
                    {
                        throw SqlError.Syntax($"'{c}'", i);
                    }

                    tokens.Add(new Token(TokenKind.Symbol, symbol, i));
                    i += symbol.Length;
                }
            }

            tokens.Add(new Token(TokenKind.End, string.Empty, text.Length));
            return tokens;
        }

        private static char At(string text, int index) => index < text.Length ? text[index] : '\0';

        /// <summary>Digits, an optional fraction and exponent, then an optional suffix (L, S, Y, D, F, BD).</summary>
        private static int ReadNumber(string text, int i)
        {
            while (char.IsDigit(At(text, i)))
            {
                i++;
            }

            if (At(text, i) == '.')
            {
                i++;
                while (char.IsDigit(At(text, i)))
                {
                    i++;
                }
            }

            if ((At(text, i) == 'e' || At(text, i) == 'E') && (char.IsDigit(At(text, i + 1)) || ((At(text, i + 1) == '-' || At(text, i + 1) == '+') && char.IsDigit(At(text, i + 2)))))
            {
                i += 2;
                while (char.IsDigit(At(text, i)))
                {
                    i++;
                }
            }

            if (char.ToUpperInvariant(At(text, i)) == 'B' && char.ToUpperInvariant(At(text, i + 1)) == 'D' && !char.IsLetterOrDigit(At(text, i + 2)))
            {
                return i + 2;
            }

            if ("LSYDF".Contains(char.ToUpperInvariant(At(text, i)), StringComparison.Ordinal) && !char.IsLetterOrDigit(At(text, i + 1)) && At(text, i + 1) != '_')
            {
                return i + 1;
            }

            return i;
        }

        /// <summary>A quoted string from its opening quote: '' (or "") is a quote, backslash escapes as in Spark.</summary>
        private static (string Value, int Next) ReadString(string text, int i) =>
            ReadQuoted(text, i, backslashEscapes: true, "unterminated string literal");

        /// <summary>
        /// A quoted string or `identifier` from its opening quote: the quote doubled ('', "" or ``) is the quote itself; in a
        /// string, backslash escapes as in Spark.
        /// </summary>
        private static (string Value, int Next) ReadQuoted(string text, int i, bool backslashEscapes, string unterminated)
        {
            char quote = text[i];
            int start = i;
            var value = new StringBuilder();
            i++;
            while (true)
            {
                if (i >= text.Length)
                {
                    throw SqlError.Syntax(unterminated, start);
                }

                char c = text[i];
                if (c == quote)
                {
                    if (At(text, i + 1) == quote)
                    {
                        value.Append(quote);
                        i += 2;
                        continue;
                    }

                    return (value.ToString(), i + 1);
                }

                if (backslashEscapes && c == '\\' && i + 1 < text.Length)
                {
                    char next = text[i + 1];
                    value.Append(next switch
                    {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '0' => '\0',
                        'b' => '\b',
                        _ => next,
                    });
                    i += 2;
                    continue;
                }

                value.Append(c);
                i++;
            }
        }
    }
}
