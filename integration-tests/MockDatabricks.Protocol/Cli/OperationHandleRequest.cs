using System.Threading;
using System.Threading.Tasks;
using MockDatabricks.Protocol.Thrift;
using Thrift.Protocol;
using Thrift.Protocol.Entities;

namespace MockDatabricks.Protocol.Cli
{
    /// <summary>Shared reader for the requests whose only required field is operationHandle (1).</summary>
    internal static class OperationHandleRequest
    {
        public static async Task<TOperationHandle> ReadHandleOnlyAsync(TProtocol reader, string structName, CancellationToken ct)
        {
            TOperationHandle? handle = null;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                if (id == 1 && type == TType.Struct)
                {
                    handle = await TOperationHandle.ReadAsync(reader, ct);
                }
                else
                {
                    await reader.SkipAsync(type, ct);
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(handle != null, structName, "operationHandle");
            return handle!;
        }

        public static async Task<TStatus> ReadStatusOnlyAsync(TProtocol reader, string structName, CancellationToken ct)
        {
            TStatus? status = null;
            await reader.ReadStructBeginAsync(ct);
            while (await reader.ReadFieldHeaderAsync(ct) is (true, var type, var id))
            {
                if (id == 1 && type == TType.Struct)
                {
                    status = await TStatus.ReadAsync(reader, ct);
                }
                else
                {
                    await reader.SkipAsync(type, ct);
                }
            }

            await reader.ReadStructEndAsync(ct);
            ThriftFields.Require(status != null, structName, "status");
            return status!;
        }
    }
}
