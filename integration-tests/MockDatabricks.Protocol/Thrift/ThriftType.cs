namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>Wire type codes of the Thrift binary protocol.</summary>
    public enum ThriftType : byte
    {
        Stop = 0,
        Bool = 2,
        Byte = 3,
        Double = 4,
        I16 = 6,
        I32 = 8,
        I64 = 10,
        String = 11,
        Struct = 12,
        Map = 13,
        Set = 14,
        List = 15,
    }

    /// <summary>Thrift message types (the low byte of a strict message header).</summary>
    public enum ThriftMessageType : byte
    {
        Call = 1,
        Reply = 2,
        Exception = 3,
        Oneway = 4,
    }

    /// <summary>A decoded message header: method name, kind and sequence id.</summary>
    public readonly record struct ThriftMessageHeader(string Name, ThriftMessageType Type, int SequenceId);
}
