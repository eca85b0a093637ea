using System.Threading;
using System.Threading.Tasks;
using Thrift.Protocol;

namespace MockDatabricks.Protocol.Thrift
{
    /// <summary>
    /// A TCLIService struct that writes its fields and STOP (the enclosing struct begin/end is written by
    /// <see cref="ThriftFields.WriteStructFieldAsync"/>). Reading is a static <c>ReadAsync(TProtocol, CancellationToken)</c> per type.
    /// </summary>
    public interface IThriftStruct
    {
        Task WriteAsync(TProtocol writer, CancellationToken ct);
    }
}
