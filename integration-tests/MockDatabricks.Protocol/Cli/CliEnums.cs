namespace MockDatabricks.Protocol.Cli
{
    // Enum values from the driver's generated TCLIService code (reference note section 4.7).

    public enum TStatusCode
    {
        Success = 0,
        SuccessWithInfo = 1,
        StillExecuting = 2,
        Error = 3,
        InvalidHandle = 4,
    }

    public enum TOperationState
    {
        Initialized = 0,
        Running = 1,
        Finished = 2,
        Canceled = 3,
        Closed = 4,
        Error = 5,
        Unknown = 6,
        Pending = 7,
        TimedOut = 8,
    }

    public enum TOperationType
    {
        ExecuteStatement = 0,
        GetTypeInfo = 1,
        GetCatalogs = 2,
        GetSchemas = 3,
        GetTables = 4,
        GetTableTypes = 5,
        GetColumns = 6,
        GetFunctions = 7,
        Unknown = 8,
        ProceduralSql = 9,
    }

    public enum TSparkRowSetType
    {
        ArrowBasedSet = 0,
        ColumnBasedSet = 1,
        RowBasedSet = 2,
        UrlBasedSet = 3,
    }

    public enum TFetchOrientation
    {
        FetchNext = 0,
        FetchPrior = 1,
        FetchRelative = 2,
        FetchAbsolute = 3,
        FetchFirst = 4,
        FetchLast = 5,
    }

    public enum TTypeId
    {
        Boolean = 0,
        TinyInt = 1,
        SmallInt = 2,
        Int = 3,
        BigInt = 4,
        Float = 5,
        Double = 6,
        String = 7,
        Timestamp = 8,
        Binary = 9,
        Array = 10,
        Map = 11,
        Struct = 12,
        Union = 13,
        UserDefined = 14,
        Decimal = 15,
        Null = 16,
        Date = 17,
        Varchar = 18,
        Char = 19,
        IntervalYearMonth = 20,
        IntervalDayTime = 21,
        TimestampLocalTz = 22,
    }

    /// <summary>TProtocolVersion values the mock deals with (the driver refuses servers below SPARK V1).</summary>
    public static class TProtocolVersion
    {
        public const int HiveV7 = 6;
        public const int HiveV8 = 7;
        public const int HiveV9 = 8;
        public const int SparkV1 = 42241;
        public const int SparkV7 = 42247;
        public const int SparkV9 = 42249;
    }

    /// <summary>TGetInfoType codes the driver asks for.</summary>
    public static class TGetInfoType
    {
        public const int DbmsName = 17;
        public const int DbmsVersion = 18;
    }
}
