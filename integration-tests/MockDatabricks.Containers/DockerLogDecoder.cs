using System;
using System.Buffers.Binary;
using System.Text;

namespace MockDatabricks.Containers;

/// <summary>
/// Turns the body of <c>GET /containers/{id}/logs</c> into text. For a container without a TTY the
/// engine multiplexes stdout and stderr into frames: one byte stream type (0 stdin, 1 stdout, 2 stderr),
/// three zero bytes, a big-endian uint32 length, then the payload. A body that does not parse as frames
/// (a TTY container, or an engine that sends raw text) is returned as UTF-8 as it is.
/// </summary>
internal static class DockerLogDecoder
{
    private const int HeaderLength = 8;

    public static string Decode(ReadOnlySpan<byte> body)
    {
        if (!LooksMultiplexed(body))
        {
            return Encoding.UTF8.GetString(body);
        }

        var text = new StringBuilder(body.Length);
        ReadOnlySpan<byte> rest = body;
        while (rest.Length >= HeaderLength)
        {
            int length = checked((int)BinaryPrimitives.ReadUInt32BigEndian(rest.Slice(4, 4)));
            int available = Math.Min(length, rest.Length - HeaderLength);
            text.Append(Encoding.UTF8.GetString(rest.Slice(HeaderLength, available)));
            rest = rest.Slice(HeaderLength + available);
        }

        return text.ToString();
    }

    // Every frame header must be well formed, otherwise text that happens to start with a low byte would be mangled.
    private static bool LooksMultiplexed(ReadOnlySpan<byte> body)
    {
        if (body.Length < HeaderLength)
        {
            return false;
        }

        ReadOnlySpan<byte> rest = body;
        while (rest.Length > 0)
        {
            if (rest.Length < HeaderLength || rest[0] > 2 || rest[1] != 0 || rest[2] != 0 || rest[3] != 0)
            {
                return false;
            }

            uint length = BinaryPrimitives.ReadUInt32BigEndian(rest.Slice(4, 4));
            if (length > (uint)(rest.Length - HeaderLength))
            {
                // A truncated last frame (tail cut by the engine) still counts as multiplexed.
                return true;
            }

            rest = rest.Slice(HeaderLength + (int)length);
        }

        return true;
    }
}
