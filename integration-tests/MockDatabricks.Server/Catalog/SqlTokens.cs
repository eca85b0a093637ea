using System;
using System.Collections.Generic;
using System.Text;

namespace MockDatabricks.Server.Catalog
{
    public enum SqlTokenKind
    {
        /// <summary>A bare word: keyword or unquoted identifier.</summary>
        Word,

        /// <summary>A `backtick-quoted` identifier (`` inside is one backtick).</summary>
        QuotedIdentifier,

        /// <summary>A 'string literal' ('' inside is one quote).</summary>
        String,

        /// <summary>One of . ( ) , ;</summary>
        Symbol,
    }

    public readonly record struct SqlToken(SqlTokenKind Kind, string Text)
    {
        public bool Is(string keyword) => Kind == SqlTokenKind.Word && Text.Equals(keyword, StringComparison.OrdinalIgnoreCase);

        public bool IsSymbol(char symbol) => Kind == SqlTokenKind.Symbol && Text.Length == 1 && Text[0] == symbol;

        /// <summary>An identifier, bare or quoted.</summary>
        public bool IsIdentifier => Kind is SqlTokenKind.Word or SqlTokenKind.QuotedIdentifier;
    }

    /// <summary>
    /// Splits the metadata statements the driver sends (SHOW ..., DESCRIBE ..., SELECT CURRENT_CATALOG()) into tokens,
    /// and walks them. Not a SQL lexer for anything else: numbers, operators and comments are not needed here.
    /// </summary>
    public sealed class SqlTokens
    {
        private readonly List<SqlToken> _tokens;
        private int _position;

        private SqlTokens(List<SqlToken> tokens)
        {
            _tokens = tokens;
        }

        public bool AtEnd => _position >= _tokens.Count;

        public SqlToken? Peek(int ahead = 0) => _position + ahead < _tokens.Count ? _tokens[_position + ahead] : null;

        /// <summary>Tokens of <paramref name="text"/>, or null when it holds something this lexer does not know (then it is not a metadata statement).</summary>
        public static SqlTokens? TryRead(string text)
        {
            var tokens = new List<SqlToken>();
            int i = 0;
            while (i < text.Length)
            {
                char c = text[i];
                if (char.IsWhiteSpace(c))
                {
                    i++;
                }
                else if (char.IsLetter(c) || c == '_')
                {
                    int start = i;
                    while (i < text.Length && (char.IsLetterOrDigit(text[i]) || text[i] == '_'))
                    {
                        i++;
                    }

                    tokens.Add(new SqlToken(SqlTokenKind.Word, text.Substring(start, i - start)));
                }
                else if (c is '`' or '\'')
                {
                    string? quoted = ReadQuoted(text, ref i, c);
                    if (quoted == null)
                    {
                        return null;
                    }

                    tokens.Add(new SqlToken(c == '`' ? SqlTokenKind.QuotedIdentifier : SqlTokenKind.String, quoted));
                }
                else if (c is '.' or '(' or ')' or ',' or ';')
                {
                    tokens.Add(new SqlToken(SqlTokenKind.Symbol, c.ToString()));
                    i++;
                }
                else
                {
                    return null;
                }
            }

            // A trailing ';' ends the statement, as the rest of the mock's grammar allows.
            if (tokens.Count > 0 && tokens[^1].IsSymbol(';'))
            {
                tokens.RemoveAt(tokens.Count - 1);
            }

            return new SqlTokens(tokens);
        }

        /// <summary>Consumes the keywords if they come next, in order; consumes nothing otherwise.</summary>
        public bool Accept(params string[] keywords)
        {
            for (int k = 0; k < keywords.Length; k++)
            {
                if (Peek(k) is not SqlToken token || !token.Is(keywords[k]))
                {
                    return false;
                }
            }

            _position += keywords.Length;
            return true;
        }

        public bool AcceptSymbol(char symbol)
        {
            if (Peek() is SqlToken token && token.IsSymbol(symbol))
            {
                _position++;
                return true;
            }

            return false;
        }

        public string? AcceptIdentifier()
        {
            if (Peek() is SqlToken token && token.IsIdentifier)
            {
                _position++;
                return token.Text;
            }

            return null;
        }

        public string? AcceptString()
        {
            if (Peek() is SqlToken token && token.Kind == SqlTokenKind.String)
            {
                _position++;
                return token.Text;
            }

            return null;
        }

        /// <summary>a, a.b or a.b.c: the parts of a qualified name.</summary>
        public List<string>? AcceptQualifiedName()
        {
            string? first = AcceptIdentifier();
            if (first == null)
            {
                return null;
            }

            var parts = new List<string> { first };
            while (AcceptSymbol('.'))
            {
                parts.Add(AcceptIdentifier() ?? throw new FormatException("A name part must follow '.'."));
            }

            return parts;
        }

        private static string? ReadQuoted(string text, ref int i, char quote)
        {
            var value = new StringBuilder();
            i++;
            while (i < text.Length)
            {
                if (text[i] == quote)
                {
                    if (i + 1 < text.Length && text[i + 1] == quote)
                    {
                        value.Append(quote);
                        i += 2;
                        continue;
                    }

                    i++;
                    return value.ToString();
                }

                value.Append(text[i++]);
            }

            return null;
        }
    }
}
