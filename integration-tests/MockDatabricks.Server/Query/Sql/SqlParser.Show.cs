namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>
    /// The SHOW statements: Spark's (SHOW CATALOGS, SHOW SCHEMAS [IN catalog], SHOW TABLES [IN [catalog.]schema]) and the
    /// metadata forms the driver's REST path sends instead of Thrift's catalog RPCs (csharp/v1.1.7
    /// StatementExecution/MetadataCommands):
    /// <code>
    /// SHOW CATALOGS [LIKE 'p']
    /// SHOW SCHEMAS [IN ALL CATALOGS | IN `c`] [LIKE 'p']                  (also DATABASES, FROM)
    /// SHOW TABLES [IN ALL CATALOGS | IN CATALOG `c`] [SCHEMA LIKE 'p'] [LIKE 'p']
    /// SHOW TABLES {IN | FROM} [catalog.]schema [LIKE 'p']
    /// SHOW COLUMNS [IN ALL CATALOGS | IN CATALOG `c`] [SCHEMA LIKE 'p'] [TABLE LIKE 'p'] [LIKE 'p']
    /// SHOW [FOREIGN] KEYS IN CATALOG `c` IN SCHEMA `s` IN TABLE `t`
    /// </code>
    /// LIKE may be left out before the pattern. Any other SHOW is recognised and refused.
    /// </summary>
    public sealed partial class SqlParser
    {
        private ShowStatement ReadShow()
        {
            ExpectKeyword("SHOW");
            string word = ReadName().ToUpperInvariant();
            switch (word)
            {
                case "CATALOGS":
                    return new ShowStatement(ShowWhat.Catalogs, false, null, null, null) { Pattern = ReadShowPattern() };
                case "SCHEMAS" or "DATABASES":
                    bool allSchemas = TryKeywords("IN", "ALL", "CATALOGS");
                    string? catalog = !allSchemas && (TryKeyword("IN") || TryKeyword("FROM")) ? ReadName() : null;
                    return new ShowStatement(ShowWhat.Schemas, allSchemas, catalog, null, null) { Pattern = ReadShowPattern() };
                case "TABLES":
                    return ReadShowTables();
                case "COLUMNS":
                    bool allColumns = TryKeywords("IN", "ALL", "CATALOGS");
                    string? columnsCatalog = !allColumns && TryKeywords("IN", "CATALOG") ? ReadName() : null;
                    return new ShowStatement(ShowWhat.Columns, allColumns, columnsCatalog, null, null)
                    {
                        SchemaPattern = TryKeywords("SCHEMA", "LIKE") ? ReadPatternString() : null,
                        TablePattern = TryKeywords("TABLE", "LIKE") ? ReadPatternString() : null,
                        Pattern = ReadShowPattern(),
                    };
                case "KEYS":
                    return ReadKeyTarget(ShowWhat.PrimaryKeys);
                case "FOREIGN":
                    ExpectKeyword("KEYS");
                    return ReadKeyTarget(ShowWhat.ForeignKeys);
                default:
                    throw SqlError.NotSupported("SHOW " + word);
            }
        }

        /// <summary>IN ALL CATALOGS | IN CATALOG `c` (then SCHEMA LIKE), or Spark's {IN | FROM} [catalog.]schema, or neither.</summary>
        private ShowStatement ReadShowTables()
        {
            bool all = TryKeywords("IN", "ALL", "CATALOGS");
            string? catalog = !all && TryKeywords("IN", "CATALOG") ? ReadName() : null;
            List<string>? schema = null;
            if (!all && catalog == null && (TryKeyword("IN") || TryKeyword("FROM")))
            {
                schema = new List<string> { ReadName() };
                if (TrySymbol("."))
                {
                    schema.Add(ReadName());
                }
            }

            return new ShowStatement(ShowWhat.Tables, all, catalog, schema, null)
            {
                SchemaPattern = schema == null && TryKeywords("SCHEMA", "LIKE") ? ReadPatternString() : null,
                Pattern = ReadShowPattern(),
            };
        }

        /// <summary>IN CATALOG `c` IN SCHEMA `s` IN TABLE `t` (SHOW KEYS and SHOW FOREIGN KEYS).</summary>
        private ShowStatement ReadKeyTarget(ShowWhat what)
        {
            ExpectKeywords("IN", "CATALOG");
            string catalog = ReadName();
            ExpectKeywords("IN", "SCHEMA");
            string schema = ReadName();
            ExpectKeywords("IN", "TABLE");
            return new ShowStatement(what, false, catalog, new[] { schema }, ReadName());
        }

        /// <summary>[LIKE] 'pattern', or nothing.</summary>
        private string? ReadShowPattern() => TryKeyword("LIKE") ? ReadPatternString() : Current.Kind == TokenKind.String ? ReadPatternString() : null;

        private string ReadPatternString() => Expect(TokenKind.String).Text;

        /// <summary>Consumes the keywords if they come next, in order; consumes nothing otherwise.</summary>
        private bool TryKeywords(params string[] keywords)
        {
            for (int k = 0; k < keywords.Length; k++)
            {
                if (!Peek(k).Is(keywords[k]))
                {
                    return false;
                }
            }

            _next += keywords.Length;
            return true;
        }

        private void ExpectKeywords(params string[] keywords)
        {
            foreach (string keyword in keywords)
            {
                ExpectKeyword(keyword);
            }
        }
    }
}
