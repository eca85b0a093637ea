using MockDatabricks.Protocol.Thrift;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>Shared reader for the requests whose only required field is operationHandle (1).</summary>
    internal static class OperationHandleRequest
    {
        public static TOperationHandle ReadHandleOnly(ThriftReader reader, string structName)
        {
            TOperationHandle? handle = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id == 1 && type == ThriftType.Struct)
                {
                    handle = TOperationHandle.Read(reader);
                }
                else
                {
                    reader.Skip(type);
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(handle != null, structName, "operationHandle");
            return handle!;
        }

        public static TStatus ReadStatusOnly(ThriftReader reader, string structName)
        {
            TStatus? status = null;
            reader.ReadStructBegin();
            while (reader.ReadFieldBegin(out ThriftType type, out short id))
            {
                if (id == 1 && type == ThriftType.Struct)
                {
                    status = TStatus.Read(reader);
                }
                else
                {
                    reader.Skip(type);
                }
            }

            reader.ReadStructEnd();
            ThriftReader.Require(status != null, structName, "status");
            return status!;
        }
    }
}
