namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>A Thrift struct that can write itself (fields then STOP). Reading is a static Read(ThriftReader) per type.</summary>
    public interface IThriftStruct
    {
        void Write(ThriftWriter writer);
    }
}
