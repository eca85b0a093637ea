namespace MockDatabricks.Server.Query.Sql
{
    /// <summary>
    /// A statement the mock refuses, as a warehouse words it: "[ERROR_CLASS] message SQLSTATE: xxxxx", with the SQLSTATE
    /// also in TStatus.sqlState (the driver puts it in its exception). The classes are Databricks' own for the same cause.
    /// </summary>
    public sealed class SqlError : Exception
    {
        public SqlError(string errorClass, string message, string sqlState)
            : base($"[{errorClass}] {message} SQLSTATE: {sqlState}")
        {
            ErrorClass = errorClass;
            SqlState = sqlState;
        }

        public string ErrorClass { get; }

        public string SqlState { get; }

        public static SqlError Syntax(string near, int position) =>
            new SqlError("PARSE_SYNTAX_ERROR", $"Syntax error at or near {near} (position {position}).", "42601");

        public static SqlError TableNotFound(string name) =>
            new SqlError("TABLE_OR_VIEW_NOT_FOUND", $"The table or view {name} cannot be found. Verify the spelling and correctness of the schema and catalog.", "42P01");

        public static SqlError ColumnNotFound(string name, string candidates) =>
            new SqlError("UNRESOLVED_COLUMN.WITH_SUGGESTION", $"A column, variable, or function parameter with name {name} cannot be resolved. Did you mean one of the following? [{candidates}].", "42703");

        /// <summary>What the mock does not do (it is not a SQL engine): DDL, DML, joins, filters, aggregates beyond COUNT(*).</summary>
        public static SqlError NotSupported(string what) =>
            new SqlError("MOCK_NOT_SUPPORTED", $"The mock Databricks server does not execute {what}: it serves generated results, it is not a SQL engine (see its README, 'Statement grammar').", "0A000");

        public static SqlError DivideByZero() =>
            new SqlError("DIVIDE_BY_ZERO", "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead. If necessary set \"ansi_mode\" to \"false\" to bypass this error.", "22012");

        public static SqlError InvalidCast(string value, string from, string to) =>
            new SqlError("CAST_INVALID_INPUT", $"The value {value} of the type \"{from}\" cannot be cast to \"{to}\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate malformed input and return NULL instead.", "22018");

        public static SqlError Overflow(string value, string from, string to) =>
            new SqlError("CAST_OVERFLOW", $"The value {value} of the type \"{from}\" cannot be cast to \"{to}\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead.", "22003");

        public static SqlError ArithmeticOverflow(string operation) =>
            new SqlError("ARITHMETIC_OVERFLOW", $"{operation} caused overflow. Use 'try_add' or 'try_multiply' to tolerate overflow and return NULL instead.", "22003");

        public static SqlError UnknownFunction(string name) =>
            new SqlError("UNRESOLVED_ROUTINE", $"Cannot resolve routine `{name}` on search path [`system`.`builtin`, `system`.`session`].", "42883");

        public static SqlError DataType(string message) =>
            new SqlError("DATATYPE_MISMATCH", message, "42K09");
    }
}
