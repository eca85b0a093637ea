using System.IO;
using System.Threading;
using System.Threading.Tasks;
using K4os.Compression.LZ4.Streams;

namespace Lz4Benchmarks
{
    /// <summary>
    /// The CloudFetch decompression of apache/arrow-adbc tag apache-arrow-adbc-21, rebuilt on the real K4os 1.3.8
    /// package: the call sequence of csharp/src/Drivers/Databricks/Lz4Utilities.cs (DecompressLz4Async: K4os'
    /// LZ4Stream.Decode over the downloaded bytes, CopyToAsync with an 80 KB buffer into a growing MemoryStream,
    /// then its GetBuffer) and of Reader/CloudFetch/CloudFetchDownloader.cs (a read-only MemoryStream over that
    /// buffer is what the Arrow reader gets).
    /// </summary>
    internal static class Tag21Path
    {
        private const int CopyBufferSize = 81920; // upstream's DefaultBufferSize

        public static async Task<MemoryStream> DecompressAsync(byte[] compressed, CancellationToken cancellationToken = default)
        {
            using var output = new MemoryStream();
            using (var input = new MemoryStream(compressed))
            using (var decoder = LZ4Stream.Decode(input))
            {
                await decoder.CopyToAsync(output, CopyBufferSize, cancellationToken).ConfigureAwait(false);
            }

            return new MemoryStream(output.GetBuffer(), 0, (int)output.Length, writable: false, publiclyVisible: true);
        }
    }
}
