using System;
using System.Threading;
using System.Threading.Tasks;
using Thrift;
using Thrift.Protocol;
using Thrift.Transport.Client;

namespace MockDatabricks.Tests.Protocol
{
    /// <summary>Hand-built Thrift bytes for tests that need a message the typed code would never write.</summary>
    internal static class RawThrift
    {
        public static async Task<byte[]> EncodeAsync(Func<TProtocol, CancellationToken, Task> write, bool strictWrite = true)
        {
            using var transport = new TMemoryBufferTransport(new TConfiguration(), 256);
            using var writer = new TBinaryProtocol(transport, strictRead: false, strictWrite: strictWrite);
            await write(writer, CancellationToken.None);
            return transport.GetBuffer();
        }
    }
}
